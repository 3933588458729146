package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.Steps.DOM0;
import static org.hyperprof.hypervisor.xenoprof.Steps.DOMU;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.IDLE_DOMID;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.MODE_KERNEL;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.MODE_USER;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.MODE_XEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.junit.jupiter.api.Test;

/**
 * AMD IBS in Xenoprof (facts 3.2 ops 16 and 17, 4.4, 6.3, 6.7): the capability op, the stored
 * configuration, its programming where IBS exists, the blocks of pseudo-PC entries in the buffer,
 * and the VIRQ rule's "every AMD NMI is an overflow".
 */
class XenoprofIbsTest {
    /** CPUID 0x8000001B EAX of a family 10h part: valid, fetch and op sampling, RdWrOpCnt, OpCnt. */
    private static final long CAPS = 0x1F;
    private static final long PC = 0xffffffff80123456L;
    private static final long RIP = 0x00007f3c5a8f9040L;
    /** An op block as Xen logs it: marker 14, the RIP, then RIP, data 1-3, DC linear and physical in halves. */
    private static final long[] OP_BLOCK = opBlock();

    private static long[] opBlock() {
        long[] b = new long[14];
        b[0] = 14;
        b[1] = RIP;
        b[2] = RIP & 0xFFFF_FFFFL;
        b[3] = RIP >>> 32;
        for (int i = 4; i < 14; i++) {
            b[i] = 0x100 + i; // data words, distinct so that their order shows
        }
        return b;
    }

    private static Steps withIbs(long caps) {
        FakeModel model = new FakeModel(2);
        model.ibsCaps = caps;
        return new Steps(new FakeMachine(model, 2).domain(0, 2).domain(3, 2).domain(5, 1));
    }

    private static XenoprofIbsCounter opSampling(long period) {
        XenoprofIbsCounter c = new XenoprofIbsCounter();
        c.opEnabled = 1;
        c.maxCntOp = period;
        c.randEn = 1;
        return c;
    }

    /** dom0 and dom3 active, counter 0 every 100000, IBS op sampling every 250000, profiling. */
    private static Steps profilingWithIbs() {
        Steps s = withIbs(CAPS).initialized(DOM0, DOMU).reserved();
        s.ok(DOM0, XenoprofOp.IBS_COUNTER, opSampling(250_000));
        return s.programmed(100_000).enabled(DOM0, DOMU).started();
    }

    private static int nmiWithIbs(Steps s, int domid, int vcpu, int mode, long[] block, int... counters) {
        s.machine.fakePmu(0).overflowNext(counters);
        s.machine.fakePmu(0).ibsNext(block);
        return s.core.nmi(0, domid, vcpu, mode, PC, new long[0], 0, OverflowRouter.SYSTEM_WIDE);
    }

    private static List<Long> eips(SharedBuffer b) {
        List<Long> out = new ArrayList<>();
        for (int i = b.tail(); i != b.head(); i = (i + 1) % b.size()) {
            out.add(b.eip(i));
        }
        return out;
    }

    // --- ops 16 and 17 ------------------------------------------------------------------------------

    @Test
    void getIbsCapsReturnsTheModelsCapabilityBitsAsANonNegativeValue() {
        Steps s = withIbs(CAPS);
        s.init(DOM0);
        assertEquals(CAPS, s.call(DOM0, XenoprofOp.GET_IBS_CAPS, null));
        assertEquals(Errno.EPERM.ret(), s.call(DOMU, XenoprofOp.GET_IBS_CAPS, null), "reserved to the primary");
        Steps wide = withIbs(0xFFFF_FFFF_0000_001FL);
        wide.init(DOM0);
        assertEquals(0x1FL, wide.call(DOM0, XenoprofOp.GET_IBS_CAPS, null), "CPUID EAX is 32 bits");
    }

    @Test
    void ibsCounterStoresTheConfigurationAndSetupEventsProgramsItOnEveryPcpuBeforeTheCounters() {
        Steps s = withIbs(CAPS).initialized(DOM0).reserved();
        XenoprofIbsCounter c = opSampling(250_000);
        c.fetchEnabled = 1;
        c.maxCntFetch = 100_000;
        c.dispatchedOps = 1;
        s.ok(DOM0, XenoprofOp.IBS_COUNTER, c);
        IbsConfig stored = new IbsConfig(true, true, 100_000, 250_000, true, true);
        assertEquals(stored, s.core.ibsConfig());
        assertTrue(s.machine.fakePmu(0).ibsSetups.isEmpty(), "the op only stores");
        s.programmed(1000);
        for (int cpu = 0; cpu < 2; cpu++) {
            FakePmu pmu = s.machine.fakePmu(cpu);
            assertEquals(List.of(stored), pmu.ibsSetups, "pCPU " + cpu);
            assertEquals(List.of("reserve", "setupIbs", "setup"), pmu.steps, "pCPU " + cpu);
        }
    }

