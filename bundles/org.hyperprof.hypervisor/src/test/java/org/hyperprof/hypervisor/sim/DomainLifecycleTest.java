package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.events;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.ACTIVE;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.BATCH;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.DB;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.DOM0;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.HVM;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.PASSIVE;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.WEB;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.junit.jupiter.api.Test;

/** Pausing and destroying domains, in between runs and in the middle of one, and the host's counters. */
class DomainLifecycleTest {

    /**
     * What a vCPU taken off its CPU still costs its domain: the scheduler's switch away from it
     * (charged to the vCPU switched out), plus an NMI handler if an overflow lands in it.
     */
    private static final double SWITCH_OUT = 4800 + 1000;

    private static double cycles(SimHost host, int domid) {
        return events(host.groundTruth(), domid, null, Signal.CYCLES);
    }

    @Test
    void everyDomainStartsRunning() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        for (int d = 0; d <= BATCH; d++) {
            assertEquals(DomainState.RUNNING, host.domainState(d));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> host.domainState(9));
        assertTrue(e.getMessage().contains("4 (batch-pv)"), e.getMessage());
    }

    @Test
    void aPausedDomainIsNotScheduledAndResumesWhereItStoodOnUnpause() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        host.run(10_000, null);
        host.pauseDomain(BATCH);
        assertEquals(DomainState.PAUSED, host.domainState(BATCH));
        host.resetGroundTruth();
        host.run(50_000, null);
        assertTrue(cycles(host, BATCH) <= SWITCH_OUT, "a paused domain runs no more of its code, only the switch"
                + " away from it: " + cycles(host, BATCH));
        assertEquals(0.0, events(host.groundTruth(), BATCH, org.hyperprof.api.pmu.CpuMode.USER, Signal.CYCLES));
        assertTrue(cycles(host, WEB) > 0 && cycles(host, HVM) > 0, "the others run");
        host.unpauseDomain(BATCH);
        assertEquals(DomainState.RUNNING, host.domainState(BATCH));
        host.resetGroundTruth();
        host.run(50_000, null);
        assertTrue(cycles(host, BATCH) > 0, "unpaused, it runs again");
        Map<String, Long> c = host.counters();
        assertEquals(1, c.get("domains.paused"));
        assertEquals(1, c.get("domains.unpaused"));
    }

    @Test
    void pausingChangesNothingButScheduling() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        Fixtures.Sampled sampled = Fixtures.startSession(host, 50_000, true, true, 0, 16, ACTIVE, PASSIVE);
        host.run(20_000, null);
        int[] activeBefore = host.xenoprof().activeList();
        host.pauseDomain(WEB);
        host.pauseDomain(WEB); // already paused: nothing more happens
        host.pauseDomain(DB);
        assertArrayEquals(activeBefore, host.xenoprof().activeList());
        assertEquals(DomainType.ACTIVE, host.xenoprof().domainType(WEB));
        assertEquals(DomainType.PASSIVE, host.xenoprof().domainType(DB));
        long webWritten = written(host, WEB);
        host.resetGroundTruth();
        host.run(20_000, null);
        assertTrue(cycles(host, WEB) <= 2 * SWITCH_OUT, "dom1's two vCPUs only switch away");
        assertTrue(written(host, WEB) - webWritten <= 2, "a paused domain takes no samples but in its switch-out");
        assertEquals(2, host.counters().get("domains.paused"), "pausing dom1 twice and dom2 once: two events");
        host.unpauseDomain(WEB);
        host.unpauseDomain(DB);
        host.unpauseDomain(DB);
        assertEquals(2, host.counters().get("domains.unpaused"));
        host.run(20_000, null);
        Fixtures.stopProfiling(host, sampled);
        assertTrue(written(host, WEB) > webWritten + 10);
        assertTrue(host.xenoprof().statistics().balanced());
    }

    private static long written(SimHost host, int domid) {
        long n = 0;
        for (var b : host.xenoprofCore().buffers(domid)) {
            n += b.userSamples() + b.kernelSamples() + b.xenSamples();
        }
        return n;
    }

    @Test
    void theHardwareDomainCanBeNeitherPausedNorDestroyed() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        IllegalArgumentException p = assertThrows(IllegalArgumentException.class, () -> host.pauseDomain(DOM0));
        assertTrue(p.getMessage().contains("hardware domain"), p.getMessage());
        assertThrows(IllegalArgumentException.class, () -> host.destroyDomain(DOM0));
        assertThrows(IllegalArgumentException.class, () -> host.pauseDomain(42));
        assertEquals(DomainState.RUNNING, host.domainState(DOM0));
    }

    @Test
    void aDestroyedPassiveDomainLeavesTheListNeverRunsAgainAndIsAMissingDomainToXen() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        Fixtures.Sampled sampled = Fixtures.startSession(host, 50_000, true, true, 0, 16, ACTIVE, PASSIVE);
        host.run(20_000, null);
        sampled.stalled.add(DB); // what dom2 left in its buffers is never drained
        host.run(5_000, null);
        host.destroyDomain(DB);

        assertEquals(DomainState.DESTROYED, host.domainState(DB));
        assertArrayEquals(new int[] {HVM}, host.xenoprof().passiveList());
        assertEquals(DomainType.IGNORED, host.xenoprof().domainType(DB));
        assertEquals(0, host.xenoprofCore().buffers(DB).length, "its buffers are freed");
        assertTrue(host.counters().get("xenoprof.destroyed.undrained") > 0, "what it left unread is counted");
        assertFalse(host.domainExists(DB));
        assertThrows(IllegalStateException.class, () -> host.xenoprof().mapBuffers(DOM0, DB));
        IllegalArgumentException gone = assertThrows(IllegalArgumentException.class,
                () -> host.xenoprof().hypercall(DB, XenoprofOp.INIT, new XenoprofInit()), "it issues no hypercall");
        assertTrue(gone.getMessage().contains("domain 2 was destroyed"), gone.getMessage());

        host.resetGroundTruth();
        host.run(30_000, null);
        assertTrue(cycles(host, DB) <= 2 * SWITCH_OUT, "a destroyed domain never runs again");
        host.resetGroundTruth();
        host.run(10_000, null);
        assertEquals(0.0, cycles(host, DB), "not even the scheduler's switch away from it");
        Fixtures.stopProfiling(host, sampled);
        XenoprofStatistics s = host.xenoprof().statistics();
        assertTrue(s.balanced(), s.toString());

        // Later calls naming it get what Xen answers for a domain that does not exist.
        assertEquals(0, host.xenoprof().hypercall(DOM0, XenoprofOp.RELEASE_COUNTERS, null));
        assertEquals(Errno.EINVAL.ret(), host.xenoprof().hypercall(DOM0, XenoprofOp.SET_PASSIVE,
                new XenoprofPassive(DB, 2048)));
        assertEquals(Errno.EINVAL.ret(), host.xenoprof().hypercall(DOM0, XenoprofOp.SET_ACTIVE, DB));
        String why = host.xenoprof().explain(DOM0, XenoprofOp.SET_ACTIVE, Errno.EINVAL.ret());
        assertTrue(why.contains("domain 2 was destroyed during the session"), why);

        IllegalStateException again = assertThrows(IllegalStateException.class, () -> host.destroyDomain(DB));
        assertTrue(again.getMessage().contains("already destroyed"), again.getMessage());
        assertThrows(IllegalStateException.class, () -> host.pauseDomain(DB));
        assertThrows(IllegalStateException.class, () -> host.unpauseDomain(DB));
        assertEquals(1, host.counters().get("domains.destroyed"));
    }

    @Test
    void destroyingAnActiveDomainWhileProfilingLetsTheSessionStopAndFlushTheOthers() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        Fixtures.Sampled sampled = Fixtures.startSession(host, 50_000, true, true, 0, 16, ACTIVE, PASSIVE);
        host.run(20_000, null);
        host.destroyDomain(WEB);
        assertArrayEquals(new int[] {DOM0}, host.xenoprof().activeList());
        assertEquals(1, host.xenoprof().activated());
        host.run(20_000, null);
        assertEquals(0, host.xenoprof().hypercall(DOM0, XenoprofOp.STOP, null));
        assertEquals(XenoprofState.READY, host.xenoprof().state());
        assertTrue(host.xenoprof().statistics().balanced());
        assertTrue(sampled.mainSamples(DOM0, false).size() > 0);
    }

    @Test
    void pauseAndDestroyFromAnotherThreadTakeEffectBetweenQuantaOfARunningHost() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        Fixtures.Sampled sampled = Fixtures.startSession(host, 50_000, true, true, 0, 16, ACTIVE, PASSIVE);
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                host.run(400_000, (done, total, taken) -> started.countDown());
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "host-run");
        runner.start();
        assertTrue(started.await(10, TimeUnit.SECONDS));
        host.pauseDomain(BATCH);
        host.destroyDomain(DB);
        host.unpauseDomain(BATCH);
        host.pauseDomain(HVM);
        runner.join(60_000);
        assertFalse(runner.isAlive());
        assertNull(failure.get(), () -> "the run failed: " + failure.get());
        assertEquals(DomainState.DESTROYED, host.domainState(DB));
        assertEquals(DomainState.PAUSED, host.domainState(HVM));
        host.resetGroundTruth();
        host.run(20_000, null);
        assertEquals(0.0, cycles(host, DB));
        assertEquals(0.0, cycles(host, HVM));
        assertTrue(cycles(host, BATCH) > 0);
        Fixtures.stopProfiling(host, sampled);
        assertTrue(host.xenoprof().statistics().balanced());
    }

    @Test
    void aChangeAskedForWhileAVirqHandlerRunsNeitherWaitsForTheRunNorLandsInsideTheHandler() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        Fixtures.startSession(host, 50_000, true, true, 0, 16, ACTIVE, PASSIVE);
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        host.xenoprof().bindVirq(WEB, vcpu -> {
            if (inHandler.getCount() > 0) {
                inHandler.countDown();
                try {
                    // The daemon is busy inside the quantum; the shell meanwhile pauses a guest.
                    assertTrue(release.await(20, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                host.run(50_000, null);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "host-run");
        runner.start();
        assertTrue(inHandler.await(20, TimeUnit.SECONDS));
        host.pauseDomain(BATCH); // returns although the run holds the machine
        assertEquals(DomainState.RUNNING, host.domainState(BATCH), "the machine has not paused it yet");
        assertEquals(0, host.counters().get("domains.paused"), "it reaches the machine at the next safe point");
        release.countDown();
        runner.join(60_000);
        assertNull(failure.get(), () -> "the run failed: " + failure.get());
        assertEquals(1, host.counters().get("domains.paused"));
        assertEquals(DomainState.PAUSED, host.domainState(BATCH), "and shows once it has");
        host.resetGroundTruth();
        host.run(10_000, null);
        assertEquals(0.0, cycles(host, BATCH));
    }

    @Test
    void theCountersNameTheMachinesEventsWithStableKeys() throws Exception {
        SimHost host = Fixtures.defaultHost();
        // A period shorter than the 1000-cycle NMI handler: the counter, re-armed in the handler, overflows again
        // before the handler returns.
        Fixtures.profile(host, 700, true, true, 2_000);
        Map<String, Long> c = host.counters();
        assertEquals(List.of("interrupts.taken", "interrupts.blocked", "samples.taken", "overflows.guest",
                "interrupts.virtual", "vcpu.switches", "slices", "slices.pieces", "halted.cycles", "domains.paused",
                "domains.unpaused", "domains.destroyed", "xenoprof.destroyed.undrained", "virq.raised",
                "virq.coalesced", "virq.sent", "virq.unbound", "virq.flush", "trace.entries.lost",
                "trace.entries.corrupted", "trace.escape.rejected", "xenoprof.ibs.blocks", "xenoprof.ibs.entries",
                "interrupts.postponed.mode.ignore", "interrupts.postponed.mode.owner", "interrupts.postponed.mode.poll",
                "interrupts.postponed", "interrupts.postponed.dropped", "samples.postponed.dropped",
                "interrupts.postponed.reattributed", "interrupts.polled", "interrupts.postponed.withdrawn",
                "interrupts.lost", "interrupts.misattributed", "interrupts.postponed.delay.cycles",
                "interrupts.postponed.delay.max", "interrupts.policy", "scenario.seed", "vpmu.cycles.charged", "guest.trap.cycles",
                "guest.handler.cycles", "vpmu.cycles", "guest.samples", "guest.samples.lost", "guest.samples.discarded",
                "guest.interrupts.delivered", "guest.interrupts.coalesced", "guest.interrupts.spurious",
                "guest.interrupts.unhandled", "guest.accesses", "guest.accesses.trapped", "guest.profilers.nopmu",
                "guest.profilers.refused", "vpmu.guest.refused"), List.copyOf(c.keySet()));
        // An NMI is gated by no MSR[EE]: nothing is postponed on a P6, whatever the handling.
        assertEquals(1L, c.get("interrupts.postponed.mode.ignore"));
        assertEquals(0L, c.get("interrupts.postponed"));
        assertEquals(0L, c.get("interrupts.lost"));
        // An NMI that waited behind the handler (whose Xen code ran when its counter overflowed) is charged to
        // the code the handler returns to: misattributed only when that code is not Xen's of the same vCPU.
        assertTrue(c.get("interrupts.misattributed") <= c.get("interrupts.blocked"), c.toString());
        assertEquals(host.interruptsTaken(), c.get("interrupts.taken"));
        assertEquals(host.samplesTaken(), c.get("samples.taken"));
        assertEquals(host.vcpuSwitches(), c.get("vcpu.switches"));
        assertEquals(host.workSlices(), c.get("slices"));
        assertEquals(host.haltedCycles(0) + host.haltedCycles(1), c.get("halted.cycles"));
        assertTrue(c.get("interrupts.blocked") > 0, "overflows asserted behind a running handler");
        assertTrue(c.get("interrupts.blocked") < c.get("interrupts.taken"));
        assertTrue(c.get("virq.sent") > 0 && c.get("virq.raised") >= c.get("virq.sent") - c.get("virq.flush"));
        assertEquals(2, c.get("virq.flush"), "stop flushed the one vCPU of each of the two ready domains");
        assertThrows(UnsupportedOperationException.class, () -> c.put("x", 1L));
    }

    @Test
    void noInterruptIsBlockedWhenTheHandlerIsShortAgainstThePeriod() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.profile(host, 1_000_000, true, true, 20_000);
        assertTrue(host.counters().get("interrupts.taken") > 50);
        assertEquals(0, host.counters().get("interrupts.blocked"), "a 1000-cycle handler and a 10^6-cycle period");
    }
}
