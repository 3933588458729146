package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the importer reads from an ELF file's headers: here, the separate debug file's name. */
class ElfImageTest {

    @TempDir
    Path dir;

    private Path splitProgram() throws Exception {
        assumeTrue(PerfTool.gccAvailable() && PerfTool.objcopyAvailable(), "gcc and objcopy are not installed");
        Path exe = PerfTool.compile(dir, "busy.c", "prog", "-g");
        PerfTool.splitDebug(exe, dir.resolve("prog.debug"));
        return exe;
    }

    @Test
    void aStrippedProgramNamesItsDebugFileWhichHasItsBuildIdAndItsSymbols() throws Exception {
        Path exe = splitProgram();
        ElfImage program = ElfImage.read(exe);
        ElfImage debug = ElfImage.read(dir.resolve("prog.debug"));
        assertEquals("prog.debug", program.debuglink);
        assertTrue(!program.hasSymtab && debug.hasSymtab);
        assertNotNull(program.buildId);
        assertEquals(program.buildId, debug.buildId);
        assertNull(debug.debuglink);
    }

    @Test
    void aProgramWithoutADebuglinkHasNone() throws Exception {
        Path plain = new TinyElf().function("work", 0x401100, 0x40, TinyElf.GLOBAL).write(dir.resolve("plain.so"));
        assertNull(ElfImage.read(plain).debuglink);
    }

    /**
     * Bytes of the section headers, the section names or the debuglink itself scribbled over: the
     * image is read or refused as not ELF, and a debuglink read is a plain file name or nothing.
     */
    @Test
    void scribbledSectionsNeverMakeTheReaderThrowAnythingElse() throws Exception {
        Path exe = splitProgram();
        byte[] original = Files.readAllBytes(exe);
        Random random = new Random(20261122);
        Path mutated = dir.resolve("mutated");
        int read = 0;
        for (int round = 0; round < 3000; round++) {
            byte[] b = original.clone();
            // Most mutations land in the last quarter: section contents, names and headers.
            for (int k = 0; k < 1 + random.nextInt(6); k++) {
                int at = original.length * 3 / 4 + random.nextInt(original.length / 4);
                b[at] = (byte) random.nextInt(256);
            }
            Files.write(mutated, b);
            try {
                ElfImage image = ElfImage.read(mutated);
                read++;
                if (image.debuglink != null) {
                    assertTrue(!image.debuglink.isEmpty() && image.debuglink.indexOf(0) < 0, image.debuglink);
                }
            } catch (ElfImage.NotElf e) {
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
            }
        }
        assertTrue(read > 1000, "most mutated images still read: " + read);
    }
}
