package org.hyperprof.shell;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * One file of the configuration folder: {@code <pid>.cfg}, in the properties syntax of
 * {@link Properties} ({@code key = value} lines, {@code #} comments), as Felix FileInstall and Karaf
 * read them. The values are text; their types come from the pid's Metatype ({@link ConfigurablePid}).
 *
 * <p>{@link #with} changes keys and keeps every other line of the file as it was (comments, order,
 * keys it does not know), so a file a user wrote is edited, never replaced by a copy without their
 * keys. {@link #write} replaces the file whole or not at all (a temporary file in the same folder,
 * renamed over it), mode 0600.
 */
final class ConfigFile {
    /** The extension of a configuration file: the only files the folder's watcher takes. */
    static final String SUFFIX = ".cfg";
    private static final String HEADER = "# Written by hp:config; edit freely: hp:config keeps other lines as they are.";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final List<String> lines;

    private ConfigFile(List<String> lines) {
        this.lines = lines;
    }

    /** The file of {@code pid} in {@code folder}. */
    static Path of(Path folder, String pid) {
        return folder.resolve(pid + SUFFIX);
    }

    /** The pid a file is for: its name without {@value #SUFFIX}, or null for another kind of file. */
    static String pidOf(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(SUFFIX) && name.length() > SUFFIX.length()
                ? name.substring(0, name.length() - SUFFIX.length()) : null;
    }

    /** Reads a file; a missing one is empty. */
    static ConfigFile read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return new ConfigFile(new ArrayList<>(List.of(HEADER)));
        }
        return parse(Files.readString(file, StandardCharsets.ISO_8859_1));
    }

    static ConfigFile parse(String text) {
        return new ConfigFile(new ArrayList<>(text.lines().toList()));
    }

    /**
     * The keys and values, by key.
     *
     * @throws IllegalArgumentException for a line {@link Properties} cannot read (a malformed
     *                                  {@code \\uXXXX} escape), with its message
     */
    Map<String, String> values() {
        Properties p = new Properties();
        try {
            p.load(new StringReader(String.join("\n", lines)));
        } catch (IOException e) {
            throw new IllegalStateException("reading a string cannot fail", e);
        }
        Map<String, String> values = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
        return values;
    }

    /**
     * The file with {@code changes} made: a key's line is replaced where it is (its continuation
     * lines dropped), a new key is added at the end, every other line stays.
     */
    ConfigFile with(Map<String, String> changes) {
        Map<String, String> pending = new LinkedHashMap<>(changes);
        List<String> out = new ArrayList<>();
        boolean continued = false;
        boolean dropping = false;
        for (String line : lines) {
            boolean startsEntry = !continued;
            continued = endsInContinuation(line);
            if (startsEntry) {
                String key = keyOf(line);
                dropping = key != null && pending.containsKey(key);
                if (dropping) {
                    out.add(line(key, pending.remove(key)));
                    continue;
                }
            }
            if (!dropping || startsEntry) {
                out.add(line);
            }
        }
        pending.forEach((k, v) -> out.add(line(k, v)));
        return new ConfigFile(out);
    }

    String text() {
        return String.join("\n", lines) + "\n";
    }

    /** Writes the file whole or not at all, mode 0600 (where the file system has POSIX modes). */
    void write(Path file) throws IOException {
        Path folder = file.toAbsolutePath().getParent();
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        FileAttribute<?>[] attrs = posix ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                : new FileAttribute<?>[0];
        // Not *.cfg: the watcher never takes the temporary file for a configuration.
        Path tmp = Files.createTempFile(folder, "." + file.getFileName(), ".tmp", attrs);
        try {
            Files.writeString(tmp, text(), StandardCharsets.ISO_8859_1);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The key a logical line starts with, or null for a blank or comment line. */
    private static String keyOf(String line) {
        String t = line.stripLeading();
        if (t.isEmpty() || t.startsWith("#") || t.startsWith("!")) {
            return null;
        }
        Map<String, String> one = new ConfigFile(List.of(line.endsWith("\\") ? line + " " : line)).valuesOrEmpty();
        return one.isEmpty() ? null : one.keySet().iterator().next();
    }

    private Map<String, String> valuesOrEmpty() {
        try {
            return values();
        } catch (IllegalArgumentException e) {
            return Map.of();
        }
    }

    /** A line ending in an odd number of backslashes goes on in the next one. */
    private static boolean endsInContinuation(String line) {
        int n = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            n++;
        }
        return n % 2 == 1;
    }

    /** {@code key = value} with what {@link Properties} would misread escaped. */
    private static String line(String key, String value) {
        return escape(key, true) + " = " + escape(value, false);
    }

    private static final Map<Character, String> ESCAPES = Map.of('\\', "\\\\", '\n', "\\n", '\r', "\\r", '\t', "\\t");

    /** Backslashes and line breaks escaped; in a key (and at a value's start) what would end it, too. */
    private static String escape(String text, boolean key) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String escaped = ESCAPES.get(c);
            if (escaped != null) {
                b.append(escaped);
            } else if ("=:#! ".indexOf(c) >= 0 && (key || i == 0)) {
                b.append('\\').append(c);
            } else if (c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
