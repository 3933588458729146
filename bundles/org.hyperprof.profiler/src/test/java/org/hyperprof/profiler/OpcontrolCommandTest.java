package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** opcontrol's command line, and the active_domains file's parsing rules (xenoprof-facts §8.2). */
class OpcontrolCommandTest {

    @Test
    void startDaemonTakesRepeatedEventsAndTheXenOptions() throws Exception {
        OpcontrolCommand c = OpcontrolCommand.parse(List.of("--start-daemon", "--event=CPU_CLK_UNHALTED:100000:0:1:1",
                "--event", "INST_RETIRED:6000", "--xen=/boot/xen-syms", "--vmlinux=/boot/vmlinux", "--no-vmlinux",
                "--active-domains=0,1"));
        assertEquals(OpcontrolCommand.Action.START_DAEMON, c.action);
        assertEquals(List.of("CPU_CLK_UNHALTED:100000:0:1:1", "INST_RETIRED:6000"), c.events);
        assertEquals("/boot/xen-syms", c.xenImage);
        assertEquals("0,1", c.activeDomains);
        assertEquals(OpcontrolCommand.DEFAULT_MAX_SAMPLES, c.maxSamples, "the Linux driver asked for 16 slots");
    }

    @Test
    void withoutActiveDomainsTheListIsNotWritten() throws Exception {
        assertNull(OpcontrolCommand.parse(List.of("--start-daemon")).activeDomains);
    }

    @Test
    void aBufferSizeBelowTwoSlotsIsRefused() {
        OpcontrolCommand.UsageException e = assertThrows(OpcontrolCommand.UsageException.class,
                () -> OpcontrolCommand.parse(List.of("--start-daemon", "--buffer-size=1")));
        assertTrue(e.getMessage().contains("at least 2"), e.getMessage());
    }

    @Test
    void activeDomainIdsAreSeparatedByPunctuationOrWhiteSpace() throws Exception {
        assertArrayEquals(new int[] {0, 2, 5, 6}, OpcontrolCommand.parseActiveDomains("0,2 5;6"));
        assertArrayEquals(new int[] {}, OpcontrolCommand.parseActiveDomains(""));
        assertArrayEquals(new int[] {3}, OpcontrolCommand.parseActiveDomains(" 3\n"));
    }

    @Test
    void atMost25ActiveDomainIdsAreAccepted() throws Exception {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 25; i++) {
            b.append(i).append(',');
        }
        assertEquals(25, OpcontrolCommand.parseActiveDomains(b.toString()).length);
        b.append("25");
        assertThrows(OpcontrolCommand.ActiveDomainsException.class, () -> OpcontrolCommand.parseActiveDomains(b.toString()));
    }

    @Test
    void trailingJunkAfterAnIdIsRefused() {
        OpcontrolCommand.ActiveDomainsException e = assertThrows(OpcontrolCommand.ActiveDomainsException.class,
                () -> OpcontrolCommand.parseActiveDomains("0,1x"));
        assertTrue(e.getMessage().contains("trailing junk after id 1"), e.getMessage());
        assertThrows(OpcontrolCommand.ActiveDomainsException.class, () -> OpcontrolCommand.parseActiveDomains("70000"));
    }
}
