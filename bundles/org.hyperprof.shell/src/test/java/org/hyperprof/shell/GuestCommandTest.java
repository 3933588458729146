package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** hp:guest: a guest writes into the head or tail of its own shared buffer (XSA-313). */
class GuestCommandTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Fakes.FakeHostService hosts = new Fakes.FakeHostService();
    private final XenoprofCommands commands = new XenoprofCommands(hosts, new Fakes.FakeProfiler(), io.console);
    private Fakes.FakeXenoprof xenoprof;
    /** dom1 has two vCPUs' buffers, in the order vCPU 1 then vCPU 0: found by vcpu_id, not by index. */
    private final FakeSharedBuffer vcpu1 = FakeSharedBuffer.logging(1, 16, 0);
    private final FakeSharedBuffer vcpu0 = FakeSharedBuffer.logging(0, 16, 3);

    @BeforeEach
    void loadHostWithDom1sBuffers() throws Exception {
        hosts.load("default", null);
        xenoprof = hosts.current.xenoprof;
        xenoprof.ownBuffers.put(1, new FakeSharedBuffer[] {vcpu1, vcpu0});
        xenoprof.types.put(1, DomainType.ACTIVE);
        xenoprof.state = XenoprofState.PROFILING;
    }

    @Test
    void theGuestMapsItsOwnBuffersAndWritesTheHeadOfTheBufferWithThatVcpuId() {
        commands.guest("1", "0", "head", "99999");
        assertEquals(List.of("1 maps 1"), xenoprof.maps);
        assertEquals(List.of("head 99999"), vcpu0.writes());
        assertEquals(List.of(), vcpu1.writes());
    }

    @Test
    void anOutOfRangeValueIsAnnouncedAsCorruptingTheNextSamplesOfThatBufferOnly() {
        commands.guest("1", "0", "head", "99999");
        assertEquals("dom1's guest wrote event_head = 99999 into its vCPU 0 buffer (was 3; event_size 16)\n"
                + "99999 is outside [0, 16): Xen will count the next samples for this buffer as corrupted"
                + " (corrupted_buffer_samples) and drop them, writing nothing, while event_head stays out of range;"
                + " no other buffer and no other domain is affected (XSA-313)\n"
                + "hp:run <ms> takes samples; hp:state then shows the lost and corrupted counts\n", io.out());
        assertEquals("", io.err());
    }

    @Test
    void theSizeItselfIsAlreadyOutOfRange() {
        commands.guest("1", "1", "tail", "16");
        assertEquals(List.of("tail 16"), vcpu1.writes());
        assertTrue(io.out().contains("16 is outside [0, 16): Xen will count the next samples for this buffer as"
                + " corrupted"), io.out());
    }

    @Test
    void aValueWithTheTopBitSetIsOutOfRangeAsAnUnsignedIndex() {
        commands.guest("1", "0", "tail", "0xffffffff");
        assertEquals(List.of("tail 4294967295"), vcpu0.writes());
        assertTrue(io.out().contains("4294967295 is outside [0, 16)"), io.out());
    }

    @Test
    void aValueInRangeIsAcceptedByXenAndHurtsOnlyThisDomainsReadings() {
        commands.guest("1", "0", "tail", "15");
        assertEquals(List.of("tail 15"), vcpu0.writes());
        assertTrue(io.out().contains("dom1's guest wrote event_tail = 15 into its vCPU 0 buffer (was 3;"
                + " event_size 16)\n15 is inside [0, 16), so Xen accepts it: it cannot tell a wrong index in range"
                + " from the right one; only dom1's own readings of this buffer suffer: its daemon skips what the"
                + " index makes unreadable (counted invalid) and never reads an entry twice\n"),
                io.out());
        assertFalse(io.out().contains("corrupted ("), io.out());
    }

    @Test
    void beforeEnableVirqTheWriteIsUndoneByEnableVirqAndNoSamplesAreTakenOutsideProfiling() {
        xenoprof.types.put(1, DomainType.IGNORED);
        xenoprof.state = XenoprofState.READY;
        commands.guest("1", "0", "head", "20");
        assertTrue(io.out().endsWith("dom1 has not called enable_virq yet: its enable_virq zeroes event_head and"
                + " event_tail again\nXenoprof is READY: samples are taken only while PROFILING; hp:state shows the"
                + " lost and corrupted counts\n"), io.out());
    }

    @Test
    void aDomainWithoutBuffersGetsXensReasonAsOneLineWithoutATrace() {
        Fakes.fails(() -> commands.guest("0", "0", "head", "5"));
        assertEquals("", io.out());
        assertEquals("hp:guest: dom0 has no buffer of its own to write into: domain 0 has no Xenoprof buffers to map:"
                + " domain 0 must call get_buffer first\n", io.err());
    }

    @Test
    void aPassiveDomainsBuffersAreSharedWithThePrimarySoItsGuestCannotWriteThem() {
        xenoprof.mapRefusals.put(1, "domain 1 cannot map the buffers of domain 1: they are shared with domain 0 (by"
                + " set_passive); domain 1 gets its own pages with get_buffer");
        Fakes.fails(() -> commands.guest("1", "0", "tail", "99"));
        assertEquals(List.of(), vcpu0.writes());
        assertEquals("hp:guest: dom1 has no buffer of its own to write into: domain 1 cannot map the buffers of"
                + " domain 1: they are shared with domain 0 (by set_passive); domain 1 gets its own pages with"
                + " get_buffer\n", io.err());
    }

    @Test
    void aVcpuWithoutABufferNamesTheVcpusThatHaveOne() {
        Fakes.fails(() -> commands.guest("1", "5", "head", "1"));
        assertEquals("hp:guest: dom1 has no buffer for vCPU 5; its buffers are for vCPU 1, 0\n", io.err());
    }

    @Test
    void anUnknownDomainNamesTheDomainsThatExistAndMapsNothing() {
        Fakes.fails(() -> commands.guest("9", "0", "head", "1"));
        assertEquals(List.of(), xenoprof.maps);
        assertEquals("hp:guest: no domain 9; the host has dom0, dom1\n", io.err());
    }

    @Test
    void aBadLinePrintsTheUsage() {
        Fakes.fails(() -> commands.guest("1", "0", "middle", "1"));
        assertEquals("hp:guest: expected head or tail (the buffer index the guest overwrites), got 'middle'\n"
                + "usage: hp:guest <domid> <vcpu> head|tail <value>\n(hp:guest --help explains the arguments)\n",
                io.err());
    }

    @Test
    void withCallTracesAHeadBeyondTheRingLeavesNoRoomForTheTraceSoXenCountsTheSamplesAsLost() {
        xenoprof.backtraceDepth = 4;
        commands.guest("1", "0", "head", "99999");
        // (tail 3 > head 99999 ? 0 : 16) + 3 - 99999 - 1 = -99981: fewer than the 2 slots a trace needs.
        assertTrue(io.out().contains("99999 is outside [0, 16). With call traces on (depth 4), Xen first wants 2 free"
                + " slots, reckoned from the raw indices: (tail > head ? 0 : size) + tail - head - 1 = -99981; so it"
                + " counts the next samples for this buffer as lost (lost_samples) and drops them, writing nothing,"
                + " while event_head stays out of range;"), io.out());
    }

    @Test
    void withCallTracesATailBeyondTheRingPassesTheRoomCheckAndIsCaughtAsCorrupted() {
        xenoprof.backtraceDepth = 4;
        commands.guest("1", "0", "tail", "99999");
        // (99999 > 3 ? 0 : 16) + 99999 - 3 - 1 = 99995 free slots on the raw indices; the add's range check then fails.
        assertTrue(io.out().contains("99999 is outside [0, 16): Xen will count the next samples for this buffer as"
                + " corrupted (corrupted_buffer_samples)"), io.out());
    }

    @Test
    void aTailWithTheTopBitSetIsNegativeAsXenReadsItSoTheRoomCheckFailsToo() {
        xenoprof.backtraceDepth = 1;
        commands.guest("1", "0", "tail", "0x80000000");
        // Read as Xen's int, tail is -2147483648, not > head 3: 16 + (-2147483648) - 3 - 1 = -2147483636.
        assertEquals(-2147483636, XenoprofCommands.rawFreeSlots(3, Integer.MIN_VALUE, 16));
        assertTrue(io.out().contains("= -2147483636; so it counts the next samples for this buffer as lost"),
                io.out());
    }
}
