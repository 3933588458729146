package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resident framework as a user meets it: state carries from one call to the next, calls run side
 * by side and a Ctrl-C stops only its own, relative paths mean the caller's working folder, a new build (or HYPERPROF_RESIDENT=off) gets a fresh
 * framework, and the socket is reachable only by its user (folder 0700, socket 0600; a folder
 * open to others or owned by someone else is refused). Exit statuses, relayed output and signals
 * are checked for both modes by ExitStatusIT and InterruptIT.
 */
class ResidentIT {
    @TempDir
    Path dir;

    @AfterAll
    static void stopTheResidentFramework() throws Exception {
        LaunchMode.stopServer();
    }

    private Run run(Path launcher, Path workingDir, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return Run.of(launcher, workingDir, env, dir, args);
    }

    private Run run(LaunchMode mode, String... args) throws IOException, InterruptedException {
        return run(LaunchMode.launcher(), dir, mode.environment(), args);
    }

    @Test
    void stateCarriesFromOneCallToTheNextAndNotWhenTurnedOff() throws Exception {
        Run load = run(LaunchMode.RESIDENT, "hp:load");
        assertEquals(0, load.status(), load.err());
        Run state = run(LaunchMode.RESIDENT, "hp:state");
        assertEquals(0, state.status(), state.err());
        assertTrue(state.out().contains("xenoprof  state"), state.out());

        Run off = run(LaunchMode.IN_PROCESS, "hp:domain 0 state");
        assertEquals(1, off.status(), "a JVM of its own has no host loaded: " + off.out());
        assertTrue(off.err().contains("no host is loaded"), off.err());
    }

    @Test
    void concurrentCallsRunSideBySideAndACtrlCStopsOnlyItsOwn() throws Exception {
        try (Launcher longRun = Launcher.piped(LaunchMode.RESIDENT, "hp:profile --ms 3600000 --no-report")) {
            longRun.await("^profiling \\S+ for 3600000 ms simulated");
            Run other = run(LaunchMode.RESIDENT, "hp:version");
            assertEquals(0, other.status(), "a second call is not held up by the first: " + other.err());
            assertTrue(other.out().startsWith("hyperprof 0.1.0"), other.out());
            longRun.ctrlC();
            assertEquals(130, longRun.exitStatus(), longRun.transcript());
            longRun.await("^note: the run was stopped early on request");
        }
    }

    @Test
    void relativePathsMeanTheCallersWorkingFolder() throws Exception {
        Path here = Files.createDirectory(dir.resolve("here"));
        Run r = run(LaunchMode.launcher(), here, LaunchMode.RESIDENT.environment(), "hp:profile --ms 50 --no-report",
                "hp:export flamegraph folded stacks.folded");
        assertEquals(0, r.status(), r.err());
        assertTrue(Files.size(here.resolve("stacks.folded")) > 0, "the export is in the caller's folder");
        Run missing = run(LaunchMode.launcher(), here, LaunchMode.RESIDENT.environment(), "hp:import no.data");
        assertEquals(1, missing.status(), missing.err());
        assertTrue(missing.err().contains(here.resolve("no.data").toString()), missing.err());
        // A passive domain's kernel given as a symbol file (an entry that is no image of the domain).
        Files.writeString(here.resolve("guest.map"), "c0100000 T _stext\nc0100100 T schedule\n");
        String passive = "hp:profile --scenario xen-multi-domain --domains 0,1 --passive 2 --ms 50 --no-report"
                + " --passive-images ";
        Run symbolFile = run(LaunchMode.launcher(), here, LaunchMode.RESIDENT.environment(), passive + "guest.map");
        assertEquals(0, symbolFile.status(), symbolFile.err());
    }

