package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.Steps.DOM0;
import static org.hyperprof.hypervisor.xenoprof.Steps.DOMU;
import static org.hyperprof.hypervisor.xenoprof.Steps.OTHER;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.IDLE_DOMID;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.MODE_KERNEL;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.MODE_USER;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.MODE_XEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.junit.jupiter.api.Test;

/** The NMI path: xenoprof_log_event (section 5.2), call traces (section 7) and VIRQ_XENOPROF (section 4.5). */
class XenoprofNmiTest {
    private static final long[] NO_STACK = new long[0];
    private static final long PC = 0xffffffff80123456L;

    /** One NMI on {@code pcpu} that finds {@code counters} overflowed. */
    private static int nmi(Steps s, int pcpu, int domid, int vcpu, int mode, int... counters) {
        s.machine.fakePmu(pcpu).overflowNext(counters);
        return s.core.nmi(pcpu, domid, vcpu, mode, PC, NO_STACK, 0, OverflowRouter.SYSTEM_WIDE);
    }

    private static SharedBuffer buffer(Steps s, int domid, int vcpu) {
        return s.core.mapBuffers(domid, domid)[vcpu];
    }

    private static List<Integer> bindRecorder(Steps s, int domid) {
        List<Integer> got = new ArrayList<>();
        s.core.bindVirq(domid, got::add);
        return got;
    }

    // --- sample routing ---------------------------------------------------------------------------

    @Test
    void nothingHappensBeforeThePrimaryInstallsTheCallback() {
        Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(1000);
        assertEquals(0, nmi(s, 0, DOMU, 0, MODE_USER, 0));
        assertTrue(s.machine.fakePmu(0).interruptPending(), "check_ctrs did not run");
        assertEquals(0, s.core.statistics().totalSamples());
    }

    @Test
    void aSampleGoesIntoTheBufferOfTheVcpuThatWasRunning() {
        Steps s = Steps.profiling();
        assertEquals(1, nmi(s, 1, DOMU, 1, MODE_KERNEL, 0));
        SharedBuffer b = buffer(s, DOMU, 1);
        assertEquals(1, b.head());
        assertEquals(PC, b.eip(0));
        assertEquals(MODE_KERNEL, b.mode(0));
        assertEquals(0, b.event(0));
        assertEquals(1, b.kernelSamples());
        assertEquals(0, buffer(s, DOMU, 0).head(), "vcpu 0's buffer is untouched");
        XenoprofStatistics st = s.core.statistics();
        assertEquals(1, st.totalSamples());
        assertEquals(1, st.activeSamples());
    }

    @Test
    void theEventFieldCarriesTheIndexOfTheOverflowedCounterAndEachOverflowIsASample() {
        Steps s = Steps.profiling();
        assertEquals(2, nmi(s, 0, DOM0, 0, MODE_USER, 1, 0));
        SharedBuffer b = buffer(s, DOM0, 0);
        assertEquals(1, b.event(0));
        assertEquals(0, b.event(1));
        assertEquals(2, b.userSamples());
    }

    @Test
    void xenModeSamplesGoToTheBufferOfTheDomainWhoseVcpuWasCurrent() {
        Steps s = Steps.profiling();
        nmi(s, 0, DOMU, 0, MODE_XEN, 0);
        SharedBuffer b = buffer(s, DOMU, 0);
        assertEquals(MODE_XEN, b.mode(0));
        assertEquals(1, b.xenSamples());
    }

    @Test
    void samplesOfAnUnlistedDomainAreDroppedAsOthers() {
        Steps s = Steps.profiling();
        s.getBuffer(OTHER, 16); // has a buffer, but is neither active nor passive
        nmi(s, 0, OTHER, 0, MODE_USER, 0);
        XenoprofStatistics st = s.core.statistics();
        assertEquals(1, st.othersSamples());
        assertEquals(0, st.idleSamples());
        assertEquals(0, buffer(s, OTHER, 0).head());
    }

    @Test
    void idleDomainSamplesAreOthersAndCountedAsIdle() {
        Steps s = Steps.profiling();
        nmi(s, 1, IDLE_DOMID, 1, MODE_XEN, 0);
        XenoprofStatistics st = s.core.statistics();
        assertEquals(1, st.totalSamples());
        assertEquals(1, st.othersSamples());
        assertEquals(1, st.idleSamples());
    }

