package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configuration that lasts: the folder HYPERPROF_CONFIG_DIR names is created (owner only), a change
 * made with hp:config is still in force at the next start, a line put in a file there between two
 * starts is applied before the first command line, and a bad file is refused in one line naming it,
 * the others applied. (Two starts: each costs a JVM.) The folder's path has a space in it.
 */
class ConfigFolderIT {
    private static final String PROFILER = "org.hyperprof.profiler";

    @TempDir
    Path dir;

    /** Runs the command lines with the configuration folder {@code dir/config}; what they printed, both streams. */
    private String run(String... lines) throws Exception {
        try (Launcher l = Launcher.piped(Map.of("HYPERPROF_CONFIG_DIR", dir.resolve("my config").toString()), lines)) {
            int status = l.exitStatus();
            assertEquals(0, status, l.transcript());
            return l.transcript();
        }
    }

    @Test
    void aChangeMadeWithHpConfigAndFilesPutInTheFolderAreAppliedAtTheNextStartABadOneRefusedByName()
            throws Exception {
        run("hp:config " + PROFILER + " batch.size=321");
        Path folder = dir.resolve("my config");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        Path profiler = folder.resolve(PROFILER + ".cfg");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(profiler)));

        // Between two starts, a line added by hand and a file with a bad value.
        Files.writeString(profiler, "session.end.timeout.seconds = 7\n", StandardOpenOption.APPEND);
        Files.writeString(folder.resolve("org.hyperprof.symbols.elf.cfg"), "max.read.mb = huge\n");
        String next = run("hp:config " + PROFILER + " --format csv", "hp:config");
        assertTrue(next.contains("batch.size,Integer,4096,321," + PROFILER + ".cfg,"), next);
        assertTrue(next.contains("session.end.timeout.seconds,Integer,10,7," + PROFILER + ".cfg,"), next);
        assertTrue(next.contains("configuration file " + folder.resolve("org.hyperprof.symbols.elf.cfg")
                + " not applied: max.read.mb=huge: not a Long"), next);
        assertFalse(next.contains("\tat "), next);
        assertTrue(next.contains("org.hyperprof.symbols.elf.cfg (not applied: max.read.mb=huge: not a Long)"), next);
    }
}
