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

    /** The message the usage check refuses opcontrol's {@code args} with. */
    private static String refusal(String... args) {
        return assertThrows(OpcontrolCommand.UsageException.class, () -> OpcontrolCommand.parse(List.of(args)))
                .getMessage();
    }

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
        String refused = refusal("--start-daemon", "--buffer-size=1");
        assertTrue(refused.contains("from 2 (one slot always stays empty) to 2147483647"), refused);
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
        assertThrows(OpcontrolCommand.DomainListException.class, () -> OpcontrolCommand.parseActiveDomains(b.toString()));
    }

    @Test
    void trailingJunkAfterAnIdIsRefused() {
        OpcontrolCommand.DomainListException e = assertThrows(OpcontrolCommand.DomainListException.class,
                () -> OpcontrolCommand.parseActiveDomains("0,1x"));
        assertTrue(e.getMessage().contains("trailing junk after id 1"), e.getMessage());
        assertThrows(OpcontrolCommand.DomainListException.class, () -> OpcontrolCommand.parseActiveDomains("70000"));
    }

    @Test
    void passiveDomainsAndImagesHaveTheXenPatchsAliases() throws Exception {
        OpcontrolCommand a = OpcontrolCommand.parse(List.of("--start-daemon", "--passive-domains=2,3",
                "--passive-images=vmlinux-2,/boot/System.map-3"));
        OpcontrolCommand b = OpcontrolCommand.parse(List.of("--start-daemon", "--domains=2,3",
                "--domains-images=vmlinux-2,/boot/System.map-3"));
        assertEquals("2,3", a.passiveDomains);
        assertEquals("2,3", b.passiveDomains);
        assertEquals(List.of("vmlinux-2", "/boot/System.map-3"), a.passiveImages);
        assertEquals(a.passiveImages, b.passiveImages);
    }

    @Test
    void anEmptyPassiveImageEntryLeavesThatKernelCoarse() throws Exception {
        OpcontrolCommand c = OpcontrolCommand.parse(List.of("--start-daemon", "--passive-domains=2,3",
                "--passive-images=,vmlinux-3"));
        assertEquals(List.of("", "vmlinux-3"), c.passiveImages);
    }

    @Test
    void passiveImagesNeedThePassiveDomainsOfTheSameCommand() {
        String refused = refusal("--start-daemon", "--passive-images=vmlinux");
        assertTrue(refused.contains("needs --passive-domains"), refused);
    }

    @Test
    void callgraphTakesANonNegativeDepthAndIsOffWhenNotGiven() throws Exception {
        assertEquals(6, OpcontrolCommand.parse(List.of("--start-daemon", "--callgraph=6")).callgraph);
        assertEquals(0, OpcontrolCommand.parse(List.of("--start-daemon", "--callgraph", "0")).callgraph);
        assertEquals(OpcontrolCommand.NO_CALLGRAPH, OpcontrolCommand.parse(List.of("--start-daemon")).callgraph);
        String refused = refusal("--start-daemon", "--callgraph=-1");
        assertTrue(refused.contains("expected the call-trace depth"), refused);
        assertThrows(OpcontrolCommand.UsageException.class,
                () -> OpcontrolCommand.parse(List.of("--start-daemon", "--callgraph=deep")));
        OpcontrolCommand.UsageException big = assertThrows(OpcontrolCommand.UsageException.class,
                () -> OpcontrolCommand.parse(List.of("--start-daemon", "--callgraph=2147483648")));
        assertTrue(big.getMessage().contains("from 0 to 2147483647"), big.getMessage());
        OpcontrolCommand.UsageException slots = assertThrows(OpcontrolCommand.UsageException.class,
                () -> OpcontrolCommand.parse(List.of("--start-daemon", "--buffer-size=99999999999")));
        assertTrue(slots.getMessage().contains("from 2 (one slot always stays empty) to 2147483647"),
                slots.getMessage());
    }

    @Test
    void domainListsWithoutAnActionWriteTheDriverFilesAtOnce() throws Exception {
        OpcontrolCommand c = OpcontrolCommand.parse(List.of("--active-domains=0,1", "--passive-domains=2"));
        assertEquals(OpcontrolCommand.Action.WRITE_LISTS, c.action);
        assertThrows(OpcontrolCommand.UsageException.class,
                () -> OpcontrolCommand.parse(List.of("--active-domains=0,1", "--callgraph=2")),
                "only the lists are files written at once; other settings need --start-daemon");
    }

    @Test
    void holdAndReleaseAreActionsDocumentedAsSimulationControls() throws Exception {
        assertEquals(OpcontrolCommand.Action.HOLD, OpcontrolCommand.parse(List.of("--hold")).action);
        assertEquals(OpcontrolCommand.Action.RELEASE, OpcontrolCommand.parse(List.of("--release")).action);
        String usage = OpcontrolCommand.usage();
        assertTrue(usage.contains("--hold          simulation control, not a real opcontrol option"), usage);
        assertTrue(usage.contains("--release       simulation control, not a real opcontrol option"), usage);
        assertThrows(OpcontrolCommand.UsageException.class, () -> OpcontrolCommand.parse(List.of("--hold",
                "--passive-domains=2")));
    }

    @Test
    void thePassiveListFollowsTheSameFileRulesAsTheActiveOne() throws Exception {
        assertArrayEquals(new int[] {2, 3}, OpcontrolCommand.parseDomainList("2;3", OpcontrolCommand.PASSIVE_FILE));
        OpcontrolCommand.DomainListException e = assertThrows(OpcontrolCommand.DomainListException.class,
                () -> OpcontrolCommand.parseDomainList("2,db", OpcontrolCommand.PASSIVE_FILE));
        assertEquals(OpcontrolCommand.PASSIVE_FILE, e.file);
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= 26; i++) {
            b.append(i).append(' ');
        }
        OpcontrolCommand.DomainListException tooMany = assertThrows(OpcontrolCommand.DomainListException.class,
                () -> OpcontrolCommand.parseDomainList(b.toString(), OpcontrolCommand.PASSIVE_FILE));
        assertTrue(tooMany.getMessage().contains("more than 25"), tooMany.getMessage());
    }
}