    @Test
    void aVcpuWithoutBufferMakesTheSampleInvalid() {
        Steps s = Steps.profiling();
        nmi(s, 0, DOMU, 7, MODE_USER, 0); // dom3 has vCPUs 0 and 1 only
        assertEquals(1, s.core.statistics().invalidBufferSamples());
    }

    @Test
    void passiveSamplesAreWrittenIntoThePassiveBufferAndCountedPassive() {
        Steps s = Steps.standard().initialized(DOM0);
        s.setPassive(OTHER, 2048);
        s.reserved().programmed(1000).enabled(DOM0).started();
        nmi(s, 0, OTHER, 0, MODE_KERNEL, 0);
        SharedBuffer b = s.core.mapBuffers(DOM0, OTHER)[0];
        assertEquals(1, b.head());
        assertEquals(1, b.kernelSamples());
        assertEquals(1, s.core.statistics().passiveSamples());
    }

    @Test
    void aFullRingLosesTheNewestSampleAndCountsItPerBufferAndGlobally() {
        Steps s = Steps.profiling();
        for (int i = 0; i < 15; i++) {
            nmi(s, 0, DOMU, 0, MODE_USER, 0);
        }
        SharedBuffer b = buffer(s, DOMU, 0);
        assertEquals(15, b.head(), "16 slots hold 15 samples");
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        assertEquals(1, b.lostSamples());
        assertEquals(15, b.userSamples(), "per-mode counters count written samples only");
        assertEquals(1, s.core.statistics().lostSamples());
        b.writeTail(5);
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        assertEquals(0, b.head(), "space freed by the consumer is used, wrapping to slot 0");
    }

    @Test
    void anOutOfRangeHeadWrittenByTheGuestIsCountedCorruptedAndNothingIsWritten() {
        Steps s = Steps.profiling();
        SharedBuffer b = buffer(s, DOMU, 0);
        b.writeHead(16);
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        b.writeHead(0);
        b.writeTail(-3);
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        XenoprofStatistics st = s.core.statistics();
        assertEquals(2, st.corruptedBufferSamples());
        assertEquals(0, st.lostSamples());
        assertEquals(0, b.eip(0));
        assertTrue(st.balanced());
        assertEquals(2, s.core.buffers(DOMU)[0].corruptedSamples(), "counted on the buffer the samples aimed at");
        assertEquals(0, s.core.buffers(DOMU)[1].corruptedSamples());
    }

    @Test
    void policyDropIsCountedAsDroppedAndGuestRoutingIsNotASample() {
        Steps s = Steps.profiling();
        s.machine.fakePmu(0).overflowNext(0, 1);
        OverflowRouter router = (pcpu, domid, vcpu, counter, mode) -> counter == 0 ? OverflowRoute.DROP
                : OverflowRoute.GUEST;
        assertEquals(1, s.core.nmi(0, DOMU, 0, MODE_USER, PC, NO_STACK, 0, router));
        XenoprofStatistics st = s.core.statistics();
        assertEquals(1, st.totalSamples());
        assertEquals(1, st.dropped());
        assertEquals(1, s.core.diagnostics().policyDroppedSamples());
        assertEquals(1, s.core.diagnostics().guestRoutedOverflows());
        assertEquals(0, buffer(s, DOMU, 0).head());
    }

    @Test
    void theRouterIsAskedWithTheSampleContext() {
        Steps s = Steps.profiling();
        s.machine.fakePmu(1).overflowNext(1);
        List<String> asked = new ArrayList<>();
        s.core.nmi(1, DOMU, 1, MODE_KERNEL, PC, NO_STACK, 0, (pcpu, domid, vcpu, counter, mode) -> {
            asked.add(pcpu + "/" + domid + "/" + vcpu + "/" + counter + "/" + mode);
            return OverflowRoute.XENOPROF;
        });
        assertEquals(List.of("1/3/1/1/KERNEL"), asked);
    }

    @Test
    void releaseCountersRemovesTheCallback() {
        Steps s = Steps.profiling();
        s.ok(DOM0, XenoprofOp.STOP, null);
        s.ok(DOM0, XenoprofOp.RELEASE_COUNTERS, null);
        assertEquals(0, nmi(s, 0, DOMU, 0, MODE_USER, 0));
    }

