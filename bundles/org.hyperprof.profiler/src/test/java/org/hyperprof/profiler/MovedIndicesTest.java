package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.Test;

/**
 * A guest writes an index of its own buffer inside {@code [0, size)}: Xen accepts it and goes on
 * from there as producer, and the daemon never hands an entry to the consumers twice. Entries the
 * guest made it skip (and samples Xen overwrote because of it) are invalid; entries a rewind would
 * show again are not delivered and are noted, outside the books, which stay exact.
 *
 * <p>Each case on dom1's 16-slot ring of vCPU 0, every sample with a PC of its own ({@code K + n}
 * for Xen's n-th sample), no call traces.
 */
class MovedIndicesTest {
    private static final long K = FakeHost.KERNEL;

    /** Xen logs its samples number {@code first..last} (PC {@code K + n}) as kernel samples of counter 0. */
    private static void log(FakeSharedBuffer b, int first, int last) {
        for (int n = first; n <= last; n++) {
            b.sample(K + n, 1, 0);
        }
    }

    /** {@code K + first .. K + last}. */
    private static List<Long> pcs(int first, int last) {
        List<Long> out = new ArrayList<>();
        for (int n = first; n <= last; n++) {
            out.add(K + n);
        }
        return out;
    }

    /** The PCs the consumer received from a domain's vCPU, in order. */
    private static List<Long> received(Rig rig, int domid, int vcpu) {
        List<Long> out = new ArrayList<>();
        for (SampleBatch b : rig.consumer.batches) {
            for (int i = 0; i < b.size; i++) {
                if (b.domain[i] == domid && b.vcpu[i] == vcpu) {
                    out.add(b.pc[i]);
                }
            }
        }
        return out;
    }

    private static BufferAccounting books(SessionSummary s, int domid, int vcpu) {
        return s.buffers().stream().filter(b -> b.domid() == domid && b.vcpu() == vcpu).findFirst().orElseThrow();
    }

    private static String note(SessionSummary s) {
        return s.notes().stream().filter(n -> n.startsWith("domain 1 vcpu 0: ")).findFirst().orElse("(none in "
                + s.notes() + ")");
    }

