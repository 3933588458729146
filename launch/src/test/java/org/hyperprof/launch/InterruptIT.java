package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Ctrl-C and SIGTERM against the exported launcher, as a user sends them: a long run stops at its
 * next step, its books (taken = delivered + lost + dropped + invalid) are printed with the samples
 * taken, and then a piped session exits 130 (143 for SIGTERM) while the interactive shell goes back
 * to its prompt. Each test waits for the line the launcher prints once the run is under way before
 * it sends the signal; a run of one simulated hour cannot end on its own within a test. Piped, the
 * same in a JVM of its own and in the resident framework (whose client passes the signal on).
 */
class InterruptIT {
    /** Gogo's prompt, which the first line a command prints follows. */
    private static final String PROMPT = "^(?:g! )*";
    /** Printed once hp:profile listens for stop requests, before its run starts. */
    private static final String PROFILING = PROMPT + "profiling \\S+ for 3600000 ms simulated";
    /** The session's books; groups: taken, delivered, lost, dropped, invalid. */
    private static final String BOOKS = PROMPT + "session \\d+: samples taken (\\d+) = delivered (\\d+)"
            + " \\+ lost (\\d+) \\+ dropped (\\d+) \\+ invalid (\\d+)$";
    private static final String STOPPED_EARLY = PROMPT + "note: the run was stopped early on request after"
            + " \\d+\\.\\d{3} of 3600000 ms simulated; the samples taken until then are kept and counted$";

    private static void assertBalanced(Matcher books) {
        long taken = Long.parseLong(books.group(1));
        long accounted = 0;
        for (int g = 2; g <= 5; g++) {
            accounted += Long.parseLong(books.group(g));
        }
        assertEquals(taken, accounted, "taken = delivered + lost + dropped + invalid: " + books.group());
    }

    private static void assertNoStackTrace(Launcher l) {
        assertFalse(l.transcript().matches("(?s).*(Exception|\\n\\s+at [a-z]).*"), l.transcript());
    }

    @AfterAll
    static void stopTheResidentFramework() throws Exception {
        LaunchMode.stopServer();
    }

    @ParameterizedTest
    @EnumSource(LaunchMode.class)
    void pipedCtrlCStopsTheProfilePrintsItsBooksSkipsTheRestAndExits130(LaunchMode mode) throws Exception {
        try (Launcher l = Launcher.piped(mode, "hp:profile --ms 3600000 --no-report", "hp:state")) {
            l.await(PROFILING);
            l.ctrlC();
            assertEquals(130, l.exitStatus(), l.transcript());
            assertBalanced(l.await(BOOKS));
            l.await(STOPPED_EARLY);
            l.await(PROMPT + "hyperprof: Ctrl-C: stopping hp:profile at its next step; the samples taken are kept"
                    + " and its books printed, then hyperprof exits \\(130\\)$");
            assertFalse(l.transcript().contains("xenoprof  state"), "the command lines after it do not run");
            assertNoStackTrace(l);
        }
    }

    @ParameterizedTest
    @EnumSource(LaunchMode.class)
    void sigtermToTheScriptStopsTheProfilePrintsItsBooksAndExits143(LaunchMode mode) throws Exception {
        try (Launcher l = Launcher.piped(mode, "hp:profile --ms 3600000 --no-report")) {
            l.await(PROFILING);
            l.terminate();
            assertEquals(143, l.exitStatus(), l.transcript());
            assertBalanced(l.await(BOOKS));
            l.await(STOPPED_EARLY);
            assertNoStackTrace(l);
        }
    }

    @Test
    void interactiveCtrlCStopsTheProfileAndThePromptTakesTheNextCommand() throws Exception {
        try (Launcher l = Launcher.interactive()) {
            l.type("hp:profile --ms 3600000 --no-report");
            l.await(PROFILING);
            l.ctrlC();
            assertBalanced(l.await(BOOKS));
            l.await(STOPPED_EARLY);
            int before = l.lineCount();
            l.type("hp:state");
            l.await(java.util.regex.Pattern.compile(PROMPT + "xenoprof  state "), before);
            l.endInput();
            // The end of its input leaves the shell: the framework stops and launch/hyperprof -i exits 0, not 130.
            assertEquals(0, l.exitStatus(), l.transcript());
            assertTrue(l.transcript().contains("gosh: stopping shell and framework"), l.transcript());
            assertNoStackTrace(l);
        }
    }
}