    @Test
    void thePrimarysEnableVirqResetsTheStatistics() {
        Steps s = Steps.profiling();
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        s.ok(DOM0, XenoprofOp.STOP, null);
        s.ok(DOM0, XenoprofOp.RELEASE_COUNTERS, null);
        s.reserved().programmed(1000);
        assertEquals(1, s.core.statistics().totalSamples());
        s.enabled(DOM0);
        assertEquals(0, s.core.statistics().totalSamples());
    }

    @Test
    void aBadNmiArgumentIsATypedError() {
        Steps s = Steps.profiling();
        assertThrows(IllegalArgumentException.class,
                () -> s.core.nmi(9, DOMU, 0, MODE_USER, PC, NO_STACK, 0, OverflowRouter.SYSTEM_WIDE));
        assertThrows(IllegalArgumentException.class,
                () -> s.core.nmi(0, DOMU, 0, 3, PC, NO_STACK, 0, OverflowRouter.SYSTEM_WIDE));
        assertThrows(IllegalArgumentException.class,
                () -> s.core.nmi(0, DOMU, 0, MODE_USER, PC, NO_STACK, 2, OverflowRouter.SYSTEM_WIDE));
    }

    // --- call traces ------------------------------------------------------------------------------

    private static Steps tracing(long depth) {
        Steps s = Steps.standard().initialized(DOM0, DOMU);
        s.ok(DOM0, XenoprofOp.SET_BACKTRACE, depth);
        return s.reserved().programmed(1000).enabled(DOM0, DOMU).started();
    }

    private static void tracedNmi(Steps s, int mode, long... stack) {
        s.machine.fakePmu(0).overflowNext(1);
        s.core.nmi(0, DOMU, 0, mode, PC, stack, stack.length, OverflowRouter.SYSTEM_WIDE);
    }

    @Test
    void aCallTraceIsEscapeRecordThenSampleThenReturnAddresses() {
        Steps s = tracing(3);
        tracedNmi(s, MODE_KERNEL, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5);
        SharedBuffer b = buffer(s, DOMU, 0);
        assertEquals(5, b.head(), "escape + sample + depth 3");
        assertEquals(SharedBuffer.ESCAPE_CODE, b.eip(0));
        assertEquals(MODE_KERNEL, b.mode(0));
        assertEquals(SharedBuffer.TRACE_BEGIN, b.event(0));
        assertEquals(PC, b.eip(1));
        assertEquals(1, b.event(1), "the sample carries the counter");
        for (int i = 0; i < 3; i++) {
            assertEquals(0xa1 + i, b.eip(2 + i));
            assertEquals(MODE_KERNEL, b.mode(2 + i));
            assertEquals(0, b.event(2 + i));
        }
        assertEquals(1, b.kernelSamples(), "trace entries do not count as samples");
        assertEquals(1, s.core.statistics().activeSamples());
    }

    @Test
    void aShallowStackGivesOnlyItsFrames() {
        Steps s = tracing(8);
        tracedNmi(s, MODE_USER, 0xb1);
        assertEquals(3, buffer(s, DOMU, 0).head());
    }

    @Test
    void aCallTraceNeedsTwoFreeSlotsOrTheSampleIsLostOnce() {
        Steps s = tracing(2);
        SharedBuffer b = buffer(s, DOMU, 0);
        b.writeHead(14); // 16 slots, tail 0: one free slot
        tracedNmi(s, MODE_USER, 0xc1);
        assertEquals(14, b.head(), "nothing written");
        assertEquals(1, b.lostSamples());
        XenoprofStatistics st = s.core.statistics();
        assertEquals(1, st.lostSamples(), "counted once, not twice");
        assertTrue(st.balanced());
    }

    @Test
    void aFullRingCutsTheTraceButKeepsTheSampleDelivered() {
        Steps s = tracing(5);
        SharedBuffer b = buffer(s, DOMU, 0);
        b.writeHead(12); // three free slots: escape, sample, one frame
        tracedNmi(s, MODE_USER, 0xd1, 0xd2, 0xd3);
        assertEquals(15, b.head());
        assertEquals(0xd1, b.eip(14));
        assertEquals(0, b.lostSamples(), "the sample itself was not lost");
        assertEquals(1, s.core.diagnostics().traceEntriesLost());
        assertEquals(1, s.core.diagnostics().xenLostSamples(), "Xen's own counter would show it");
        XenoprofStatistics st = s.core.statistics();
        assertEquals(1, st.activeSamples());
        assertTrue(st.balanced());
    }

