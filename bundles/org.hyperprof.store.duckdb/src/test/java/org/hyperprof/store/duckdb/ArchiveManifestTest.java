package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

class ArchiveManifestTest {
    private static final Path FILE = Path.of("/tmp/s.zip");
    private static final String SHA = "0123456789abcdef".repeat(4);

    private static ArchiveManifest manifest(String host) {
        return new ArchiveManifest(1, 2, "0.1.0", 42, host, Instant.parse("2026-11-28T00:30:00Z"),
                List.of(new ArchiveManifest.Entry("sessions", 1, 900, SHA), new ArchiveManifest.Entry("samples", 3,
                        1200, SHA)));
    }

    @Test
    void aManifestReadsBackAsWrittenWhateverItsHostIsCalled() throws Exception {
        for (String host : List.of("vm", "a=b:c", "back\\slash", "line\nbreak", "h\u00f6st", " spaced ")) {
            assertEquals(manifest(host), ArchiveManifest.parse(manifest(host).bytes(), FILE), host);
        }
    }

    @Test
    void aKeyItDoesNotKnowIsRefusedAndALongValueIsShownShort() {
        String text = new String(manifest("vm").bytes(), StandardCharsets.UTF_8);
        ArchiveException e = assertThrows(ArchiveException.class, () -> ArchiveManifest.parse((text
                + "table.truth.rows=1\n").getBytes(StandardCharsets.UTF_8), FILE));
        assertEquals("archive /tmp/s.zip, entry manifest.properties: unknown key table.truth.rows (format 1 has none"
                + " such)", e.getMessage());
        e = assertThrows(ArchiveException.class, () -> ArchiveManifest.parse(text.replace("session=42", "session="
                + "9".repeat(500)).getBytes(StandardCharsets.UTF_8), FILE));
        assertTrue(e.getMessage().contains("session is '" + "9".repeat(80) + "...', not a whole number from 1 to "),
                e.getMessage());
        e = assertThrows(ArchiveException.class, () -> ArchiveManifest.parse(new byte[] {(byte) 0xff, 'a'}, FILE));
        assertTrue(e.getMessage().endsWith("it is not UTF-8 text; the archive is damaged, make it again with"
                + " hp:archive"), e.getMessage());
    }
}
