package org.hyperprof.store.duckdb;

import java.nio.file.Path;

import org.hyperprof.api.store.StoreException;

/**
 * An archive cannot be restored: it is damaged, malformed, of a newer format or schema, or its session
 * is already stored. One line for the user: the file, the entry (and the offset in it, where known),
 * what was expected and what to do.
 */
final class ArchiveException extends StoreException {
    private static final long serialVersionUID = 1L;

    /** No entry: the problem is the archive as a whole. */
    static final String WHOLE = null;
    /** No offset known. */
    static final long NO_OFFSET = -1;

    private final transient Path file;
    private final String entry;
    private final long offset;

    ArchiveException(Path file, String entry, long offset, String problem, Throwable cause) {
        super(line(file, entry, offset, problem), cause);
        this.file = file;
        this.entry = entry;
        this.offset = offset;
    }

    ArchiveException(Path file, String entry, String problem) {
        this(file, entry, NO_OFFSET, problem, null);
    }

    private static String line(Path file, String entry, long offset, String problem) {
        return ("archive " + file + (entry == null ? "" : ", entry " + entry)
                + (offset < 0 ? "" : " at byte " + offset) + ": " + problem).replaceAll("\\R+", " ");
    }

    /** The archive's file. */
    Path file() {
        return file;
    }

    /** The entry at fault, or null for the archive as a whole. */
    String entry() {
        return entry;
    }

    /** The offset in the entry where it went wrong, or {@link #NO_OFFSET}. */
    long offset() {
        return offset;
    }
}