    @Test
    void aReturnAddressEqualToTheEscapeValueStopsTheWalkAndIsInvalid() {
        Steps s = tracing(5);
        tracedNmi(s, MODE_USER, 0xe1, SharedBuffer.ESCAPE_CODE, 0xe3);
        SharedBuffer b = buffer(s, DOMU, 0);
        assertEquals(3, b.head(), "escape, sample, 0xe1, then the walk stopped");
        assertEquals(1, s.core.diagnostics().traceEscapeRejected());
        assertEquals(1, s.core.diagnostics().xenInvalidBufferSamples());
        assertTrue(s.core.statistics().balanced());
    }

    @Test
    void xenModeSamplesCarryNoFramesWhenXenHasNoFramePointers() {
        Steps s = tracing(3);
        tracedNmi(s, MODE_XEN, 0xa1, 0xa2, 0xa3);
        SharedBuffer b = buffer(s, DOMU, 0);
        assertEquals(2, b.head(), "escape record and sample only: Xen's stack is not walked");
        assertEquals(MODE_XEN, b.mode(0));
        tracedNmi(s, MODE_KERNEL, 0xb1, 0xb2);
        assertEquals(6, b.head(), "a guest's frames are always walked");
    }

    @Test
    void xenModeSamplesAreWalkedWhenXenWasBuiltWithFramePointers() {
        FakeMachine machine = FakeMachine.standard();
        machine.framePointers = true;
        Steps s = new Steps(machine).initialized(DOM0, DOMU);
        s.ok(DOM0, XenoprofOp.SET_BACKTRACE, 3L);
        s.reserved().programmed(1000).enabled(DOM0, DOMU).started();
        tracedNmi(s, MODE_XEN, 0xa1, 0xa2, 0xa3, 0xa4);
        SharedBuffer b = buffer(s, DOMU, 0);
        assertEquals(5, b.head());
        assertEquals(0xa3, b.eip(4));
        assertEquals(MODE_XEN, b.mode(4));
    }

    @Test
    void passiveSamplesGetCallTracesToo() {
        Steps s = Steps.standard().initialized(DOM0);
        s.setPassive(OTHER, 2048);
        s.ok(DOM0, XenoprofOp.SET_BACKTRACE, 2L);
        s.reserved().programmed(1000).enabled(DOM0).started();
        s.machine.fakePmu(0).overflowNext(0);
        s.core.nmi(0, OTHER, 0, MODE_KERNEL, PC, new long[] {0xf1, 0xf2, 0xf3}, 3, OverflowRouter.SYSTEM_WIDE);
        assertEquals(4, s.core.mapBuffers(DOM0, OTHER)[0].head());
    }

    // --- VIRQ_XENOPROF ----------------------------------------------------------------------------

    @Test
    void aGuestModeSampleOfAnActiveDomainSendsTheVirqFromTheContinuation() {
        Steps s = Steps.profiling();
        List<Integer> got = bindRecorder(s, DOMU);
        nmi(s, 0, DOMU, 1, MODE_USER, 0);
        assertEquals(List.of(), got, "not from NMI context");
        s.core.nmiContinuation(0);
        assertEquals(List.of(1), got);
        s.core.nmiContinuation(0);
        assertEquals(List.of(1), got, "the slot was cleared");
    }

    @Test
    void severalNmisOnOnePcpuCoalesceIntoOneVirq() {
        Steps s = Steps.profiling();
        List<Integer> dom3 = bindRecorder(s, DOMU);
        List<Integer> dom0 = bindRecorder(s, DOM0);
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        nmi(s, 0, DOMU, 1, MODE_KERNEL, 0);
        nmi(s, 0, DOM0, 0, MODE_USER, 0);
        s.core.nmiContinuation(0);
        assertEquals(List.of(0), dom3, "the first NMI's vCPU is notified");
        assertEquals(List.of(), dom0, "a notification was already pending on pcpu 0");
        assertEquals(2, s.core.diagnostics().virqsCoalesced());
    }

