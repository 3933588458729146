package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
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

    /**
     * A passive domain's buffers allocated with max_samples 0 by a hand-made set_passive keep their
     * 0 slots for the daemon's set_passive of 2048: every sample aimed at them is corrupted in Xen's
     * books. That is said as what it is, with the setting and the way out, never as a guest's doing.
     */
    @Test
    void buffersOfZeroSlotsAreReportedAsAConfigurationWithoutSlotsNotAsAHostileGuest() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            Xenoprof x = h.host.xenoprof();
            assertEquals(0, x.hypercall(0, XenoprofOp.INIT.number(), new XenoprofInit()));
            assertEquals(0, x.hypercall(0, XenoprofOp.SET_PASSIVE.number(), new XenoprofPassive(2, 0)));
            String started = Rig.ok(h.op(0, "--start-daemon", "--active-domains=0", "--passive-domains=2")).output();
            String what = "the buffers of domain 2 have 0 slots (event_size 0), and one slot always stays empty, so"
                    + " they hold no sample: Xen refuses every sample aimed at them as corrupted (event_head 0 is"
                    + " outside [0, 0)); no guest wrote their indices. Xen sized them from the max_samples of the"
                    + " first get_buffer or set_passive for domain 2 and keeps them until the domain is destroyed,"
                    + " whatever later calls ask for: load the host again (hp:load) and ask for at least 2 slots"
                    + " (opcontrol --buffer-size=N, 16 by default; hp:op 2 get_buffer N; hp:op <primary> set_passive"
                    + " 2 N)";
            assertTrue(started.contains("note: " + what), started);
            Rig.ok(h.op(0, "--start"));
            h.run(50_000);
            Rig.ok(h.op(0, "--stop"));
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary s = h.sessions.last();
            assertTrue(s.hypervisor().corruptedBufferSamples() > 0, "Xen counts them corrupted");
            assertTrue(s.notes().contains(what), s.notes().toString());
            assertTrue(s.notes().contains("Xen dropped " + s.hypervisor().corruptedBufferSamples() + " sample(s) as"
                    + " corrupted because [domain 2 vcpu 0, domain 2 vcpu 1] have no slot (see the note on their"
                    + " size): Xen counts them globally, so they are in the session's invalid count only"),
                    s.notes().toString());
            assertTrue(s.notes().stream().noneMatch(n -> n.contains("guest put them back")
                    || n.contains("garbage") || n.contains("out of range):")), s.notes().toString());
            assertTrue(s.accounting().balanced(), s.accounting().line());
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
