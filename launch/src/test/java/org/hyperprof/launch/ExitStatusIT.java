package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The launcher's exit status, as a script or a CI job reads it: 0 when every command line ran, 1
 * when a command failed (the lines after it do not run unless --keep-going), 2 for a usage error
 * of a command line or of the launcher itself. The failed line is named on stderr; results alone
 * are on stdout, without banner or prompt. (Ctrl-C's 130 and SIGTERM's 143: InterruptIT.) Both
 * ways of running turn each outcome into its status: a run that succeeds, one that stops at a
 * failure (a script file), one that keeps going past a usage error and a failure, and the
 * launcher's own usage errors run in a JVM of their own and in the resident framework; how one
 * command's failure or usage error is told apart is the same code in both (the piped session),
 * so those cases run in the resident framework alone, where a call costs no JVM start.
 */
class ExitStatusIT {
    @TempDir
    Path dir;

    @AfterAll
    static void stopTheResidentFramework() throws Exception {
        LaunchMode.stopServer();
    }

    private Run run(LaunchMode mode, String... args) throws IOException, InterruptedException {
        return Run.of(LaunchMode.launcher(), dir, mode.environment(), dir, args);
    }

    /** The run ended with {@code status}, and stderr names the line that failed first. */
    private static void assertFailed(Run r, int status, String failedLine) {
        assertEquals(status, r.status(), r.err());
        assertTrue(r.err().contains(failedLine), "expected '" + failedLine + "' on stderr:\n" + r.err());
    }

