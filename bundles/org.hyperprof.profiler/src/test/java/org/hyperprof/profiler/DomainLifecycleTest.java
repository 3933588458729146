package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.Test;

/**
 * A domain destroyed or paused during a session, and a daemon that stops draining: each is counted
 * and noted, nothing crashes, and the other domains' data is untouched.
 */
class DomainLifecycleTest {
    private static final long K = FakeHost.KERNEL;

    private static BufferAccounting buffer(SessionSummary s, int domid, int vcpu) {
        return s.buffers().stream().filter(b -> b.domid() == domid && b.vcpu() == vcpu).findFirst().orElseThrow();
    }

    private static boolean noted(SessionSummary s, String text) {
        return s.notes().stream().anyMatch(n -> n.contains(text));
    }

    private static void fill(FakeSharedBuffer b, int n) {
        for (int i = 0; i < n; i++) {
            b.sample(K + i, 1, 0);
        }
    }

    /** Ends the session as dom0 alone (the other domains may not be able to act). */
    private static SessionSummary endAsDom0(Rig rig) throws InterruptedException {
        Rig.ok(rig.op(0, "--stop"));
        Rig.ok(rig.op(0, "--shutdown"));
        assertTrue(rig.consumer.awaitEnd());
        SessionSummary s = rig.consumer.summary;
        assertTrue(s.accounting().balanced(), s.accounting().line());
        for (BufferAccounting b : s.buffers()) {
            assertTrue(b.accounting().balanced(), b.toString());
        }
        return s;
    }

    private static long received(Rig rig, int domid) {
        return rig.consumer.batches.stream().mapToLong(b -> {
            long n = 0;
            for (int i = 0; i < b.size; i++) {
                n += b.domain[i] == domid ? 1 : 0;
            }
            return n;
        }).sum();
    }

