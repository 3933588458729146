package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.section;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The session's host counters and notes in the accounting section. */
class SessionNotesTest {

    private final PassiveSession passive = new PassiveSession();

    @Test
    void hostCountersAreOneShortLineUnlessAskedFor() throws Exception {
        String accounting = section(all(passive.completed(Map.of("interrupts.taken", 43419L,
                "interrupts.postponed", 0L, "interrupts.misattributed", 2L), List.of())), "Accounting");
        assertTrue(accounting.contains("\nhost: 3 counters (the option host lists them)\n"), accounting);
        assertFalse(accounting.contains("interrupts.taken"), accounting);
    }

    @Test
    void theOptionHostPrintsTheCountersOnOneLineInNameOrder() throws Exception {
        String accounting = section(all(passive.completed(Map.of("interrupts.taken", 43419L,
                "interrupts.postponed", 0L, "interrupts.misattributed", 2L), List.of()), "host"), "Accounting");
        assertTrue(accounting.contains("\nhost: interrupts.misattributed 2, interrupts.postponed 0, interrupts.taken"
                + " 43419\n"), accounting);
    }

    @Test
    void eachSessionNoteIsAStarLineOfTheAccounting() throws Exception {
        String accounting = section(all(passive.completed(Map.of(), List.of(
                "domain 3 (domU-gone) was destroyed mid-session; its buffers were dropped",
                "symbol file /boot/System.map-xenU could not be read: no such file"))), "Accounting");
        assertTrue(accounting.contains("\n* domain 3 (domU-gone) was destroyed mid-session; its buffers were dropped\n"
                + "* symbol file /boot/System.map-xenU could not be read: no such file"), accounting);
    }

    @Test
    void hostCountersAndNotesAlsoReachOneDomainsReport() throws Exception {
        String report = Reports.render(passive.completed(Map.of("interrupts.taken", 7L), List.of("a note")), 60,
                PassiveSession.PV, "host");
        assertTrue(report.contains("\nhost: interrupts.taken 7\n"), report);
        assertTrue(report.contains("\n* a note\n"), report);
    }

    @Test
    void aSessionWithoutHostCountersOrNotesPrintsNeither() throws Exception {
        String accounting = section(all(passive.completed()), "Accounting");
        assertFalse(accounting.contains("host:"), accounting);
        assertFalse(accounting.contains("\n* "), accounting);
    }
}
