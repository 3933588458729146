package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Archives as anyone may hand them to hp:restore: the reader either extracts entries that are
 * exactly what the manifest says (size and checksum) into its private folder, or refuses the file
 * with its typed {@link ArchiveException} naming the file; the private folder is gone afterwards
 * either way. Anything else (another exception, a hang, running out of memory or disk) is a finding.
 * The rows' own Parquet is DuckDB's to read, past this reader, inside the restore's transaction.
 *
 * <p>In CI the inputs under {@code ArchiveFuzzTestInputs/} are replayed as ordinary tests; the README's
 * development section gives the command that fuzzes.
 */
class ArchiveFuzzTest {
    /** Small limits, so that a run never writes much: the checks are the same at any scale. */
    private static final ArchiveReader.Limits LIMITS = new ArchiveReader.Limits(1 << 22, 200, 1 << 16);

    private static Path file;

    @FuzzTest(maxDuration = "10m")
    void archiveFile(byte[] bytes) throws IOException {
        Path archive = file();
        Files.write(archive, bytes);
        Path extractedTo;
        try (PrivateFolder folder = PrivateFolder.make("hyperprof-restore-")) {
            extractedTo = folder.path();
            try {
                ArchiveReader.Extracted x = ArchiveReader.read(archive, folder, LIMITS);
                for (ArchiveManifest.Entry e : x.manifest().entries()) {
                    assertEquals(e.bytes(), Files.size(x.files().get(e.table())), "an entry is as long as it says");
                }
                assertTrue(x.manifest().entry("sessions") != null, "the session's row is there");
            } catch (ArchiveException e) {
                assertTrue(e.getMessage().startsWith("archive " + archive), "a refusal names the file");
                assertFalse(e.getMessage().contains("\n"), "a refusal is one line");
            }
        }
        assertFalse(Files.exists(extractedTo), "the private folder is deleted");
    }

    private static synchronized Path file() throws IOException {
        if (file == null) {
            file = Files.createTempFile("hyperprof-fuzz-", ".zip");
            file.toFile().deleteOnExit();
        }
        return file;
    }
}
