package org.hyperprof.shell.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outside a Gogo command a typed name means this process's working folder; inside one, the
 * session's (the resident framework's client's: launch/src/test ResidentIT runs that end to end).
 */
class WorkingFolderTest {
    private static final Path HERE = Path.of("").toAbsolutePath();

    @TempDir
    Path dir;

    @Test
    void aRelativeNameIsTakenInTheWorkingFolderAndTildeIsHome() {
        assertEquals(HERE.resolve("k.svg"), WorkingFolder.resolve("k.svg"));
        assertEquals(Path.of("/tmp/k.svg"), WorkingFolder.resolve("/tmp/k.svg"));
        assertEquals(Path.of(System.getProperty("user.home"), "k.svg"), WorkingFolder.resolve("~/k.svg"));
        assertEquals(HERE, WorkingFolder.resolve(""));
    }

    @Test
    void aNameThatIsNoFileNameIsRefusedWithWhy() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WorkingFolder.resolve("a\0b"));
        assertEquals("'a\0b' is not a file name this system accepts: Nul character not allowed", e.getMessage());
    }

    @Test
    void anEmbeddedNameStaysAnExistingFileIsResolvedAndAMissingOneIsQuotedAsTyped() throws Exception {
        Path file = Files.writeString(dir.resolve("my.scenario"), "");
        assertEquals("default", WorkingFolder.nameOrFile("default", List.of("default")));
        assertEquals(file.toString(), WorkingFolder.nameOrFile(file.toString(), List.of("default")));
        assertEquals("missing.scenario", WorkingFolder.nameOrFile("missing.scenario", List.of("default")));
        assertNull(WorkingFolder.nameOrFile(null, List.of("default")));
    }

    @Test
    void onlyTheNamedFileOptionsAreResolved() {
        assertEquals(List.of("--start-daemon", "--xen=" + HERE.resolve("xen-syms"), "--vmlinux=/boot/vmlinux",
                "--image=rel"), WorkingFolder.resolveOptions(List.of("--start-daemon", "--xen=xen-syms",
                        "--vmlinux=/boot/vmlinux", "--image=rel"), "--xen=", "--vmlinux="));
    }
}