    @ParameterizedTest
    @EnumSource(LaunchMode.class)
    void commandLinesThatAllRunExitZeroWithResultsOnStdoutAndNothingOnStderr(LaunchMode mode) throws Exception {
        Run r = run(mode, "hp:version", "hp:models");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().startsWith("hyperprof 0.1.0"), r.out());
        assertTrue(r.out().contains("i386/p6"), r.out());
        assertFalse(r.out().contains("g! "), "no prompt in piped mode: " + r.out());
        assertEquals("", r.err());
    }

    @Test
    void aFailedCommandExitsOneNamesItsLineOnStderrAndTheLinesAfterItDoNotRun() throws Exception {
        LaunchMode mode = LaunchMode.RESIDENT;
        Run r = run(mode, "hp:version", "hp:domain 7 pause", "hp:models");
        assertFailed(r, 1, "hyperprof: line 2 failed (exit 1): hp:domain 7 pause;");
        assertTrue(r.err().contains("hp:domain: no host is loaded"), r.err());
        assertFalse(r.out().contains("i386/p6"), "hp:models after the failure ran: " + r.out());
    }

    @Test
    void aPluginsCommandThatFailsExitsOneToo() throws Exception {
        LaunchMode mode = LaunchMode.RESIDENT;
        // hp:import and hp:record (the perf source) and hp:study live in their own bundles.
        Run r = run(mode, "hp:import /nonexistent/perf.data", "hp:version");
        assertFailed(r, 1, "hyperprof: line 1 failed (exit 1): hp:import /nonexistent/perf.data");
        assertTrue(r.err().contains("hp:import: "), r.err());
        assertFalse(r.out().contains("hyperprof 0.1.0"), "hp:version after the failure ran: " + r.out());
        assertFailed(run(mode, "hp:study --scenario no-such-scenario --ms 5"), 1, "hp:study --scenario no-such-scenario");
    }

    @Test
    void aPluginsCommandLineItCannotTakeIsAUsageErrorThatExitsTwoAsTheShellsOwnDo() throws Exception {
        // The one grammar: every bundle's commands parse by their table and fail through the API's CommandFailure.
        Run r = run(LaunchMode.RESIDENT, "hp:import /tmp/x.data --seconds 3");
        assertFailed(r, 2, "hyperprof: line 1 failed (exit 2): hp:import /tmp/x.data --seconds 3");
        assertTrue(r.err().contains("hp:import: --seconds is an option of hp:record, not of hp:import"), r.err());
        assertFailed(run(LaunchMode.RESIDENT, "hp:record"), 2, "hyperprof: line 1 failed (exit 2): hp:record");
        assertFailed(run(LaunchMode.RESIDENT, "hp:study --ms 0"), 2, "hyperprof: line 1 failed (exit 2): hp:study --ms 0");
        // An unknown policy name is refused before anything runs, like any other bad command line.
        assertFailed(run(LaunchMode.RESIDENT, "hp:study --policies lazy,bogus"), 2,
                "hyperprof: line 1 failed (exit 2): hp:study --policies lazy,bogus");
        Run help = run(LaunchMode.RESIDENT, "hp:commands import", "hp:import --help");
        assertEquals(0, help.status(), help.err());
        assertTrue(help.out().startsWith("hp:import is a command of bundle org.hyperprof.source.perf; hp:import"
                + " --help prints its usage and options\nusage: hp:import <perf.data>"), help.out());
    }

    @Test
    void anUnknownOptionOfACommandIsAUsageErrorThatExitsTwo() throws Exception {
        LaunchMode mode = LaunchMode.RESIDENT;
        Run r = run(mode, "hp:profile --bogus");
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().contains("hp:profile: unknown option '--bogus'"), r.err());
        assertTrue(r.err().contains("usage: hp:profile"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void anUnknownCommandIsAUsageErrorThatExitsTwo() throws Exception {
        LaunchMode mode = LaunchMode.RESIDENT;
        assertFailed(run(mode, "hp:nosuch"), 2,
                "hyperprof: line 1 failed (exit 2): hp:nosuch (Command not found: hp:nosuch)");
    }

    @ParameterizedTest
    @EnumSource(LaunchMode.class)
    void keepGoingRunsEveryLineAndExitsWithTheFirstFailuresStatus(LaunchMode mode) throws Exception {
        Run r = run(mode, "--keep-going", "hp:run", "hp:domain 7 pause", "hp:version");
        assertFailed(r, 2, "hyperprof: line 1 failed (exit 2): hp:run\n");
        assertTrue(r.out().startsWith("hyperprof 0.1.0"), r.out());
        assertTrue(r.err().contains("hyperprof: line 2 failed (exit 1): hp:domain 7 pause\n"), r.err());
    }

    @ParameterizedTest
    @EnumSource(LaunchMode.class)
    void aScriptFileRunsLineByLineSkippingCommentsAndStopsAtItsFirstFailure(LaunchMode mode) throws Exception {
        Path script = Files.writeString(dir.resolve("script.gogo"),
                "# list the models, then fail\nhp:version\n\nhp:domain 7 pause\nhp:models\n");
        Run r = run(mode, "-f", script.toString());
        assertFailed(r, 1, "hyperprof: line 4 failed (exit 1): hp:domain 7 pause;");
        assertTrue(r.out().startsWith("hyperprof 0.1.0"), r.out());
        assertFalse(r.out().contains("i386/p6"), r.out());
    }

    @Test
    void versionPrintsOneLineAndExitsZero() throws Exception {
        LaunchMode mode = LaunchMode.RESIDENT;
        Run r = run(mode, "--version");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().matches("hyperprof 0\\.1\\.0\\S* \\(org\\.apache\\.felix\\.framework \\S+, Java \\S+\\)\n"),
                r.out());
    }

    @ParameterizedTest
    @EnumSource(LaunchMode.class)
    void theLaunchersOwnUsageErrorsExitTwo(LaunchMode mode) throws Exception {
        assertFailed(run(mode, "--bogus"), 2, "hyperprof: unknown option --bogus");
        assertFailed(run(mode, "-f", dir.resolve("missing.gogo").toString()), 2, "missing.gogo: not a readable file");
    }

    /** Whether {@code text} is one JSON value, as Python's json module (not ours) reads it. */
    private static String parsedJson(String text, String path) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "-c", "import json,sys; d=json.load(sys.stdin); print(" + path + ")")
                .redirectErrorStream(true).start();
        p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String answer = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.waitFor(), "not JSON: " + answer + "\n" + text);
        return answer;
    }

    @Test
    void aScriptReadsListingsAndReportsAsJsonFromStdoutAlone() throws Exception {
        // A JVM of its own: the profile loads a host, which a resident framework would keep for the other tests.
        Run models = run(LaunchMode.RESIDENT, "hp:models --format json");
        assertEquals(0, models.status(), models.err());
        assertTrue(parsedJson(models.out(), "[m['cpu.type'] for m in d]").contains("'i386/p6'"), models.out());
        Run profile = run(LaunchMode.IN_PROCESS, "hp:profile --ms 20 format=json");
        assertEquals(0, profile.status(), profile.err());
        assertEquals("True", parsedJson(profile.out(), "d['books']['balanced'] and len(d['rows']) > 0"),
                profile.out());
        assertTrue(profile.err().contains("samples taken"), "the accounting lines went to stderr: " + profile.err());
    }
}