    @Test
    void whatACommandStartsGetsTheCallersEnvironment() throws Exception {
        assumeTrue(perfRecords(), "perf is not installed (Debian's linux-perf) or may not record here");
        // A program only the caller's PATH has: hp:record's perf and the workload must find it.
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path work = Files.writeString(bin.resolve("hyperprof-it-work"),
                "#!/bin/sh\ni=0; while [ $i -lt 20000 ]; do i=$((i+1)); done\n");
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwx------"));
        // The framework runs already, started by a call without that folder in its PATH.
        assertEquals(0, run(LaunchMode.RESIDENT, "hp:version").status());
        Map<String, String> env = new HashMap<>(LaunchMode.RESIDENT.environment());
        env.put("PATH", bin + ":" + System.getenv("PATH"));
        Run r = run(LaunchMode.launcher(), dir, env, "hp:record -- hyperprof-it-work");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("samples taken"), r.out());
    }

    /** Whether perf can record here (installed, and kernel.perf_event_paranoid lets this user). */
    private boolean perfRecords() throws IOException, InterruptedException {
        try {
            Process p = new ProcessBuilder("perf", "record", "-q", "-e", "cpu-clock", "-o",
                    dir.resolve("probe.data").toString(), "true").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void theCallersStandardStreamsAreNotTheFrameworksAndSaySo() throws Exception {
        Run r = run(LaunchMode.RESIDENT, "hp:profile --ms 50 --no-report", "hp:export flamegraph folded /dev/stdout");
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("/dev/stdout is not yours in the resident framework"), r.err());
        assertTrue(r.err().contains("HYPERPROF_RESIDENT=off"), r.err());
    }

    @Test
    void theSocketIsTheUsersAloneInAFolderOfMode0700() throws Exception {
        Run r = run(LaunchMode.RESIDENT, "hp:version");
        assertEquals(0, r.status(), r.err());
        Path folder = LaunchMode.runDirectory();
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder,
                LinkOption.NOFOLLOW_LINKS)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder.resolve("socket"),
                LinkOption.NOFOLLOW_LINKS)));
    }

    @Test
    void aFolderOpenToOthersIsRefused() throws Exception {
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        Run r = run(LaunchMode.launcher(), dir, residentIn(open), "hp:version");
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().contains("refusing the resident framework's folder " + open), r.err());
        assertFalse(Files.exists(open.resolve("socket")), "no server was started there");
    }

    @Test
    void aFolderOfAnotherUserIsRefused() throws Exception {
        assumeTrue(Files.getAttribute(dir, "unix:uid").equals(0), "only root can give a folder to another user");
        Path foreign = Files.createDirectory(dir.resolve("foreign"));
        Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(foreign, "unix:uid", 65534);
        Run r = run(LaunchMode.launcher(), dir, residentIn(foreign), "hp:version");
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().contains("refusing the resident framework's folder " + foreign), r.err());
    }

    @Test
    void aNewBuildGetsAFreshFramework() throws Exception {
        // A launcher of its own (the script, its client and a copy of the jar), so that the test
        // can replace the build without touching the one the other tests run.
        Path install = Files.createDirectories(dir.resolve("launch/target"));
        Path launch = install.getParent();
        Path original = LaunchMode.launcher().getParent();
        for (String file : List.of("hyperprof", "resident.py")) {
            Files.copy(original.resolve(file), launch.resolve(file));
        }
        Path jar = Files.copy(original.resolve("target/hyperprof.jar"), install.resolve("hyperprof.jar"));
        Path runDir = Files.createDirectory(dir.resolve("run"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Map<String, String> env = residentIn(runDir);
        // A configuration folder with a space in its path reaches the framework as one option.
        Path config = dir.resolve("my config");
        env.put("HYPERPROF_CONFIG_DIR", config.toString());
        try {
            Run load = run(launch.resolve("hyperprof"), dir, env, "hp:load", "hp:config");
            assertEquals(0, load.status(), load.err());
            assertTrue(load.out().contains("configuration folder: " + config + " "), load.out());
            Run loaded = run(launch.resolve("hyperprof"), dir, env, "hp:domain 0 state");
            assertEquals(0, loaded.status(), "the same framework still has the host: " + loaded.err());

            Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 60_000));
            Run rebuilt = run(launch.resolve("hyperprof"), dir, env, "hp:domain 0 state");
            assertEquals(1, rebuilt.status(), "a fresh framework has no host: " + rebuilt.out());
            assertTrue(rebuilt.err().contains("no host is loaded"), rebuilt.err());
        } finally {
            run(launch.resolve("hyperprof"), dir, env, "--stop-server");
        }
        assertFalse(Files.exists(runDir.resolve("socket")), "--stop-server took the socket away");
    }

    private static Map<String, String> residentIn(Path runDir) {
        Map<String, String> env = new HashMap<>(LaunchMode.RESIDENT.environment());
        env.put("HYPERPROF_RUN_DIR", runDir.toString());
        return env;
    }
}
