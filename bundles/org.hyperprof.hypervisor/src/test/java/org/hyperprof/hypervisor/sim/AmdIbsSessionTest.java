package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.pmu.amd.Family10PmuModel;
import org.junit.jupiter.api.Test;

/**
 * AMD IBS end to end with the real family 10h model on the default scenario: Xenoprof's ops 16
 * and 17, op samples logged as blocks of pseudo-PC entries into the current vCPU's buffer, and
 * the VIRQ rule's AMD quirk (facts 6.3, 6.7).
 */
class AmdIbsSessionTest {
    private static final int DOM0 = 0;
    private static final int DOMU = 1;
    /** Entries of an op block: marker 14, RIP, then RIP, data 1-3, DC linear and physical address as halves. */
    private static final int OP_BLOCK = 14;

    private static SimHost family10() throws Exception {
        return (SimHost) Fixtures.everyModel().load(HostService.DEFAULT_SCENARIO, "x86-64/family10");
    }

    private static XenoprofIbsCounter opSampling(long period) {
        XenoprofIbsCounter c = new XenoprofIbsCounter();
        c.opEnabled = 1;
        c.maxCntOp = period;
        return c;
    }

    @Test
    void getIbsCapsReturnsTheFamily10CapabilitiesAndZeroOnAPartWithoutIbs() throws Exception {
        SimHost host = family10();
        Fixtures.ok(host.xenoprof(), DOM0, XenoprofOp.INIT, new XenoprofInit());
        long caps = host.xenoprof().hypercall(DOM0, XenoprofOp.GET_IBS_CAPS.number(), null);
        assertEquals(new Family10PmuModel().ibsCapabilities(), caps);
        assertTrue(caps > 0 && (caps & 1) == 1, "IBSFFV, the valid bit, is set: 0x" + Long.toHexString(caps));
        SimHost hammer = (SimHost) Fixtures.everyModel().load(HostService.DEFAULT_SCENARIO, "x86-64/hammer");
        Fixtures.ok(hammer.xenoprof(), DOM0, XenoprofOp.INIT, new XenoprofInit());
        assertEquals(0, hammer.xenoprof().hypercall(DOM0, XenoprofOp.GET_IBS_CAPS.number(), null));
    }

    @Test
    void opSamplesAreLoggedAsBlocksWhoseRipTheDomainRanAndTheBooksBalance() throws Exception {
        SimHost host = family10();
        // The counter's period is far beyond the run: every NMI here is an IBS one.
        Fixtures.Sampled sampled = Fixtures.startSession(host, Fixtures.defaultEvent(host.model(), 1_000_000_000L),
                opSampling(100_000), 0, 2048, List.of(DOM0, DOMU), List.of());
        host.run(20_000, null);
        Fixtures.stopProfiling(host, sampled);
        GroundTruth truth = host.groundTruth();
        int blocks = 0;
        int guestBlocks = 0;
        for (int d : List.of(DOM0, DOMU)) {
            List<long[]> entries = sampled.entries.getOrDefault(d, List.of());
            assertEquals(0, entries.size() % OP_BLOCK, "dom" + d + " holds whole blocks only");
            for (int i = 0; i < entries.size(); i += OP_BLOCK) {
                long[] marker = entries.get(i);
                assertEquals(14, marker[0], "op marker pseudo-PC at entry " + i + " of dom" + d);
                long rip = entries.get(i + 1)[0];
                assertEquals(rip & 0xFFFF_FFFFL, entries.get(i + 2)[0], "RIP, low half");
                assertEquals(rip >>> 32, entries.get(i + 3)[0], "RIP, high half");
                for (int k = 0; k < OP_BLOCK; k++) {
                    assertEquals(marker[1], entries.get(i + k)[1], "every entry carries the sample's mode");
                    assertEquals(0, entries.get(i + k)[2], "event 0");
                }
                String fn = MultiDomainScenarioTest.functionAt(host.scenario(), d, rip);
                assertTrue(MultiDomainScenarioTest.functionsRun(truth, d).contains(fn),
                        "the tagged op's RIP 0x" + Long.toHexString(rip) + " (" + fn + ") is code dom" + d + " ran");
                blocks++;
                if (marker[1] != 2) {
                    guestBlocks++;
                }
            }
        }
        Map<String, Long> c = host.counters();
        assertTrue(blocks > 500, "op sampling every 100000 cycles for 20 ms on 2 CPUs: " + blocks);
        assertEquals(blocks, c.get("xenoprof.ibs.entries") / OP_BLOCK);
        XenoprofStatistics st = host.xenoprof().statistics();
        assertTrue(st.balanced(), st.toString());
        assertEquals(c.get("xenoprof.ibs.blocks"), st.totalSamples(), "a block is one sample; no counter overflowed");
        assertEquals(blocks, st.activeSamples());
        // Xen's AMD check_ctrs reports an overflow on every NMI: each guest-mode block met the VIRQ rule.
        assertEquals(guestBlocks, c.get("virq.raised") + c.get("virq.coalesced"));
    }

    @Test
    void withoutIbsCounterTheFamily10PartSamplesOnlyWithItsCounters() throws Exception {
        SimHost host = family10();
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), 100_000));
        host.run(10_000, null);
        Fixtures.stopProfiling(host, sampled);
        assertEquals(0L, host.counters().get("xenoprof.ibs.blocks"));
        assertTrue(sampled.total > 300, "counter samples: " + sampled.total);
    }
}
