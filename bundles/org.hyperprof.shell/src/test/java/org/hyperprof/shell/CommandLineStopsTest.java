package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.StopRequests;
import org.hyperprof.shell.CommandLineStops.Mode;
import org.hyperprof.shell.CommandLineStops.Request;
import org.junit.jupiter.api.Test;

/**
 * What Ctrl-C and SIGTERM do to the command that runs: the rules, without signals (the launcher's
 * tests send real ones). Exits are recorded instead of taken.
 */
class CommandLineStopsTest {
    private final List<Integer> exits = new ArrayList<>();
    private final ByteArrayOutputStream noticeBytes = new ByteArrayOutputStream();
    private final PrintStream notices = new PrintStream(noticeBytes, true, StandardCharsets.UTF_8);

    private CommandLineStops stops(Mode mode) {
        return new CommandLineStops(mode, exits::add, () -> notices);
    }

    private String notices() {
        return noticeBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void pipedCtrlCStopsTheRunAndExits130OnlyOnceTheCommandHasPrintedItsBooks() {
        CommandLineStops stops = stops(Mode.BATCH);
        StopRequests.Watch run = stops.watch("hp:profile");
        assertFalse(run.stopRequested());
        stops.request(Request.CTRL_C);
        assertTrue(run.stopRequested());
        assertTrue(run.listener(null).stopRequested(), "the run's listener hears it at its next step");
        assertEquals("Ctrl-C", run.stopReason());
        assertEquals(List.of(), exits, "the command still ends its session and prints its books");
        run.close();
        assertEquals(List.of(130), exits);
        assertEquals("hyperprof: Ctrl-C: stopping hp:profile at its next step; the samples taken are kept and its books"
                + " printed, then hyperprof exits (130)\n", notices());
    }

    @Test
    void sigtermStopsTheRunAndExits143InEitherMode() {
        for (Mode mode : Mode.values()) {
            exits.clear();
            CommandLineStops stops = stops(mode);
            StopRequests.Watch run = stops.watch("hp:run");
            stops.request(Request.SIGTERM);
            assertEquals("SIGTERM", run.stopReason());
            assertEquals(List.of(), exits);
            run.close();
            assertEquals(List.of(143), exits, mode.toString());
        }
    }

    @Test
    void pipedCtrlCWithNoRunGoingOnExitsAtOnce() {
        CommandLineStops stops = stops(Mode.BATCH);
        stops.watch("hp:run").close();
        stops.request(Request.CTRL_C);
        assertEquals(List.of(130), exits);
        assertEquals("hyperprof: Ctrl-C: no run to stop; hyperprof exits (130)\n", notices());
    }

    @Test
    void interactiveCtrlCStopsTheRunAndTheShellGoesOnWithTheNextCommandUnstopped() {
        CommandLineStops stops = stops(Mode.INTERACTIVE);
        StopRequests.Watch run = stops.watch("hp:run");
        stops.request(Request.CTRL_C);
        assertTrue(run.stopRequested());
        run.close();
        assertEquals(List.of(), exits, "back to the prompt");
        StopRequests.Watch next = stops.watch("hp:profile");
        assertNull(next.stopReason(), "a request stops the run it came during, not the next one");
        next.close();
        assertEquals(List.of(), exits);
    }

    @Test
    void interactiveCtrlCAtThePromptSaysHowToLeave() {
        CommandLineStops stops = stops(Mode.INTERACTIVE);
        stops.request(Request.CTRL_C);
        assertEquals(List.of(), exits);
        assertEquals("hyperprof: Ctrl-C stops a running hp:run, hp:profile or hp:study, and none is running; leave the"
                + " shell with Ctrl-D (end of input) or 'stop 0'\n", notices());
    }

    @Test
    void requestsWhileARunIsStoppingChangeNothing() {
        // A terminal's Ctrl-C reaches the launcher script and the JVM, and the script passes it on.
        CommandLineStops stops = stops(Mode.BATCH);
        StopRequests.Watch run = stops.watch("hp:profile");
        stops.request(Request.CTRL_C);
        stops.request(Request.CTRL_C);
        stops.request(Request.SIGTERM);
        assertEquals("Ctrl-C", run.stopReason());
        assertEquals(List.of(), exits);
        run.close();
        run.close();
        assertEquals(List.of(130), exits, "one exit, with the first request's status");

        exits.clear();
        CommandLineStops interactive = stops(Mode.INTERACTIVE);
        StopRequests.Watch r = interactive.watch("hp:run");
        interactive.request(Request.CTRL_C);
        interactive.request(Request.CTRL_C);
        r.close();
        assertEquals(List.of(), exits);
        assertTrue(notices().endsWith("hyperprof: Ctrl-C: the run is already stopping\n"), notices());
    }

    @Test
    void aCommandThatStartsWhileTheProcessIsExitingIsStoppedFromItsStart() {
        CommandLineStops stops = stops(Mode.BATCH);
        StopRequests.Watch first = stops.watch("hp:profile");
        stops.request(Request.SIGTERM);
        StopRequests.Watch second = stops.watch("hp:study");
        assertEquals("SIGTERM", second.stopReason());
        first.close();
        assertEquals(List.of(), exits, "the process waits for every stopped run's books");
        second.close();
        assertEquals(List.of(143), exits);
    }

    @Test
    void theLauncherSaysWhichModeAndWithoutItAConsoleMeansAPrompt() {
        assertEquals(Mode.INTERACTIVE, Mode.of("interactive", false));
        assertEquals(Mode.BATCH, Mode.of("batch", true));
        assertEquals(Mode.INTERACTIVE, Mode.of(null, true));
        assertEquals(Mode.BATCH, Mode.of(" ", false));
    }
}
