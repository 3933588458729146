package org.hyperprof.store.duckdb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/** Archives edited as an attacker or a bad disk would: entries added, dropped, changed, renamed. */
final class TestArchives {
    private TestArchives() {
    }

    /** The archive's entries, edited, written to {@code to}. */
    static Path rewrite(Path from, Path to, Consumer<Map<String, byte[]>> edit) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipFile zip = new ZipFile(from.toFile())) {
            Enumeration<? extends ZipEntry> all = zip.entries();
            while (all.hasMoreElements()) {
                ZipEntry e = all.nextElement();
                try (InputStream in = zip.getInputStream(e)) {
                    entries.put(e.getName(), in.readAllBytes());
                }
            }
        }
        edit.accept(entries);
        write(to, entries);
        return to;
    }

    static void write(Path to, Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (var e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
        Files.write(to, bytes.toByteArray());
    }

    /** The manifest with {@code text} replaced. */
    static void manifest(Map<String, byte[]> entries, String text, String replacement) {
        String m = new String(entries.get(ArchiveManifest.NAME), StandardCharsets.UTF_8);
        entries.put(ArchiveManifest.NAME, m.replace(text, replacement).getBytes(StandardCharsets.UTF_8));
    }

    /** A table dropped: its entry and its lines in the manifest. */
    static void dropTable(Map<String, byte[]> entries, String table) {
        entries.remove(table + ".parquet");
        String m = new String(entries.get(ArchiveManifest.NAME), StandardCharsets.UTF_8);
        m = m.replaceAll("(?m)^table\\." + table + "\\..*\n", "");
        m = m.replaceAll("(?m)^tables=(.*)$", "tables=,$1,").replace("," + table + ",", ",")
                .replaceAll("(?m)^tables=,(.*),$", "tables=$1");
        entries.put(ArchiveManifest.NAME, m.getBytes(StandardCharsets.UTF_8));
    }

    /** An entry's bytes replaced, its size and checksum in the manifest made to match. */
    static void replaceEntry(Map<String, byte[]> entries, String name, byte[] bytes) {
        String table = name.substring(0, name.length() - ".parquet".length());
        String m = new String(entries.get(ArchiveManifest.NAME), StandardCharsets.UTF_8);
        String sha = HexFormat.of().formatHex(ArchiveReader.sha256().digest(bytes));
        m = m.replaceAll("table\\." + table + "\\.bytes=\\d+", "table." + table + ".bytes=" + bytes.length)
                .replaceAll("table\\." + table + "\\.sha256=\\p{XDigit}+", "table." + table + ".sha256=" + sha);
        entries.put(ArchiveManifest.NAME, m.getBytes(StandardCharsets.UTF_8));
        entries.put(name, bytes);
    }

    /** The archive with one byte of the entry's stored (compressed) data flipped, {@code at} bytes into it. */
    static byte[] garble(byte[] zip, String entry, int at) {
        byte[] name = entry.getBytes(StandardCharsets.US_ASCII);
        for (int i = 30; i + name.length <= zip.length; i++) {
            // The local header (signature PK\3\4) comes 30 bytes before its name.
            if (zip[i - 30] == 'P' && zip[i - 29] == 'K' && zip[i - 28] == 3 && zip[i - 27] == 4
                    && Arrays.equals(zip, i, i + name.length, name, 0, name.length)) {
                int extra = (zip[i - 2] & 0xff) | (zip[i - 1] & 0xff) << 8;
                byte[] out = zip.clone();
                out[i + name.length + extra + at] ^= (byte) 0x5a;
                return out;
            }
        }
        throw new IllegalArgumentException("no local header of " + entry);
    }

    /** Every occurrence of {@code a} replaced by {@code b}, of the same length. */
    static byte[] replace(byte[] bytes, String a, String b) {
        byte[] x = a.getBytes(StandardCharsets.US_ASCII);
        byte[] y = b.getBytes(StandardCharsets.US_ASCII);
        byte[] out = bytes.clone();
        for (int i = 0; i + x.length <= out.length; i++) {
            if (Arrays.equals(out, i, i + x.length, x, 0, x.length)) {
                System.arraycopy(y, 0, out, i, y.length);
            }
        }
        return out;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