    @Test
    void eachPcpuHasItsOwnPendingSlot() {
        Steps s = Steps.profiling();
        List<Integer> got = bindRecorder(s, DOMU);
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        nmi(s, 1, DOMU, 1, MODE_USER, 0);
        s.core.nmiContinuation(0);
        s.core.nmiContinuation(1);
        assertEquals(List.of(0, 1), got);
    }

    @Test
    void noVirqForXenModePassiveIgnoredOrIdleSamples() {
        Steps s = Steps.standard().initialized(DOM0, DOMU);
        s.setPassive(OTHER, 2048);
        s.reserved().programmed(1000).enabled(DOM0, DOMU).started();
        List<Integer> dom3 = bindRecorder(s, DOMU);
        List<Integer> dom5 = bindRecorder(s, OTHER);
        nmi(s, 0, DOMU, 0, MODE_XEN, 0);
        s.core.nmiContinuation(0);
        nmi(s, 0, OTHER, 0, MODE_USER, 0);
        s.core.nmiContinuation(0);
        nmi(s, 0, IDLE_DOMID, 0, MODE_KERNEL, 0);
        s.core.nmiContinuation(0);
        assertEquals(List.of(), dom3);
        assertEquals(List.of(), dom5);
        assertEquals(0, s.core.diagnostics().virqsRaised());
    }

    @Test
    void noVirqWhenNoCounterOverflowed() {
        Steps s = Steps.profiling();
        List<Integer> got = bindRecorder(s, DOMU);
        nmi(s, 0, DOMU, 0, MODE_USER);
        s.core.nmiContinuation(0);
        assertEquals(List.of(), got);
    }

    @Test
    void aVirqToAnUnboundDomainGoesNowhere() {
        Steps s = Steps.profiling();
        nmi(s, 0, DOMU, 0, MODE_USER, 0);
        s.core.nmiContinuation(0);
        assertEquals(1, s.core.diagnostics().virqsUnbound());
    }

    @Test
    void stopFlushesEveryVcpuOfEveryReadyActiveDomainAfterTheStateChangeAndOutsideTheLock() {
        FakeMachine m = FakeMachine.standard().domain(6, 3);
        Steps s = new Steps(m).initialized(DOM0, DOMU, 6).reserved().programmed(1000).enabled(DOM0, DOMU, 6)
                .started();
        List<String> flushed = new ArrayList<>();
        for (int d : new int[] {DOM0, DOMU, 6}) {
            s.core.bindVirq(d, vcpu -> {
                // Another thread can take the Xenoprof lock: stop does not hold it while flushing.
                int listed = CompletableFuture.supplyAsync(s.core::activeListSize).orTimeout(5, TimeUnit.SECONDS)
                        .join();
                flushed.add(d + "/" + vcpu + "/" + s.core.state() + "/" + listed);
            });
        }
        s.ok(DOM0, XenoprofOp.STOP, null);
        assertEquals(List.of("0/0/READY/3", "0/1/READY/3", "3/0/READY/3", "3/1/READY/3", "6/0/READY/3",
                "6/1/READY/3", "6/2/READY/3"), flushed);
        assertEquals(7, s.core.diagnostics().flushVirqs());
    }

    @Test
    void stopDoesNotFlushListedDomainsThatAreNotReady() {
        Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(1000);
        s.enabled(DOM0, DOM0).started(); // quirk (d): dom3 never became ready
        List<Integer> dom3 = bindRecorder(s, DOMU);
        s.ok(DOM0, XenoprofOp.STOP, null);
        assertEquals(List.of(), dom3);
        assertEquals(XenoprofState.READY, s.core.state());
    }