    @Test
    void aTailMovedBackOverEntriesTheDaemonReadDoesNotMakeItReadThemAgain() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            log(b, 1, 6);
            rig.xen.virq(1, 0);
            b.writeTail(2);
            // Xen sees 4 + 3 entries unread now, and room for 8 more: nothing is lost.
            log(b, 7, 9);
            rig.xen.virq(1, 0);
            assertEquals(9, b.tail(), "the daemon publishes its own tail again");
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(pcs(1, 9), received(rig, 1, 0), "each entry once");
            assertEquals(new Accounting(9, 9, 0, 0, 0), books(s, 1, 0).accounting());
            assertEquals("domain 1 vcpu 0: the guest wrote garbage into its shared page: 4 entr(ies) the daemon had"
                    + " already read that event_tail was moved back over: not read again (not in the books)", note(s));
            assertEquals(new Accounting(9, 9, 0, 0, 0), s.accounting());
        }
    }

    @Test
    void aTailMovedBackSoFarThatXenSeesAFullRingLosesTheNewestSamplesLikeAnyFullRing() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            log(b, 1, 6);
            rig.xen.virq(1, 0);
            // One ahead of the head is 15 slots behind it: Xen sees 15 unread entries, a full ring.
            b.writeTail(7);
            log(b, 7, 8);
            assertEquals(2, b.lost, "Xen drops the newest samples, as for any full ring");
            rig.xen.virq(1, 0);
            log(b, 9, 9);
            rig.xen.virq(1, 0);
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(List.of(K + 1, K + 2, K + 3, K + 4, K + 5, K + 6, K + 9), received(rig, 1, 0));
            assertEquals(new Accounting(9, 7, 2, 0, 0), books(s, 1, 0).accounting());
            assertTrue(note(s).contains("15 entr(ies) the daemon had already read that event_tail was moved back over"),
                    note(s));
        }
    }

    @Test
    void aTailMovedForwardSkipsTheUnreadEntriesItPassedAndTheyAreInvalid() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            log(b, 1, 4);
            b.writeTail(2);
            log(b, 5, 6);
            rig.xen.virq(1, 0);
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(pcs(3, 6), received(rig, 1, 0));
            assertEquals(new Accounting(6, 4, 0, 0, 2), books(s, 1, 0).accounting(),
                    "taken = delivered + lost + invalid: the 2 skipped are invalid");
            assertEquals("domain 1 vcpu 0: the guest wrote garbage into its shared page: 2 unread entr(ies) skipped"
                    + " because event_tail was moved forward over them (Xen counts those slots free), 2 sample(s) Xen"
                    + " wrote that the daemon could not read because of the moved indices (counted invalid)", note(s));
            assertEquals(new Accounting(6, 4, 0, 0, 2), s.accounting(), "the session's books as the buffer's");
        }
    }

    @Test
    void aTailMovedForwardThatXenThenWentRoundIsReadFromWhereXenSeesTheRing() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            log(b, 1, 10);
            b.writeTail(8);
            // Xen has room for 13 more: it writes over the 8 skipped slots and the next 5, and loses one.
            log(b, 11, 24);
            assertEquals(7, b.head());
            assertEquals(1, b.lost);
            rig.xen.virq(1, 0);
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(pcs(9, 23), received(rig, 1, 0), "what Xen counted unread, each once");
            assertEquals(new Accounting(24, 15, 1, 0, 8), books(s, 1, 0).accounting());
            assertTrue(note(s).contains("8 unread entr(ies) skipped because event_tail was moved forward"), note(s));
        }
    }

    @Test
    void aHeadMovedBackMakesXenOverwriteUnreadEntriesAndTheyAreInvalid() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            log(b, 1, 6);
            b.writeHead(3);
            log(b, 7, 8);
            rig.xen.virq(1, 0);
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(List.of(K + 1, K + 2, K + 3, K + 7, K + 8), received(rig, 1, 0));
            assertEquals(new Accounting(8, 5, 0, 0, 3), books(s, 1, 0).accounting());
            assertEquals("domain 1 vcpu 0: the guest wrote garbage into its shared page: 3 sample(s) Xen wrote that"
                    + " the daemon could not read because of the moved indices (counted invalid)", note(s));
        }
    }

    /**
     * The daemon marks every slot it read before it gives it back: a head moved forward over such
     * slots shows the marks, which are skipped, and the fresh entries around them are delivered.
     */
    @Test
    void aHeadMovedForwardOverSlotsReadBeforeSkipsThemAndDeliversTheFreshEntries() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            log(b, 1, 12);
            rig.xen.virq(1, 0);
            log(b, 13, 18);
            rig.xen.virq(1, 0);
            log(b, 19, 20);
            // Slots 4..7 held samples 5..8, which the daemon read in the first lap.
            b.writeHead(8);
            log(b, 21, 21);
            rig.xen.virq(1, 0);
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(pcs(1, 21), received(rig, 1, 0), "no stale entry, every fresh one once");
            assertEquals(new Accounting(21, 21, 0, 0, 0), books(s, 1, 0).accounting());
            assertEquals("domain 1 vcpu 0: the guest wrote garbage into its shared page: 4 slot(s) read before or"
                    + " never written that event_head was moved forward over: skipped, not read again (not in the"
                    + " books)", note(s));
        }
    }

    @Test
    void theOtherBuffersAreUntouched() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer hostile = rig.xen.buffer(1, 0);
            FakeSharedBuffer fair = rig.xen.buffer(1, 1);
            log(hostile, 1, 4);
            log(fair, 1, 4);
            hostile.writeTail(3);
            rig.xen.virq(1, 0);
            rig.xen.virq(1, 1);
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(pcs(1, 4), received(rig, 1, 1));
            assertEquals(new Accounting(4, 4, 0, 0, 0), books(s, 1, 1).accounting());
            assertTrue(s.notes().stream().noneMatch(n -> n.startsWith("domain 1 vcpu 1")), s.notes().toString());
        }
    }

    /**
     * The user's scenario on the real hypervisor: {@code hp:guest 1 1 tail 5} between two runs of a
     * session. The consumers never get more of a buffer's samples than Xen delivered into it; without
     * call traces they get exactly what it delivered, less what is left in it.
     */
    @Test
    void onTheRealHypervisorAGuestsTailWrittenBackNeverGivesTheConsumersMoreThanXenDelivered() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI).profiling()) {
            h.run(100_000);
            SharedBuffer vcpu1 = null;
            for (SharedBuffer b : h.host.xenoprof().mapBuffers(1, 1)) {
                if (b.vcpuId() == 1) {
                    vcpu1 = b;
                }
            }
            assertNotEquals(5, vcpu1.tail(), "the write must move the tail for this scenario to mean anything");
            vcpu1.writeTail(5);
            h.run(100_000);
            Rig.ok(h.op(0, "--stop"));
            Rig.ok(h.op(1, "--shutdown"));
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary s = h.sessions.last();
            Map<String, Long> received = new TreeMap<>();
            for (SampleBatch b : h.sessions.lastBatches()) {
                for (int i = 0; i < b.size; i++) {
                    received.merge(b.domain[i] + "/" + b.vcpu[i], 1L, Long::sum);
                }
            }
            assertTrue(s.accounting().balanced(), s.accounting().line());
            for (BufferAccounting b : s.buffers()) {
                assertTrue(b.accounting().balanced(), b.toString());
                long got = received.getOrDefault(b.domid() + "/" + b.vcpu(), 0L);
                assertEquals(b.accounting().delivered() - b.undrained(), got, "samples of " + b);
            }
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 1 vcpu 1: ")
                    && n.contains("that event_tail was moved back over: not read again")), s.notes().toString());
        }
    }

    // ---------------------------------------------------------------- any one write between two drains

    /** Xen logs {@code before} samples, the guest perhaps writes one index, Xen logs {@code after}, the daemon drains. */
    record Round(int before, int index, int value, int after) {
        static final int NONE = 0;
        static final int HEAD = 1;
        static final int TAIL = 2;
    }

    @Provide
    Arbitrary<List<Round>> rounds() {
        return Combinators.combine(Arbitraries.integers().between(0, 20), Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 15), Arbitraries.integers().between(0, 20)).as(Round::new)
                .list().ofMinSize(1).ofMaxSize(12);
    }

    /**
     * Whatever one index, head or tail, a guest writes in range between two drains, and however full
     * the ring is: no sample is delivered twice, none that Xen did not write is delivered, and every
     * sample Xen wrote is delivered or counted unreached (invalid).
     */
    @Property(tries = 300, seed = "20260514")
    void noEntryIsDeliveredTwiceAndEverySampleXenWroteIsDeliveredOrInvalid(@ForAll("rounds") List<Round> rounds) {
        Ring r = new Ring(16);
        Set<Long> written = new HashSet<>();
        long n = 0;
        for (Round round : rounds) {
            n = logRing(r, written, n, round.before());
            if (round.index() == Round.HEAD) {
                r.buffer.writeHead(round.value());
            } else if (round.index() == Round.TAIL) {
                r.buffer.writeTail(round.value());
            }
            n = logRing(r, written, n, round.after());
            r.drain(0);
        }
        List<Long> got = r.pcs();
        Map<Long, Integer> twice = new TreeMap<>();
        for (long pc : got) {
            twice.merge(pc, 1, Integer::sum);
        }
        twice.values().removeIf(c -> c == 1);
        assertEquals(Map.of(), twice, "samples delivered more than once");
        assertTrue(written.containsAll(got), "only samples Xen wrote: " + got + " of " + written);
        BufferReader b = r.reader;
        assertEquals(written.size(), b.samples() + b.unreachedSamples(), "Xen's samples: delivered or unreached");
        assertEquals(0, b.badEvents() + b.badModes());
    }

    /** Xen logs {@code count} samples with new PCs; returns the next number. */
    private static long logRing(Ring r, Set<Long> written, long next, int count) {
        long n = next;
        for (int i = 0; i < count; i++) {
            n++;
            if (r.buffer.sample(0x1000 + n, 1, 0)) {
                written.add(0x1000 + n);
            }
        }
        return n;
    }

    @Test
    void anEscapeRecordWaitingForItsSampleIsNotGivenTheEntryATailMovedForwardLandsOn() {
        Ring r = new Ring(16);
        r.add(SharedBuffer.ESCAPE_CODE, 1, SharedBuffer.TRACE_BEGIN);
        r.drain(2);
        r.sample(0x10, 1, 0).add(0x20, 1, 0).add(SharedBuffer.ESCAPE_CODE, 1, SharedBuffer.TRACE_BEGIN)
                .sample(0x30, 1, 0);
        // The escape's sample (0x10) is skipped: the trace is truncated, and 0x20 is a stray return address.
        r.buffer.writeTail(2);
        r.drain(2);
        assertEquals(List.of("30:1:0[]"), r.samples(), "0x20 is never taken for the waiting escape's sample");
        assertEquals(1, r.reader.danglingEscapes());
        assertEquals(1, r.reader.orphanEntries());
        assertEquals(1, r.reader.skippedEntries());
        assertEquals(1, r.reader.unreachedSamples());
    }
}
