package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/**
 * The summary's host counters (the session's difference) and notes (symbol file problems,
 * decoding problems, corrupted indices), and the per-buffer books with corrupted samples charged
 * where they can be.
 */
class SummaryNotesTest {
    private static final long K = FakeHost.KERNEL;

    private static BufferAccounting buffer(SessionSummary s, int domid, int vcpu) {
        return s.buffers().stream().filter(b -> b.domid() == domid && b.vcpu() == vcpu).findFirst().orElseThrow();
    }

    @Test
    void hostCountersAreTheDifferenceBetweenTheSessionsStartAndEnd() throws Exception {
        FakeHost host = new FakeHost();
        host.counters.put("interrupts.taken", 5L);
        host.counters.put("vcpu.switches", 1L);
        try (Rig rig = new Rig(host, 64).profiling()) {
            host.counters.put("interrupts.taken", 12L);
            host.counters.put("domains.paused", 3L);
            rig.finish();
            assertEquals(Map.of("interrupts.taken", 7L, "vcpu.switches", 0L, "domains.paused", 3L),
                    rig.consumer.summary.hostCounters());
        }
    }

    @Test
    void callTracesXenCutShortAreNotedFromTheHostCounters() throws Exception {
        FakeHost host = new FakeHost();
        try (Rig rig = new Rig(host, 64).profiling()) {
            host.counters.put("trace.entries.lost", 4L);
            rig.finish();
            assertTrue(rig.consumer.summary.notes().stream().anyMatch(n -> n.startsWith("Xen cut call traces short: 4"
                    + " return address(es) found the ring full")), rig.consumer.summary.notes().toString());
        }
    }

    @Test
    void symbolFileProblemsAreInTheNotesNotOnlyInTheLog() throws Exception {
        try (Rig rig = new Rig(new FakeHost("BAD LINE\n", "kallsyms"), 64).profiling()) {
            rig.xen.buffer(0, 0).sample(FakeHost.XEN + 0x10, 2, 0);
            rig.finish();
            assertTrue(rig.consumer.summary.notes().stream().anyMatch(n -> n.contains("image xen-syms: samples counted"
                    + " under the image with (no symbols)") && n.contains("BAD LINE")),
                    rig.consumer.summary.notes().toString());
        }
    }

    @Test
    void decodingProblemsAreNotedPerBuffer() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(1, 1).add(org.hyperprof.api.xenoprof.SharedBuffer.ESCAPE_CODE, 1, 9);
            rig.xen.buffer(1, 1).sample(K, 1, 7);
            rig.finish();
            assertTrue(rig.consumer.summary.notes().contains("domain 1 vcpu 1: the daemon skipped what it could not"
                    + " decode: 1 escape value(s) with an unknown event code, 1 sample(s) naming a counter the session"
                    + " does not have; no skipped entry was given to another sample or domain"),
                    rig.consumer.summary.notes().toString());
        }
    }

    @Test
    void corruptedSamplesAreChargedToTheOnlyBufferSeenWithIndicesOutOfRange() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer hostile = rig.xen.buffer(1, 0);
            hostile.sample(K, 1, 0);
            hostile.writeHead(4096);
            rig.xen.virq(1, 0);
            rig.xen.corrupted = 7;
            rig.xen.buffer(0, 0).sample(K, 1, 0);
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            BufferAccounting b = buffer(s, 1, 0);
            assertEquals(new Accounting(8, 1, 0, 0, 7), b.accounting(), "taken = delivered + lost + invalid");
            assertEquals(new Accounting(1, 1, 0, 0, 0), buffer(s, 0, 0).accounting(), "the other domain is untouched");
            assertEquals(new Accounting(9, 2, 0, 0, 7), s.accounting());
            assertTrue(s.notes().stream().anyMatch(n -> n.contains("Xen dropped 7 sample(s) as corrupted")
                    && n.contains("charged to domain 1 vcpu 0")), s.notes().toString());
            // The VIRQ, the stop's flush and the shutdown's last drain each read the garbage head once.
            assertTrue(s.notes().contains("domain 1 vcpu 0: the guest wrote garbage into its shared page: 3"
                    + " out-of-range event_head read(s) ignored"), s.notes().toString());
        }
    }

    @Test
    void corruptedSamplesSeenInTwoBuffersStayInTheSessionsInvalidCountOnly() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(1, 0).writeTail(-3);
            rig.xen.buffer(1, 1).writeHead(99);
            rig.xen.corrupted = 4;
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            assertEquals(0, buffer(s, 1, 0).accounting().invalid());
            assertEquals(0, buffer(s, 1, 1).accounting().invalid());
            assertEquals(4, s.accounting().invalid());
            assertTrue(s.accounting().balanced());
            assertTrue(s.notes().stream().anyMatch(n -> n.contains("Xen dropped 4 sample(s) as corrupted")
                    && n.contains("in one of [domain 1 vcpu 0, domain 1 vcpu 1]")), s.notes().toString());
        }
    }

    @Test
    void theBuffersBooksAddUpToXensWhenEveryBufferIsTracked() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(0, 0).sample(K, 1, 0);
            for (int i = 0; i < 20; i++) {
                rig.xen.buffer(1, 1).sample(K, 0, 0);
            }
            rig.finish();
            SessionSummary s = rig.consumer.summary;
            long delivered = s.buffers().stream().mapToLong(b -> b.accounting().delivered()).sum();
            long lost = s.buffers().stream().mapToLong(b -> b.accounting().lost()).sum();
            assertEquals(s.accounting().delivered(), delivered);
            assertEquals(s.accounting().lost(), lost);
            assertTrue(s.notes().stream().noneMatch(n -> n.contains("no daemon of the session mapped")), s.notes().toString());
        }
    }

    @Test
    void hostGaugesAreReportedAsTheyReadWhileCountsAreSessionDeltas() {
        org.junit.jupiter.api.Assertions.assertTrue(Session.isGauge("interrupts.postponed.delay.max"));
        org.junit.jupiter.api.Assertions.assertTrue(Session.isGauge("interrupts.postponed.mode.owner"));
        org.junit.jupiter.api.Assertions.assertFalse(Session.isGauge("interrupts.postponed"));
        org.junit.jupiter.api.Assertions.assertFalse(Session.isGauge("virq.sent"));
    }
}
