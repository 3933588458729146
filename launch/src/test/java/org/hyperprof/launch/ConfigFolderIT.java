package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configuration that lasts: the folder HYPERPROF_CONFIG_DIR names is created (owner only), a file put
 * there before the start is applied before the first command line, a change made with hp:config is
 * still in force at the next start, and a bad file is refused in one line naming it, the others applied.
 */
class ConfigFolderIT {
    private static final String PROFILER = "org.hyperprof.profiler";

    @TempDir
    Path dir;

    /** Runs the command lines with the configuration folder {@code dir/config}; what they printed, both streams. */
    private String run(String... lines) throws Exception {
        try (Launcher l = Launcher.piped(Map.of("HYPERPROF_CONFIG_DIR", dir.resolve("config").toString()), lines)) {
            int status = l.exitStatus();
            assertEquals(0, status, l.transcript());
            return l.transcript();
        }
    }

    @Test
    void aChangeMadeWithHpConfigIsInForceAtTheNextStart() throws Exception {
        run("hp:config " + PROFILER + " batch.size=321");
        Path folder = dir.resolve("config");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                folder.resolve(PROFILER + ".cfg"))));

        String second = run("hp:config " + PROFILER + " --format csv");
        assertTrue(second.contains("batch.size,Integer,4096,321," + PROFILER + ".cfg,"), second);
    }

    @Test
    void aFileInTheFolderIsAppliedAtStartAndABadOneIsRefusedByNameWithoutAStackTrace() throws Exception {
        Path folder = dir.resolve("config");
        Files.createDirectories(folder);
        Files.writeString(folder.resolve(PROFILER + ".cfg"), "session.end.timeout.seconds = 7\n");
        Files.writeString(folder.resolve("org.hyperprof.symbols.elf.cfg"), "max.read.mb = huge\n");
        String out = run("hp:config " + PROFILER + " --format csv", "hp:config");
        assertTrue(out.contains("session.end.timeout.seconds,Integer,10,7," + PROFILER + ".cfg,"), out);
        assertTrue(out.contains("configuration file " + folder.resolve("org.hyperprof.symbols.elf.cfg")
                + " not applied: max.read.mb=huge: not a Long"), out);
        assertFalse(out.contains("\tat "), out);
        assertTrue(out.contains("org.hyperprof.symbols.elf.cfg (not applied: max.read.mb=huge: not a Long)"), out);
    }
}
