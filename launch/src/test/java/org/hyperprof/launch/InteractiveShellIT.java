package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code launch/hyperprof -i} on a terminal (tmux), as a user types at it: commands run and print,
 * Tab completes command names, options, scenario and event names, the history outlives the shell
 * (the up arrow after a restart brings back the last line), a failed command says why once, Ctrl-C
 * stops a long run and the prompt comes back, and {@code exit} and Ctrl-D leave with status 0.
 */
class InteractiveShellIT {
    /** Gogo's prompt at the start of a line, with nothing typed after it yet. */
    private static final String EMPTY_PROMPT = "g! \\s*(\\d\\d:\\d\\d:\\d\\d)?";

    @TempDir
    Path home;

    @BeforeAll
    static void tmuxIsThere() {
        assumeTrue(Tmux.installed(), "tmux is not installed: the interactive shell's tests need a terminal (apt-get"
                + " install tmux; .ci/run installs it)");
    }

    /** The line being edited, without the prompt and the clock Gogo shows at the right. */
    private static String edited(String cursorLine) {
        return cursorLine.replaceFirst("^g! ", "").replaceFirst("\\s+\\d\\d:\\d\\d:\\d\\d$", "");
    }

    @Test
    void tabCompletesCommandsOptionsScenariosAndEventsAndCommandsRun() throws Exception {
        try (Tmux t = Tmux.interactive(home)) {
            t.awaitCursorLine(EMPTY_PROMPT);
            t.type("hp:pro");
            t.keys("Tab");
            assertEquals("hp:profile", edited(t.awaitCursorLine("g! hp:profile .*")).strip());
            t.type("--ev");
            t.keys("Tab");
            t.awaitCursorLine("g! hp:profile --event .*");
            t.keys("C-u");
            t.type("hp:load xen-summit-2006-n");
            t.keys("Tab");
            t.awaitCursorLine("g! hp:load xen-summit-2006-network .*");
            t.keys("Enter");
            t.await("^  dom1 +domU-rcv");
            t.awaitCursorLine(EMPTY_PROMPT);
            // The loaded host's CPU model (the P6) lists CPU_CLK_UNHALTED; its own event names are offered.
            t.type("hp:profile --event CPU_CLK");
            t.keys("Tab");
            t.awaitCursorLine("g! hp:profile --event CPU_CLK_UNHALTED .*");
            t.keys("C-u");
            t.type("hp:version");
            t.keys("Enter");
            t.await("^hyperprof 0\\.1\\.0\\S* \\(org\\.apache\\.felix\\.framework");
        }
    }

    @Test
    void aFailedCommandSaysWhyOnceCtrlCStopsALongRunAndTheHistoryOutlivesTheShell() throws Exception {
        try (Tmux t = Tmux.interactive(home)) {
            t.awaitCursorLine(EMPTY_PROMPT);
            t.type("hp:domain 7 pause");
            t.keys("Enter");
            t.await("^hp:domain: no host is loaded");
            t.awaitCursorLine(EMPTY_PROMPT);
            String screen = t.screen();
            assertEquals(1, Pattern.compile("no host is loaded").matcher(screen).results().count(), screen);
            assertTrue(!screen.contains("CommandFailure") && !screen.contains("hp:domain failed"),
                    "the error is said once, not again as what the line threw: " + screen);

            t.type("hp:load");
            t.keys("Enter");
            t.await("^  dom1 +domU-rcv");
            t.awaitCursorLine(EMPTY_PROMPT);
            t.type("hp:run 3600000");
            t.keys("Enter");
            t.await("^running xen-summit-2006-network for 3600000 ms simulated");
            t.keys("C-c");
            t.await("hyperprof: Ctrl-C: stopping hp:run at its next step");
            t.await("^samples +taken (\\d+) = delivered");
            t.awaitCursorLine(EMPTY_PROMPT);
            t.type("hp:state");
            t.keys("Enter");
            t.await("^xenoprof  state ");
            t.awaitCursorLine(EMPTY_PROMPT);
            t.type("exit");
            t.keys("Enter");
            assertEquals(0, t.exitStatus(), t.screen());
        }
        Path history = home.resolve(".hyperprof/history");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(history)));
        assertTrue(Files.readString(history).contains("hp:run 3600000"), Files.readString(history));

        try (Tmux t = Tmux.interactive(home)) {
            t.awaitCursorLine(EMPTY_PROMPT);
            t.keys("Up");
            t.awaitCursorLine("g! exit\\b.*");
            t.keys("Up");
            t.awaitCursorLine("g! hp:state\\b.*");
            // Ctrl-D on an empty line: the end of input leaves the shell.
            t.keys("C-u", "C-d");
            assertEquals(0, t.exitStatus(), t.screen());
        }
    }
}
