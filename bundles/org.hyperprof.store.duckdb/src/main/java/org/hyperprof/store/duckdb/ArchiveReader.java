package org.hyperprof.store.duckdb;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * Reads an archive, outside input, into a private folder: every entry named, sized and checked
 * against the manifest before the store sees a byte of it. Refused, each with an
 * {@link ArchiveException} naming the file and the entry: a file that is no zip or a damaged one, a
 * name leading out of the archive (zip-slip: {@code ..}, an absolute path, a backslash), an entry given
 * twice, one the manifest does not list or one it lists that is missing, an entry longer or shorter
 * than the manifest says, a checksum that differs, and a size bomb (more than {@link Limits#bytes}
 * uncompressed in all, or an entry expanding more than {@link Limits#ratio} times).
 */
final class ArchiveReader {
    /** The manifest is small: a few hundred bytes per table. */
    static final int MANIFEST_BYTES = 1 << 20;
    /** A format-1 archive has one entry per table and the manifest; more is no archive of ours. */
    static final int MAX_ENTRIES = 256;
    /**
     * Parquet's run-length encoding can pack a billion equal rows in a few kilobytes; a session's rows
     * (distinct keys, names) never come to more than this many per byte beyond {@link #MANY_ROWS}.
     */
    static final long ROWS_PER_BYTE = 10;
    static final long MANY_ROWS = 1_000_000;

    /**
     * How much an archive may expand.
     *
     * @param bytes      the most its entries may hold uncompressed, in all
     * @param ratio      the most an entry, or the whole file, may expand (uncompressed / compressed size) ...
     * @param ratioFloor ... once it is at least this many bytes (a tiny entry of zeros compresses far)
     */
    record Limits(long bytes, long ratio, long ratioFloor) {
        /** 16 GiB in all; an entry expanding more than 200 times beyond 1 MiB (Parquet is compressed already). */
        static final Limits DEFAULT = new Limits(16L << 30, 200, 1 << 20);
    }

    /** What an archive holds, its entries extracted: each table's Parquet file in the private folder. */
    record Extracted(ArchiveManifest manifest, Map<String, Path> files) {
    }

    private ArchiveReader() {
    }

    /** Reads {@code archive} into {@code folder} (private, made by the caller, deleted by it). */
    static Extracted read(Path archive, PrivateFolder folder, Limits limits) throws ArchiveException {
        try (ZipFile zip = new ZipFile(archive.toFile())) {
            Map<String, ZipEntry> entries = entries(archive, zip);
            ZipEntry m = entries.get(ArchiveManifest.NAME);
            if (m == null) {
                throw new ArchiveException(archive, ArchiveException.WHOLE, "it has no " + ArchiveManifest.NAME
                        + ": it is no Hyperprof archive (hp:archive makes them)");
            }
            ArchiveManifest manifest = ArchiveManifest.parse(manifestBytes(archive, zip, m), archive);
            for (String name : entries.keySet()) {
                if (!name.equals(ArchiveManifest.NAME) && !listed(manifest, name)) {
                    throw new ArchiveException(archive, printable(name), "an entry the manifest does not list; an archive holds"
                            + " the manifest and one <table>.parquet per table it lists, nothing else");
                }
            }
            // The zip's own compressed sizes can lie; the file's size cannot.
            long expandsTo = Math.max(limits.ratioFloor(), limits.ratio() * Files.size(archive));
            long total = 0;
            for (ArchiveManifest.Entry e : manifest.entries()) {
                ZipEntry z = entries.get(e.name());
                if (z == null) {
                    throw new ArchiveException(archive, e.name(), "missing: the manifest lists table " + e.table()
                            + " with " + e.rows() + " rows; the archive is incomplete, make it again with hp:archive");
                }
                total += e.bytes();
                if (total < 0 || total > limits.bytes()) {
                    throw new ArchiveException(archive, e.name(), "the manifest declares more than " + limits.bytes()
                            + " bytes uncompressed in all, the limit of a restore (a size bomb?)");
                }
                if (total > expandsTo) {
                    throw new ArchiveException(archive, e.name(), "the manifest declares more than " + expandsTo
                            + " bytes uncompressed from a file of " + Files.size(archive) + " bytes, more than "
                            + limits.ratio() + " times: refused as a size bomb (Parquet barely compresses)");
                }
                checkSizes(archive, e, z, limits);
                if (e.rows() > Math.max(MANY_ROWS, ROWS_PER_BYTE * e.bytes())) {
                    throw new ArchiveException(archive, e.name(), e.rows() + " rows in " + e.bytes() + " bytes: no"
                            + " session's rows compress so far; refused as a size bomb");
                }
            }
            Map<String, Path> files = new LinkedHashMap<>();
            for (ArchiveManifest.Entry e : manifest.entries()) {
                files.put(e.table(), extract(archive, zip, entries.get(e.name()), e, folder));
            }
            return new Extracted(manifest, files);
        } catch (NoSuchFileException e) {
            throw new ArchiveException(archive, ArchiveException.WHOLE, "no such file");
        } catch (AccessDeniedException e) {
            throw new ArchiveException(archive, ArchiveException.WHOLE, "cannot be read: permission denied");
        } catch (ZipException | IllegalArgumentException e) {
            // ZipFile refuses a name that is no UTF-8 with an IllegalArgumentException.
            throw new ArchiveException(archive, ArchiveException.WHOLE, ArchiveException.NO_OFFSET,
                    "it is no zip file or a damaged one (" + e.getMessage() + "); make it again with hp:archive", e);
        } catch (IOException e) {
            throw new ArchiveException(archive, ArchiveException.WHOLE, ArchiveException.NO_OFFSET,
                    "cannot be read: " + e.getMessage(), e);
        }
    }

    /** The entries by name, each name checked: none leads out of the archive, none comes twice. */
    private static Map<String, ZipEntry> entries(Path archive, ZipFile zip) throws ArchiveException {
        Map<String, ZipEntry> out = new LinkedHashMap<>();
        Enumeration<? extends ZipEntry> all = zip.entries();
        while (all.hasMoreElements()) {
            ZipEntry z = all.nextElement();
            String name = z.getName();
            String unsafe = unsafe(name);
            if (unsafe != null) {
                throw new ArchiveException(archive, printable(name), "a name that " + unsafe + " (zip-slip); the"
                        + " archive is refused whole: hp:archive never writes such names, so it is no archive of"
                        + " Hyperprof's or was tampered with");
            }
            if (out.put(name, z) != null) {
                throw new ArchiveException(archive, printable(name), "given twice; an archive names each entry once (it was"
                        + " tampered with, or written by something other than hp:archive)");
            }
            if (out.size() > MAX_ENTRIES) {
                throw new ArchiveException(archive, ArchiveException.WHOLE, "more than " + MAX_ENTRIES
                        + " entries: no archive of Hyperprof's has that many tables");
            }
        }
        return out;
    }

    /** Why an entry's name is refused, or null: only plain names in the archive's top level are taken. */
    static String unsafe(String name) {
        if (name.isEmpty()) {
            return "is empty";
        }
        if (name.indexOf('\\') >= 0) {
            return "has a backslash";
        }
        if (name.startsWith("/") || name.matches("^[A-Za-z]:.*")) {
            return "is absolute";
        }
        for (String part : name.split("/", -1)) {
            if (part.equals("..")) {
                return "climbs out with '..'";
            }
        }
        if (name.contains("/")) {
            return "is in a folder";
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                return "has a control character";
            }
        }
        return null;
    }

    private static String printable(String name) {
        StringBuilder b = new StringBuilder();
        name.codePoints().limit(200).forEach(c -> {
            if (Character.isISOControl(c)) {
                b.append(String.format("\\x%02x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    private static boolean listed(ArchiveManifest manifest, String name) {
        return manifest.entries().stream().anyMatch(e -> e.name().equals(name));
    }

    private static byte[] manifestBytes(Path archive, ZipFile zip, ZipEntry m) throws ArchiveException, IOException {
        try (InputStream in = zip.getInputStream(m)) {
            byte[] bytes = in.readNBytes(MANIFEST_BYTES + 1);
            if (bytes.length > MANIFEST_BYTES) {
                throw new ArchiveException(archive, ArchiveManifest.NAME, MANIFEST_BYTES, "longer than "
                        + MANIFEST_BYTES + " bytes: no manifest is that long (a size bomb?)", null);
            }
            return bytes;
        } catch (ZipException e) {
            throw new ArchiveException(archive, ArchiveManifest.NAME, ArchiveException.NO_OFFSET, "damaged ("
                    + e.getMessage() + "); make the archive again with hp:archive", e);
        }
    }

    /** The zip's own sizes against the manifest's, and the expansion against the limits, before extracting. */
    private static void checkSizes(Path archive, ArchiveManifest.Entry e, ZipEntry z, Limits limits)
            throws ArchiveException {
        if (z.getSize() >= 0 && z.getSize() != e.bytes()) {
            throw new ArchiveException(archive, e.name(), "the zip says it holds " + z.getSize() + " bytes and the"
                    + " manifest " + e.bytes() + "; the archive was tampered with or damaged, make it again");
        }
        long compressed = z.getCompressedSize();
        if (e.bytes() >= limits.ratioFloor() && compressed >= 0
                && e.bytes() / Math.max(1, compressed) > limits.ratio()) {
            throw new ArchiveException(archive, e.name(), e.bytes() + " bytes compressed into " + compressed
                    + ", more than " + limits.ratio() + " times: refused as a size bomb (Parquet barely compresses)");
        }
    }

    /** Copies the entry into the folder, at most the bytes the manifest says, checking its SHA-256. */
    private static Path extract(Path archive, ZipFile zip, ZipEntry z, ArchiveManifest.Entry e, PrivateFolder folder)
            throws ArchiveException, IOException {
        Path file = folder.file(e.name());
        MessageDigest sha = sha256();
        byte[] buffer = new byte[1 << 16];
        long at = 0;
        try (InputStream in = zip.getInputStream(z);
                OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW)) {
            while (true) {
                int want = (int) Math.min(buffer.length, e.bytes() + 1 - at);
                int n = in.read(buffer, 0, want);
                if (n < 0) {
                    break;
                }
                if (at + n > e.bytes()) {
                    throw new ArchiveException(archive, e.name(), e.bytes(), "longer than the " + e.bytes() + " bytes"
                            + " the manifest says; the archive was tampered with, make it again with hp:archive", null);
                }
                sha.update(buffer, 0, n);
                out.write(buffer, 0, n);
                at += n;
            }
        } catch (ZipException | EOFException x) {
            throw new ArchiveException(archive, e.name(), at, "damaged (" + x.getMessage() + "); make the archive"
                    + " again with hp:archive, or copy it again if it came over a network", x);
        }
        if (at != e.bytes()) {
            throw new ArchiveException(archive, e.name(), at, "ends after " + at + " bytes, and the manifest says "
                    + e.bytes() + "; the archive is truncated or damaged, make it again with hp:archive", null);
        }
        String got = HexFormat.of().formatHex(sha.digest());
        if (!got.equals(e.sha256())) {
            throw new ArchiveException(archive, e.name(), "its SHA-256 is " + got + " and the manifest says "
                    + e.sha256() + ": it was damaged on the way (copy it again) or tampered with");
        }
        return file;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }
}
