package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.ACTIVE;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.DB;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.DOM0;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.HVM;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.PASSIVE;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.WEB;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.hypervisor.xenoprof.XenoprofBuffer;
import org.junit.jupiter.api.Test;

/**
 * Guests that write garbage into their shared buffer (XSA-313) and daemons that stop draining, on
 * the whole machine. Each case runs next to an identical host whose guests behave: the simulation
 * is deterministic, so everything that must stay untouched is compared entry for entry.
 */
class HostileAndCarelessGuestTest {

    private static final long PERIOD = 50_000;
    private static final long HALF_MICROS = 40_000;

    private record Pair(SimHost host, Fixtures.Sampled sampled) {
    }

    private static Pair session() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        return new Pair(host, Fixtures.startSession(host, PERIOD, true, true, 0, 16, ACTIVE, PASSIVE));
    }

    /** Samples aimed at a domain's buffers so far: written, lost or corrupted. */
    private static long aimedAt(SimHost host, int domid) {
        long n = 0;
        for (XenoprofBuffer b : host.xenoprofCore().buffers(domid)) {
            n += b.userSamples() + b.kernelSamples() + b.xenSamples() + b.lostSamples() + b.corruptedSamples();
        }
        return n;
    }

    private static void assertUntouched(Pair reference, Pair other, List<Integer> domains) {
        for (int d : domains) {
            List<long[]> want = reference.sampled().entries.get(d);
            List<long[]> got = other.sampled().entries.get(d);
            assertEquals(want.size(), got.size(), "entries drained from dom" + d);
            for (int i = 0; i < want.size(); i++) {
                assertArrayEquals(want.get(i), got.get(i), "entry " + i + " of dom" + d);
            }
            XenoprofBuffer[] wb = reference.host().xenoprofCore().buffers(d);
            XenoprofBuffer[] gb = other.host().xenoprofCore().buffers(d);
            for (int v = 0; v < wb.length; v++) {
                assertEquals(wb[v].toString(), gb[v].toString(), "dom" + d + " vcpu " + v + " buffer state");
                assertEquals(wb[v].userSamples() + wb[v].kernelSamples() + wb[v].xenSamples(),
                        gb[v].userSamples() + gb[v].kernelSamples() + gb[v].xenSamples(), "dom" + d + " counts");
            }
        }
    }

    @Test
    void garbageHeadAndTailWrittenByAGuestAreCountedCorruptedAndHarmNobodyElse() throws Exception {
        Pair calm = session();
        Pair hostile = session();
        calm.host().run(HALF_MICROS, null);
        hostile.host().run(HALF_MICROS, null);
        long aimedBefore = aimedAt(calm.host(), WEB);

        SharedBuffer[] own = hostile.sampled().buffers.get(WEB);
        own[0].writeHead(9999);
        own[1].writeTail(-7);
        int head1 = own[1].head();

        calm.host().run(HALF_MICROS, null);
        hostile.host().run(HALF_MICROS, null);
        Fixtures.stopProfiling(calm.host(), calm.sampled());
        Fixtures.stopProfiling(hostile.host(), hostile.sampled());

        assertEquals(9999, own[0].head(), "nothing was written through the bad head");
        assertEquals(head1, own[1].head(), "nothing was written through the bad tail");
        XenoprofStatistics h = hostile.host().xenoprof().statistics();
        XenoprofStatistics c = calm.host().xenoprof().statistics();
        assertTrue(h.balanced(), h.toString());
        long corruptedWeb = 0;
        for (XenoprofBuffer b : hostile.host().xenoprofCore().buffers(WEB)) {
            corruptedWeb += b.corruptedSamples();
        }
        long aimedAfter = aimedAt(calm.host(), WEB) - aimedBefore;
        assertTrue(aimedAfter > 100, aimedAfter + " samples aimed at dom1 after the write");
        assertEquals(aimedAfter, corruptedWeb, "every later sample of dom1 was dropped as corrupted, per buffer");
        assertEquals(aimedAfter, h.corruptedBufferSamples(), "and globally");
        assertEquals(c.totalSamples(), h.totalSamples(), "the same samples were taken");
        assertEquals(c.passiveSamples(), h.passiveSamples());
        assertEquals(c.othersSamples(), h.othersSamples());
        assertUntouched(calm, hostile, List.of(DOM0, DB, HVM));
    }

    @Test
    void aDaemonThatStopsDrainingLosesItsNewestSamplesAndOnlyItsOwn() throws Exception {
        Pair calm = session();
        Pair careless = session();
        calm.host().run(HALF_MICROS, null);
        careless.host().run(HALF_MICROS, null);
        careless.sampled().stalled.add(WEB);
        List<long[]> drainedBefore = List.copyOf(careless.sampled().entries.get(WEB));

        calm.host().run(HALF_MICROS, null);
        careless.host().run(HALF_MICROS, null);
        careless.sampled().stalled.clear(); // the daemon comes back for the final flush
        Fixtures.stopProfiling(calm.host(), calm.sampled());
        Fixtures.stopProfiling(careless.host(), careless.sampled());

        long lost = 0;
        for (XenoprofBuffer b : careless.host().xenoprofCore().buffers(WEB)) {
            lost += b.lostSamples();
        }
        long calmLost = 0;
        for (XenoprofBuffer b : calm.host().xenoprofCore().buffers(WEB)) {
            calmLost += b.lostSamples();
        }
        XenoprofStatistics s = careless.host().xenoprof().statistics();
        XenoprofStatistics c = calm.host().xenoprof().statistics();
        assertTrue(s.balanced(), s.toString());
        assertTrue(lost - calmLost > 100, (lost - calmLost) + " more samples lost in the full rings");
        assertEquals(lost - calmLost, s.lostSamples() - c.lostSamples(), "lost per buffer and globally");
        assertEquals(c.totalSamples(), s.totalSamples(), "the same samples were taken");
        long kept = careless.sampled().entries.get(WEB).size() - drainedBefore.size();
        assertEquals(2 * 15, kept, "after the stall each vCPU's ring kept its 15 oldest entries, read at the flush");
        assertUntouched(calm, careless, List.of(DOM0, DB, HVM));
    }

    @Test
    void aPrimaryThatStopsDrainingLosesPassiveSamplesInThePassiveBuffers() throws Exception {
        Pair calm = session();
        Pair careless = session();
        careless.sampled().stalled.add(DOM0);
        careless.sampled().stalled.addAll(PASSIVE);
        calm.host().run(2 * HALF_MICROS, null);
        careless.host().run(2 * HALF_MICROS, null);
        careless.host().run(8 * HALF_MICROS, null);
        long lostPassive = 0;
        for (int d : PASSIVE) {
            for (XenoprofBuffer b : careless.host().xenoprofCore().buffers(d)) {
                lostPassive += b.lostSamples();
                assertEquals(b.size() - 1, b.unread(), "dom" + d + " vcpu " + b.vcpuId() + " is full");
            }
        }
        assertTrue(lostPassive > 0, "passive samples lost once the 2047 entries of a ring are taken");
        XenoprofStatistics s = careless.host().xenoprof().statistics();
        assertTrue(s.balanced(), s.toString());
        assertTrue(s.lostSamples() >= lostPassive);
    }
}