    @Test
    void aDomainDestroyedMidSessionStopsItsDaemonKeepsWhatItDrainedAndCountsWhatWasLeft() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer dom1 = rig.xen.buffer(1, 0);
            fill(dom1, 3);
            rig.xen.virq(1, 0);
            fill(dom1, 2);
            fill(rig.xen.buffer(0, 0), 4);
            rig.host.destroyDomain(1);
            String status = Rig.ok(rig.op(0, "--status")).output();
            assertTrue(status.contains("Domain 0"), status);
            SessionSummary s = endAsDom0(rig);
            assertEquals(3, received(rig, 1), "what dom1's daemon drained before the domain went is kept");
            assertEquals(4, received(rig, 0), "dom0 goes on");
            BufferAccounting b = buffer(s, 1, 0);
            assertEquals(5, b.accounting().delivered());
            assertEquals(3, b.drained());
            assertEquals(2, b.undrained(), "left in the freed buffer");
            assertTrue(noted(s, "domain 1 (domU-rcv) was destroyed during the session: its daemon stopped with it;"
                    + " it had drained 3 entries, and 2 entries stayed in its buffers (counted undrained)"),
                    s.notes().toString());
        }
    }

    @Test
    void opcontrolAsADestroyedDomainIsRefusedNamingWhoEndsTheSession() {
        try (Rig rig = new Rig().profiling()) {
            rig.host.destroyDomain(1);
            rig.xen.calls.clear();
            OpcontrolResult r = rig.op(1, "--shutdown");
            assertFalse(r.ok());
            assertTrue(r.output().contains("Domain 1 (domU-rcv) was destroyed: nothing runs in it any more"), r.output());
            assertTrue(r.output().contains("domain 0 (the primary) ends it as usual (opcontrol --stop, then --shutdown"),
                    r.output());
            assertEquals(List.of(), rig.xen.calls, "a destroyed domain issues no hypercall");
        }
    }

    @Test
    void aPassiveDomainDestroyedMidSessionIsNoLongerReadByThePrimary() throws Exception {
        try (Rig rig = new Rig(FakeHost.withGuests(), 64)) {
            Rig.ok(rig.op(0, "--start-daemon", "--passive-domains=2"));
            Rig.ok(rig.op(0, "--start"));
            FakeSharedBuffer p = rig.xen.buffer(2, 0);
            fill(p, 2);
            rig.xen.virq(0, 0);
            fill(p, 3);
            rig.host.destroyDomain(2);
            rig.xen.virq(0, 0);
            assertEquals(2, p.tail(), "the freed pages are not read any more");
            SessionSummary s = endAsDom0(rig);
            assertEquals(2, received(rig, 2));
            BufferAccounting b = buffer(s, 2, 0);
            assertEquals("passive", b.role());
            assertEquals(3, b.undrained());
            assertTrue(noted(s, "passive domain 2 (domU-pv) was destroyed during the session: the primary, domain 0,"
                    + " stopped reading its freed buffers"), s.notes().toString());
        }
    }

    @Test
    void aPausedDomainsDaemonCannotRunSoItsRingFillsAndXenCountsLostSamples() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.host.pauseDomain(1);
            FakeSharedBuffer dom1 = rig.xen.buffer(1, 0);
            fill(dom1, 20);
            rig.xen.virq(1, 0);
            assertEquals(0, dom1.tail(), "a paused guest does not run its VIRQ handler");
            OpcontrolResult r = rig.op(1, "--dump");
            assertFalse(r.ok());
            assertTrue(r.output().contains("Domain 1 (domU-rcv) is paused (xl pause): its vCPUs are not scheduled"),
                    r.output());
            assertTrue(r.output().contains("Unpause it first (xl unpause 1), then run opcontrol --dump as domain 1"),
                    r.output());
            SessionSummary s = endAsDom0(rig);
            BufferAccounting b = buffer(s, 1, 0);
            assertEquals(15, b.undrained(), "a 16-slot ring holds 15");
            assertEquals(5, b.accounting().lost());
            assertTrue(noted(s, "domain 1 (domU-rcv) was paused when the session ended: its daemon could not run its"
                    + " last drain; 15 entries stayed"), s.notes().toString());
            assertTrue(noted(s, "domain 1 was paused during the session"), s.notes().toString());
        }
    }

    @Test
    void anUnpausedDomainDrainsAtItsNextVirq() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.host.pauseDomain(1);
            fill(rig.xen.buffer(1, 0), 3);
            rig.xen.virq(1, 0);
            rig.host.unpauseDomain(1);
            rig.xen.virq(1, 0);
            assertEquals(3, rig.xen.buffer(1, 0).tail());
            rig.finish();
            assertEquals(3, received(rig, 1));
        }
    }

    @Test
    void aHeldDaemonIgnoresItsVirqsAndDumpSoXenCountsLostSamplesAndTheSummaryShowsThem() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            OpcontrolResult hold = Rig.ok(rig.op(1, "--hold"));
            assertTrue(hold.output().contains("simulation control, not an opcontrol option"), hold.output());
            FakeSharedBuffer dom1 = rig.xen.buffer(1, 1);
            fill(dom1, 18);
            rig.xen.virq(1, 1);
            OpcontrolResult dump = Rig.ok(rig.op(1, "--dump"));
            assertTrue(dump.output().contains("is held (--hold): it ignores --dump; 15 entries wait"), dump.output());
            assertEquals(0, dom1.tail());
            assertTrue(rig.op(1, "--status").output().contains("HELD (--hold)"));
            SessionSummary s = endAsDom0(rig);
            BufferAccounting b = buffer(s, 1, 1);
            assertEquals(3, b.accounting().lost());
            assertEquals(15, b.undrained());
            assertEquals(0, b.drained());
            assertTrue(noted(s, "the daemon of domain 1 (domU-rcv) was held (opcontrol --hold, a simulation control)"
                    + " when the session ended"), s.notes().toString());
            assertEquals(0, received(rig, 1));
        }
    }

    @Test
    void releaseLetsAHeldDaemonDrainAtOnce() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            Rig.ok(rig.op(1, "--hold"));
            fill(rig.xen.buffer(1, 0), 4);
            rig.xen.virq(1, 0);
            OpcontrolResult r = Rig.ok(rig.op(1, "--release"));
            assertTrue(r.output().contains("Released: the daemon of domain 1 reads its buffers again and drained 4"
                    + " entries"), r.output());
            rig.finish();
            assertEquals(4, received(rig, 1));
        }
    }

    @Test
    void aHeldPrimaryStopsReadingItsPassiveDomainsToo() throws Exception {
        try (Rig rig = new Rig(FakeHost.withGuests(), 64)) {
            Rig.ok(rig.op(0, "--start-daemon", "--passive-domains=2"));
            Rig.ok(rig.op(0, "--start"));
            Rig.ok(rig.op(0, "--hold"));
            fill(rig.xen.buffer(2, 0), 3);
            rig.xen.virq(0, 0);
            assertEquals(0, rig.xen.buffer(2, 0).tail());
            Rig.ok(rig.op(0, "--release"));
            assertEquals(3, rig.xen.buffer(2, 0).tail());
            endAsDom0(rig);
        }
    }

    @Test
    void holdAndReleaseNeedARunningDaemonAndSayWhatIsAlreadySo() {
        try (Rig rig = new Rig()) {
            OpcontrolResult r = rig.op(1, "--hold");
            assertFalse(r.ok());
            assertTrue(r.output().contains("is not running, so --hold has nothing to act on"), r.output());
            rig.profiling();
            OpcontrolResult notHeld = Rig.ok(rig.op(1, "--release"));
            assertTrue(notHeld.output().contains("is not held"), notHeld.output());
            Rig.ok(rig.op(1, "--hold"));
            assertTrue(Rig.ok(rig.op(1, "--hold")).output().contains("already held"));
        }
    }

    @Test
    void aHeldDaemonShutDownLeavesItsEntriesUndrained() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            Rig.ok(rig.op(1, "--hold"));
            fill(rig.xen.buffer(1, 0), 2);
            Rig.ok(rig.op(0, "--stop"));
            OpcontrolResult r = Rig.ok(rig.op(1, "--shutdown"));
            assertTrue(r.output().contains("killed without reading its buffers; 2 entries stay in them"), r.output());
            Rig.ok(rig.op(0, "--shutdown"));
            assertTrue(rig.consumer.awaitEnd());
            assertEquals(2, buffer(rig.consumer.summary, 1, 0).undrained());
            assertTrue(noted(rig.consumer.summary, "when it was shut down"), rig.consumer.summary.notes().toString());
        }
    }

    @Test
    void entriesLeftInAPassiveBufferDroppedMidSessionStayUndrainedWhenTheGuestLaterResetsItsRing() throws Exception {
        try (Rig rig = new Rig(FakeHost.withGuests(), 64)) {
            Rig.ok(rig.op(0, "--start-daemon", "--passive-domains=2"));
            Rig.ok(rig.op(0, "--start"));
            fill(rig.xen.buffer(2, 0), 3);
            Rig.ok(rig.op(0, "--passive-domains="));
            // Domain 2's own get_buffer zeroes the indices of the pages the primary no longer reads.
            rig.op(2, "--start-daemon");
            assertEquals(0, rig.xen.buffer(2, 0).tail() - rig.xen.buffer(2, 0).head());
            SessionSummary s = endAsDom0(rig);
            assertEquals(3, buffer(s, 2, 0).undrained(), "fixed when the primary let the buffer go");
        }
    }
}
