package org.hyperprof.api.output;

import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An output that grows as data arrives (a CSV line per batch, for {@code tail -f}), opened by
 * {@link OutputFiles#appender}. Each {@link #append} is written whole and flushed, never mixed with
 * another write to the same target. Thread-safe; {@link #close} may come from another thread while
 * an append waits on a slow reader, and ends that wait.
 */
@ProviderType
public interface Appender extends AutoCloseable {

    /** Where the bytes go: the target with its symbolic links resolved. */
    Path file();

    /**
     * Appends one chunk. When writing it fails part-way into a regular file, the file is cut back to
     * where the chunk began, so it only ever holds whole chunks.
     *
     * @throws OutputException when the chunk cannot be written, or the appender is closed
     */
    void append(Content chunk) throws OutputException;

    /** Closes the target; later appends fail. Never throws. */
    @Override
    void close();
}
