package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * An archive's manifest ({@value #NAME}, the first entry): what made it and, for each table, the
 * Parquet entry holding the session's rows with its row count, size and SHA-256. Java properties in
 * UTF-8, one key a line; a reader refuses a key it does not know, a key given twice and a format newer
 * than its own.
 *
 * @param format           the archive format's version ({@link #FORMAT} writes)
 * @param schema           the store's schema version the rows follow
 * @param hyperprofVersion the Hyperprof that made it
 * @param session          the session's id
 * @param host             the host the session was made on
 * @param created          when the archive was made
 * @param entries          one per table, {@code sessions} among them
 */
record ArchiveManifest(int format, int schema, String hyperprofVersion, long session, String host, Instant created,
        List<Entry> entries) {

    /** The manifest's entry name. */
    static final String NAME = "manifest.properties";
    /** The archive format this code writes and reads. */
    static final int FORMAT = 1;
    /** A table's name, as DuckDB and the schema spell them: also its entry's name before {@code .parquet}. */
    static final Pattern TABLE = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final String SESSIONS = "sessions";

    /**
     * One table's entry.
     *
     * @param table  the table
     * @param rows   the session's rows in it
     * @param bytes  the entry's size, uncompressed
     * @param sha256 its SHA-256, lower-case hex
     */
    record Entry(String table, long rows, long bytes, String sha256) {
        /** The entry's name in the zip. */
        String name() {
            return table + ".parquet";
        }
    }

    ArchiveManifest {
        entries = List.copyOf(entries);
    }

    /** The manifest's text, in a fixed order. */
    byte[] bytes() {
        StringBuilder b = new StringBuilder("# Hyperprof session archive (README: \"Archives\")\n");
        List<String> tables = entries.stream().map(Entry::table).toList();
        line(b, "archive.format", format);
        line(b, "schema.version", schema);
        line(b, "hyperprof.version", hyperprofVersion);
        line(b, "session", session);
        line(b, "host", host);
        line(b, "created", created);
        line(b, "tables", String.join(",", tables));
        for (Entry e : entries) {
            line(b, "table." + e.table() + ".rows", e.rows());
            line(b, "table." + e.table() + ".bytes", e.bytes());
            line(b, "table." + e.table() + ".sha256", e.sha256());
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void line(StringBuilder b, String key, Object value) {
        // Properties' own escaping: a host name or version with '=', ':', '\' or a line break stays one value.
        Properties one = new Properties();
        one.setProperty(key, String.valueOf(value));
        StringWriter w = new StringWriter();
        try {
            one.store(w, null);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        for (String l : w.toString().split("\\R")) {
            // Not stripped: a value's trailing space is written as is, and is part of it.
            if (!l.startsWith("#") && !l.isEmpty()) {
                b.append(l).append('\n');
            }
        }
    }

    /** The entry of {@code table}, or null. */
    Entry entry(String table) {
        return entries.stream().filter(e -> e.table().equals(table)).findFirst().orElse(null);
    }

    /** Parses a manifest read from {@code file}, refusing what it does not know. */
    static ArchiveManifest parse(byte[] bytes, Path file) throws ArchiveException {
        Keys keys = new Keys();
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            keys.load(new StringReader(text));
        } catch (CharacterCodingException e) {
            throw problem(file, "it is not UTF-8 text; the archive is damaged, make it again with hp:archive");
        } catch (IOException | IllegalArgumentException e) {
            throw problem(file, "it does not parse as properties (" + e.getMessage() + "); the archive is damaged,"
                    + " make it again with hp:archive");
        }
        if (keys.twice != null) {
            throw problem(file, "the key " + shown(keys.twice) + " is given twice");
        }
        Reader r = new Reader(keys, file);
        int format = (int) r.number("archive.format", 1, Integer.MAX_VALUE);
        if (format > FORMAT) {
            throw problem(file, "it is of archive format " + format + ", made by Hyperprof "
                    + shown(keys.getProperty("hyperprof.version", "(unknown)")) + "; this Hyperprof reads format " + FORMAT
                    + " and older: restore it with that Hyperprof or a newer one");
        }
        int schema = (int) r.number("schema.version", 1, Integer.MAX_VALUE);
        String version = r.text("hyperprof.version");
        long session = r.number("session", 1, Long.MAX_VALUE);
        String host = r.text("host");
        Instant created;
        try {
            created = Instant.parse(r.text("created"));
        } catch (DateTimeParseException e) {
            throw problem(file, "created is '" + shown(keys.getProperty("created")) + "', not an instant such as"
                    + " 2026-11-28T00:30:00Z");
        }
        Set<String> tables = new LinkedHashSet<>();
        for (String t : r.text("tables").split(",", -1)) {
            if (!TABLE.matcher(t).matches()) {
                throw problem(file, "tables names '" + shown(t) + "', which is no table name (lower-case letters, digits"
                        + " and '_')");
            }
            if (!tables.add(t)) {
                throw problem(file, "tables names " + t + " twice");
            }
        }
        if (!tables.contains(SESSIONS)) {
            throw problem(file, "tables lacks sessions: the session's own row is missing");
        }
        Set<String> known = new TreeSet<>(List.of("archive.format", "schema.version", "hyperprof.version", "session",
                "host", "created", "tables"));
        List<Entry> entries = new ArrayList<>();
        for (String t : tables) {
            String k = "table." + t + ".";
            known.addAll(List.of(k + "rows", k + "bytes", k + "sha256"));
            String sha = r.text(k + "sha256");
            if (!SHA256.matcher(sha).matches()) {
                throw problem(file, k + "sha256 is '" + shown(sha) + "', not 64 lower-case hex digits");
            }
            entries.add(new Entry(t, r.number(k + "rows", 0, Long.MAX_VALUE), r.number(k + "bytes", 0, Long.MAX_VALUE),
                    sha));
        }
        for (String k : keys.stringPropertyNames()) {
            if (!known.contains(k)) {
                throw problem(file, "unknown key " + shown(k) + " (format " + format + " has none such)");
            }
        }
        return new ArchiveManifest(format, schema, version, session, host, created, entries);
    }

    /** A value of the manifest as a message shows it: short, on one line. */
    static String shown(String value) {
        String v = value.replaceAll("\\p{Cntrl}", "?");
        return v.length() <= 80 ? v : v.substring(0, 80) + "...";
    }

    private static ArchiveException problem(Path file, String what) {
        return new ArchiveException(file, NAME, what);
    }

    /** Properties that remember a key given twice (the last would silently win). */
    private static final class Keys extends Properties {
        private static final long serialVersionUID = 1L;
        private String twice;

        @Override
        public synchronized Object put(Object key, Object value) {
            Object old = super.put(key, value);
            if (old != null && twice == null) {
                twice = String.valueOf(key);
            }
            return old;
        }
    }

    /** Required keys, each checked. */
    private record Reader(Properties keys, Path file) {
        String text(String key) throws ArchiveException {
            String v = keys.getProperty(key);
            if (v == null || v.isBlank()) {
                throw problem(file, "the key " + key + " is missing");
            }
            return v;
        }

        long number(String key, long min, long max) throws ArchiveException {
            String v = text(key);
            try {
                long n = Long.parseLong(v);
                if (n >= min && n <= max) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw problem(file, key + " is '" + shown(v) + "', not a whole number from " + min + " to " + max);
        }
    }
}