    @Test
    void aFailingHandlerDoesNotKeepTheFlushFromTheOthers() {
        Steps s = Steps.profiling();
        s.core.bindVirq(DOM0, v -> {
            throw new IllegalStateException("daemon crashed");
        });
        List<Integer> dom3 = bindRecorder(s, DOMU);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> s.call(DOM0, XenoprofOp.STOP, null));
        assertTrue(e.getMessage().contains("domain 0 vcpu 0"), e.getMessage());
        assertEquals(List.of(0, 1), dom3);
        assertEquals(XenoprofState.READY, s.core.state());
    }

    // --- accounting and the hot path ----------------------------------------------------------------

    @Test
    void theBooksBalanceAfterAMixedWorkload() {
        Steps s = Steps.standard().initialized(DOM0, DOMU);
        s.setPassive(OTHER, 64);
        s.ok(DOM0, XenoprofOp.SET_BACKTRACE, 3L);
        s.reserved().programmed(1000).enabled(DOM0, DOMU).started();
        SharedBuffer[] dom3 = s.core.mapBuffers(DOMU, DOMU);
        Random rnd = new Random(42);
        int[] domids = {DOM0, DOMU, OTHER, IDLE_DOMID, 7};
        OverflowRouter router = (pcpu, domid, vcpu, counter, mode) -> {
            int r = (pcpu * 31 + domid * 7 + vcpu * 3 + counter) % 10;
            return r == 0 ? OverflowRoute.DROP : r == 1 ? OverflowRoute.GUEST : OverflowRoute.XENOPROF;
        };
        long taken = 0;
        for (int i = 0; i < 5000; i++) {
            int pcpu = rnd.nextInt(2);
            s.machine.fakePmu(pcpu).overflowNext(rnd.nextBoolean() ? new int[] {0} : new int[] {0, 1});
            long[] stack = {rnd.nextInt(10) == 0 ? SharedBuffer.ESCAPE_CODE : 0x1000 + i, 0x2000, 0x3000, 0x4000};
            int vcpu = rnd.nextInt(3);
            taken += s.core.nmi(pcpu, domids[rnd.nextInt(domids.length)], vcpu, rnd.nextInt(3), PC, stack,
                    rnd.nextInt(5), router);
            s.core.nmiContinuation(pcpu);
            if (rnd.nextInt(7) == 0) {
                dom3[0].writeTail(dom3[0].head()); // the daemon drains now and then
            }
            if (rnd.nextInt(200) == 0) {
                dom3[1].writeHead(rnd.nextInt(64) - 16); // a hostile guest
            }
        }
        XenoprofStatistics st = s.core.statistics();
        assertTrue(st.balanced(), st.toString());
        assertEquals(taken, st.totalSamples());
        assertTrue(st.activeSamples() > 0 && st.passiveSamples() > 0 && st.lostSamples() > 0
                && st.othersSamples() > 0 && st.idleSamples() > 0 && st.invalidBufferSamples() > 0
                && st.corruptedBufferSamples() > 0, "every fate occurred: " + st);
        long perBuffer = 0;
        for (SharedBuffer b : dom3) {
            perBuffer += b.userSamples() + b.kernelSamples() + b.xenSamples();
        }
        for (SharedBuffer b : s.core.mapBuffers(DOM0, DOM0)) {
            perBuffer += b.userSamples() + b.kernelSamples() + b.xenSamples();
        }
        assertEquals(st.activeSamples(), perBuffer, "per-mode buffer counters add up to the active samples");
    }

    @Test
    void theNmiPathAllocatesNothing() {
        Steps s = Steps.standard().initialized(DOM0, DOMU);
        s.ok(DOM0, XenoprofOp.SET_BACKTRACE, 2L);
        s.reserved().programmed(1000).enabled(DOM0, DOMU).started();
        s.core.bindVirq(DOMU, vcpu -> { });
        SharedBuffer b = buffer(s, DOMU, 0);
        s.machine.fakePmu(0).overflowAlways(0, 1);
        long[] stack = {0x10, 0x20, 0x30};
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Runnable burst = () -> {
            for (int i = 0; i < 20000; i++) {
                s.core.nmi(0, i % 3 == 0 ? IDLE_DOMID : DOMU, 0, i % 3, PC, stack, 3, OverflowRouter.SYSTEM_WIDE);
                s.core.nmiContinuation(0);
                b.writeTail(b.head());
            }
        };
        burst.run(); // the interpreter and JIT compilation allocate while warming up
        // Even 8 bytes per sample would show as 320 KB in every burst; the quietest burst must be empty.
        long quietest = Long.MAX_VALUE;
        for (int k = 0; k < 5; k++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            burst.run();
            quietest = Math.min(quietest, mx.getCurrentThreadAllocatedBytes() - before);
        }
        assertTrue(quietest < 1024, "40000 samples allocated " + quietest + " bytes in the quietest burst");
    }
}