    @Test
    void withoutIbsTheOpStoresTheConfigurationButNothingIsProgrammed() {
        Steps s = withIbs(0).initialized(DOM0).reserved();
        s.ok(DOM0, XenoprofOp.IBS_COUNTER, opSampling(250_000));
        assertTrue(s.core.ibsConfig().opEnabled());
        assertTrue(s.core.explain(DOM0, XenoprofOp.IBS_COUNTER, 0).contains("no IBS"),
                s.core.explain(DOM0, XenoprofOp.IBS_COUNTER, 0));
        s.programmed(1000);
        assertEquals(List.of("reserve", "setup"), s.machine.fakePmu(0).steps);
        assertEquals(0, s.call(DOM0, XenoprofOp.GET_IBS_CAPS, null));
    }

    @Test
    void ibsCounterIsLegalOnlyWhileCountersAreReservedWithAnActiveList() {
        Steps s = withIbs(CAPS);
        s.init(DOM0);
        assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.IBS_COUNTER, opSampling(250_000)), "INITIALIZED");
        s.getBuffer(DOM0, 16);
        s.ok(DOM0, XenoprofOp.SET_ACTIVE, DOM0);
        s.reserved();
        s.ok(DOM0, XenoprofOp.IBS_COUNTER, opSampling(250_000));
        s.programmed(1000);
        assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.IBS_COUNTER, opSampling(250_000)), "READY");
        assertNull(withIbs(CAPS).core.ibsConfig(), "nothing is stored before the first ibs_counter");
    }

    @Test
    void theConfigurationOutlivesTheSessionAsXensStaticIbsConfigDoes() {
        Steps s = withIbs(CAPS).initialized(DOM0).reserved();
        s.ok(DOM0, XenoprofOp.IBS_COUNTER, opSampling(250_000));
        s.programmed(1000);
        s.ok(DOM0, XenoprofOp.RELEASE_COUNTERS, null);
        s.reserved();
        s.ok(DOM0, XenoprofOp.SETUP_EVENTS, null);
        assertEquals(2, s.machine.fakePmu(1).ibsSetups.size(), "programmed again without a new ibs_counter");
    }

    @Test
    void aConfigurationTheModelRefusesFailsSetupEventsWithEinvalBeforeAnyCounterIsProgrammed() {
        Steps s = withIbs(CAPS).initialized(DOM0).reserved();
        XenoprofIbsCounter bad = opSampling(8);
        s.ok(DOM0, XenoprofOp.IBS_COUNTER, bad);
        for (int cpu = 0; cpu < 2; cpu++) {
            s.machine.fakePmu(cpu).refusedIbs = s.core.ibsConfig();
        }
        s.ok(DOM0, XenoprofOp.COUNTER, Steps.counter(0, Steps.CLK_UNHALTED, 1000));
        long r = s.call(DOM0, XenoprofOp.SETUP_EVENTS, null);
        assertEquals(Errno.EINVAL.ret(), r);
        assertEquals(XenoprofState.COUNTERS_RESERVED, s.core.state());
        assertEquals(List.of("reserve"), s.machine.fakePmu(0).steps);
        String why = s.core.explain(DOM0, XenoprofOp.SETUP_EVENTS, r);
        assertTrue(why.contains("refuses the stored IBS configuration") && why.contains("out of range"), why);
    }

    // --- the NMI path ---------------------------------------------------------------------------------

    @Test
    void anIbsBlockIsLoggedAsOrdinaryEntriesWithEventZeroAndTheCurrentMode() {
        Steps s = profilingWithIbs();
        assertEquals(1, nmiWithIbs(s, DOMU, 1, MODE_KERNEL, OP_BLOCK), "one block, one sample taken");
        SharedBuffer b = s.core.mapBuffers(DOMU, DOMU)[1];
        assertEquals(14, b.head());
        for (int i = 0; i < 14; i++) {
            assertEquals(OP_BLOCK[i], b.eip(i), "entry " + i);
            assertEquals(MODE_KERNEL, b.mode(i));
            assertEquals(0, b.event(i));
        }
        assertEquals(1, b.kernelSamples(), "the block counts once in the buffer's mode counts");
        XenoprofStatistics st = s.core.statistics();
        assertEquals(1, st.totalSamples());
        assertEquals(1, st.activeSamples());
        assertTrue(st.balanced(), st.toString());
        assertEquals(1, s.core.diagnostics().ibsBlocks());
        assertEquals(14, s.core.diagnostics().ibsEntries());
    }

    @Test
    void theBlockFollowsTheCounterSamplesOfTheSameNmi() {
        Steps s = profilingWithIbs();
        // A ring larger than the 16 slots of the standard session: room for both.
        assertEquals(2, nmiWithIbs(s, DOM0, 0, MODE_USER, new long[] {13, 0x400000, 0x400000, 0, 7, 0, 0, 0}, 0));
        List<Long> got = eips(s.core.mapBuffers(DOM0, DOM0)[0]);
        assertEquals(List.of(PC, 13L, 0x400000L, 0x400000L, 0L, 7L, 0L, 0L, 0L), got);
        assertEquals(2, s.core.mapBuffers(DOM0, DOM0)[0].userSamples());
    }

    @Test
    void aBlockThatDoesNotFitIsLostWholeSoADaemonNeverReadsHalfOne() {
        Steps s = profilingWithIbs();
        SharedBuffer b = s.core.mapBuffers(DOMU, DOMU)[0];
        nmiWithIbs(s, DOMU, 0, MODE_USER, new long[0], 0);
        nmiWithIbs(s, DOMU, 0, MODE_USER, new long[0], 0); // 16 slots, 2 used: 13 free, the block needs 14
        nmiWithIbs(s, DOMU, 0, MODE_USER, OP_BLOCK);
        assertEquals(2, b.head(), "nothing of the block was written");
        assertEquals(1, b.lostSamples());
        XenoprofStatistics st = s.core.statistics();
        assertEquals(3, st.totalSamples());
        assertEquals(1, st.lostSamples());
        assertTrue(st.balanced(), st.toString());
        assertEquals(0, s.core.diagnostics().ibsEntries(), "no entry of a lost block was written");
    }

    @Test
    void aBlockOfAnIdleOrUnlistedDomainIsDroppedAsOthers() {
        Steps s = profilingWithIbs();
        nmiWithIbs(s, IDLE_DOMID, 0, MODE_XEN, OP_BLOCK);
        nmiWithIbs(s, Steps.OTHER, 0, MODE_USER, OP_BLOCK);
        XenoprofStatistics st = s.core.statistics();
        assertEquals(2, st.othersSamples());
        assertEquals(1, st.idleSamples());
        assertTrue(st.balanced(), st.toString());
    }

    @Test
    void anNmiThatFoundIbsDataCountsAsAnOverflowForTheVirqRule() {
        Steps s = profilingWithIbs();
        List<Integer> woken = new ArrayList<>();
        s.core.bindVirq(DOMU, woken::add);
        nmiWithIbs(s, DOMU, 1, MODE_USER, OP_BLOCK); // no counter overflowed
        s.core.nmiContinuation(0);
        assertEquals(List.of(1), woken, "Xen's AMD check_ctrs reports an overflow whenever IBS ran");
        nmiWithIbs(s, DOMU, 1, MODE_XEN, OP_BLOCK);
        s.core.nmiContinuation(0);
        assertEquals(List.of(1), woken, "never for a Xen-mode sample");
        s.core.nmi(0, DOMU, 1, MODE_USER, PC, new long[0], 0, OverflowRouter.SYSTEM_WIDE); // neither
        s.core.nmiContinuation(0);
        assertEquals(List.of(1), woken, "an NMI with neither an overflow nor IBS data raises nothing");
    }

    @Test
    void theDroppingHandlerReArmsTheCountersAndIbsAndLogsNothing() {
        Steps s = profilingWithIbs();
        s.machine.fakePmu(1).overflowNext(0, 1);
        s.machine.fakePmu(1).ibsNext(OP_BLOCK);
        assertEquals(2, s.core.discardNmi(1));
        assertTrue(!s.machine.fakePmu(1).interruptPending(), "check_ctrs ran");
        assertEquals(0, s.core.mapBuffers(DOMU, DOMU)[0].head());
        assertEquals(0, s.core.statistics().totalSamples(), "never reached xenoprof_log_event");
        assertEquals(0, s.machine.fakePmu(1).checkIbs(new long[32]), "the IBS data was consumed (re-armed)");
    }
}
