package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.cycles;
import static org.hyperprof.hypervisor.sim.Fixtures.events;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.hypervisor.sim.scenario.SymbolFile;
import org.hyperprof.testing.host.StopAtFirstReport;
import org.junit.jupiter.api.Test;

/** The engine on the default scenario: determinism, shares, idle time, the NMI path, event-to-event jumps. */
class SimHostTest {

    private static final int DOM0 = 0;
    private static final int DOMU = 1;
    private static final int IDLE = GroundTruth.IDLE_DOMAIN;

    @Test
    void theDefaultHostHasTheScenariosShape() throws Exception {
        SimHost host = Fixtures.defaultHost();
        assertEquals("xen-summit-2006-network", host.name());
        assertEquals("i386/p6", host.model().cpuType());
        assertEquals(2800, host.mhz());
        assertEquals(2, host.pcpuCount());
        assertEquals("systemwide", host.policy());
        assertEquals(List.of(0, 1), host.domains().stream().map(DomainInfo::domid).toList());
        DomainInfo dom0 = host.domain(DOM0);
        assertTrue(dom0.hardwareDomain());
        assertEquals(ImageKind.HYPERVISOR, dom0.memoryMap().get(0).kind(), "every domain maps the hypervisor first");
        assertEquals("xen-syms", dom0.memoryMap().get(0).image());
        Mapping libc = dom0.memoryMap().stream().filter(m -> m.image().equals("libc-2.3.6.so")).findFirst().orElseThrow();
        assertEquals(0xb7e1e000L, libc.loadBias());
        assertEquals("kallsyms", libc.symbols().format());
        assertEquals(ImageKind.MODULE, dom0.memoryMap().stream().filter(m -> m.image().equals("e1000")).findFirst()
                .orElseThrow().kind());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> host.domain(5));
        assertTrue(e.getMessage().contains("0 (Domain-0)"), e.getMessage());
    }

    @Test
    void theMachineTellsXenoprofWhichDomainsExistAndWhatTheyAre() throws Exception {
        SimHost host = Fixtures.defaultHost();
        assertTrue(host.domainExists(DOM0));
        assertTrue(host.domainExists(DOMU));
        assertFalse(host.domainExists(IDLE), "the idle domain does not count");
        assertFalse(host.domainExists(7));
        assertEquals(1, host.vcpuCount(DOMU));
        assertTrue(host.hardwareDomain(DOM0));
        assertFalse(host.hardwareDomain(DOMU));
        assertFalse(host.hvm(DOMU));
        assertNull(host.guestsHoldPmu(), "the system-wide policy offers guests no PMU");
        assertEquals(host.pmu(1).cpu(), 1);
    }

    @Test
    void theSameScenarioAndSeedGiveIdenticalGroundTruthAndSamples() throws Exception {
        SimHost a = Fixtures.defaultHost();
        SimHost b = Fixtures.defaultHost();
        Fixtures.Sampled sa = Fixtures.startProfiling(a, 100_000, true, true);
        Fixtures.Sampled sb = Fixtures.startProfiling(b, 100_000, true, true);
        long takenA = a.run(50_000, null);
        long takenB = b.run(50_000, null);
        Fixtures.stopProfiling(a, sa);
        Fixtures.stopProfiling(b, sb);
        assertTrue(takenA > 1000, "samples were taken: " + takenA);
        assertEquals(takenA, takenB);
        assertEquals(Fixtures.rowsOf(a.groundTruth()), Fixtures.rowsOf(b.groundTruth()));
        assertEquals(sa.perPc, sb.perPc, "the same PCs were sampled");
        assertEquals(a.xenoprof().statistics(), b.xenoprof().statistics());
        assertEquals(a.vcpuSwitches(), b.vcpuSwitches());
    }

    @Test
    void aStopRequestEndsTheRunAtItsNextStepWithTheSamplesTakenAndXensBooksBalanced() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.startProfiling(host, 100_000, true, true);
        long micros = 200_000;
        // Asks to stop at the first progress report (a twentieth of the run), as Ctrl-C would.
        StopAtFirstReport stopAtFirstReport = new StopAtFirstReport();
        List<Long> reports = stopAtFirstReport.reports;
        long taken = host.run(micros, stopAtFirstReport);
        assertEquals(1, reports.size(), "no report after the stop: the run ended at its next step");
        assertEquals(reports.get(0) * host.mhz(), host.cycles(), "the run went no further than the step it was at");
        assertTrue(host.cycles() < micros * host.mhz());
        assertTrue(taken > 0, "the samples taken before the stop are kept: " + taken);
        XenoprofStatistics s = host.xenoprof().statistics();
        assertEquals(taken, s.totalSamples());
        assertTrue(s.balanced(), "taken = delivered + lost + dropped + invalid: " + s);
    }

    @Test
    void aStopFromAnotherThreadReturnsOnlyOnceNoQuantumRunsSoTheBooksItLeavesAreFinal() throws Exception {
        // A departing CPU model stops the host from the bundle's thread while a run is in a quantum; the
        // listeners then close the session's books, which must not move under them.
        for (int attempt = 0; attempt < 10; attempt++) {
            SimHost host = Fixtures.defaultHost();
            Fixtures.startProfiling(host, 20_000, true, true);
            CountDownLatch sampling = new CountDownLatch(1);
            List<XenoprofStatistics> heard = new ArrayList<>();
            host.addListener((h, reason) -> heard.add(h.xenoprof().statistics()));
            Thread run = new Thread(() -> {
                try {
                    host.run(2_000_000, new ProgressListener() {
                        @Override
                        public void progress(long doneMicros, long totalMicros, long samples) {
                            sampling.countDown();
                        }
                    });
                } catch (HostStoppedException expected) {
                    // the stop below
                }
            });
            run.start();
            sampling.await();
            host.stop("model departed");
            XenoprofStatistics atStop = host.xenoprof().statistics();
            run.join();
            assertEquals(atStop, host.xenoprof().statistics(), "no sample taken after stop() returned");
            assertEquals(List.of(atStop), heard, "the listener read the final books");
            assertTrue(atStop.balanced(), "taken = delivered + lost + dropped + invalid: " + atStop);
        }
    }

    @Test
    void aStopRequestBeforeTheRunRunsNothing() throws Exception {
        SimHost host = Fixtures.defaultHost();
        long before = host.cycles();
        ProgressListener stopped = new ProgressListener() {
            @Override
            public void progress(long doneMicros, long totalMicros, long samples) {
            }

            @Override
            public boolean stopRequested() {
                return true;
            }
        };
        assertEquals(0, host.run(1_000, stopped));
        assertEquals(before, host.cycles());
    }

    @Test
    void aRunLongerThanAnHourIsRefusedWithTheRangeNotAnOverflow() throws Exception {
        SimHost host = Fixtures.defaultHost();
        for (long micros : new long[] {Host.MAX_RUN_MICROS + 1, 3_400_000_000_000_000L, Long.MAX_VALUE, -1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> host.run(micros, null));
            assertTrue(e.getMessage().contains("0 to " + Host.MAX_RUN_MICROS), e.getMessage());
        }
        assertEquals(0, host.cycles(), "nothing ran");
    }

    @Test
    void anotherSeedGivesAnotherRun() throws Exception {
        SimHost a = Fixtures.defaultHost();
        SimHost b = new SimHost(reseeded(a), new org.hyperprof.pmu.p6.P6PmuModel(), Fixtures.P6_BUNDLE,
                new org.hyperprof.vpmu.systemwide.SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
        a.run(20_000, null);
        b.run(20_000, null);
        assertNotEquals(Fixtures.rowsOf(a.groundTruth()), Fixtures.rowsOf(b.groundTruth()));
    }

    private static org.hyperprof.hypervisor.sim.scenario.Scenario reseeded(SimHost host) {
        var s = host.scenario();
        return new org.hyperprof.hypervisor.sim.scenario.Scenario(s.name(), s.description(), s.location(),
                s.cpuType(), s.mhz(), s.pcpus(), s.seed() + 1, s.pmuOptions(), s.policy(), -1, s.timesliceMicros(),
                s.accountingMicros(), s.quantumMicros(), s.sliceMinCycles(), s.sliceMaxCycles(), s.hypervisorRates(),
                s.contextSwitch(), s.nmiHandler(), s.idleLoop(), s.halt(), s.hypervisor(), s.domains(),
                Map.of());
    }

    @Test
    void groundTruthSharesFollowTheScenarioWeights() throws Exception {
        SimHost host = Fixtures.defaultHost();
        host.run(1_000_000, null); // one simulated second, no sampling: only the workload and the scheduler
        GroundTruth truth = host.groundTruth();
        double dom0 = events(truth, DOM0, null, Signal.CYCLES);
        // The seed's dom0 table: kernel 57.28 %, Xen 42.47 %, user 0.25 %. The scheduler's own switch
        // cost (charged to the vCPU switched out) adds a little Xen time.
        assertEquals(57.28, 100 * events(truth, DOM0, CpuMode.KERNEL, Signal.CYCLES) / dom0, 1.0);
        assertEquals(42.47, 100 * events(truth, DOM0, CpuMode.HYPERVISOR, Signal.CYCLES) / dom0, 1.0);
        assertEquals(0.25, 100 * events(truth, DOM0, CpuMode.USER, Signal.CYCLES) / dom0, 0.15);
        assertEquals(4.39, 100 * cycles(truth, DOM0, "find_domain_by_id") / dom0, 0.5);
        assertEquals(3.60, 100 * cycles(truth, DOM0, "gnttab_transfer") / dom0, 0.5);
        assertEquals(3.20, 100 * cycles(truth, DOM0, "netif_be_start_xmit") / dom0, 0.5);
        assertEquals(2.30, 100 * cycles(truth, DOM0, "eth_type_trans") / dom0, 0.4);
        double domU = events(truth, DOMU, null, Signal.CYCLES);
        assertEquals(22.0, 100 * cycles(truth, DOMU, "__copy_to_user_ll") / domU, 1.5);
        assertEquals(5.0, 100 * cycles(truth, DOMU, "main") / domU, 0.7);
        assertEquals(7.5, 100 * events(truth, DOMU, CpuMode.USER, Signal.CYCLES) / domU, 1.0);
    }

    @Test
    void eachVcpuIsBusyForItsLoad() throws Exception {
        SimHost host = Fixtures.defaultHost();
        host.run(1_000_000, null);
        GroundTruth truth = host.groundTruth();
        double elapsed = host.cycles();
        assertEquals(0.86, events(truth, DOM0, null, Signal.CYCLES) / elapsed, 0.04);
        assertEquals(0.68, events(truth, DOMU, null, Signal.CYCLES) / elapsed, 0.05);
    }

    @Test
    void idleTimeRunsTheIdleLoopAndThenHalts() throws Exception {
        SimHost host = Fixtures.defaultHost();
        host.run(200_000, null);
        GroundTruth truth = host.groundTruth();
        for (int p = 0; p < host.pcpuCount(); p++) {
            assertTrue(host.haltedCycles(p) > 0, "pCPU " + p + " halted");
        }
        long halted = host.haltedCycles(0) + host.haltedCycles(1);
        double unhalted = truth.total(Signal.CYCLES) / 1000.0;
        assertEquals(2.0 * host.cycles(), unhalted + halted, 1e-6, "every cycle is either unhalted or halted");
        List<GroundTruth.Row> idle = truth.rows().stream().filter(r -> r.domid() == IDLE).toList();
        assertTrue(idle.stream().anyMatch(r -> r.symbol().equals("idle_loop") && r.milli(Signal.CYCLES) > 0),
                "the idle loop's unhalted stretch is the idle domain's");
        GroundTruth.Row halt = idle.stream().filter(r -> r.symbol().equals("default_idle")).findFirst().orElseThrow();
        assertEquals(CpuMode.HYPERVISOR, halt.mode());
        assertEquals("xen-syms", halt.image());
        for (long v : halt.signalMilli()) {
            assertEquals(0, v, "halted time emits no signal");
        }
    }

    @Test
    void theEngineJumpsFromEventToEventAndNeverStepsPerCycle() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.startProfiling(host, 100_000, true, true);
        long samples = host.run(1_000_000, null);
        long cycles = 2 * host.cycles();
        // Slices are 2000-8000 cycles; each sample and each quantum end splits one. A per-cycle loop
        // would take billions of steps.
        assertTrue(host.piecesProcessed() < cycles / 1000, host.piecesProcessed() + " pieces for " + cycles);
        assertTrue(host.workSlices() < cycles / 1500, host.workSlices() + " slices");
        assertTrue(samples > 40_000, "about one sample per 100000 unhalted cycles: " + samples);
    }

    @Test
    void everyPmuInterruptRunsTheNmiHandlerChargedToTheInterruptedDomain() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 100_000, true, true);
        host.resetGroundTruth();
        host.run(100_000, null);
        Fixtures.stopProfiling(host, sampled);
        GroundTruth truth = host.groundTruth();
        long interrupts = host.interruptsTaken();
        double handler = 0;
        for (String fn : List.of("nmi", "do_nmi", "nmi_callback", "xenoprof_log_event")) {
            handler += cycles(truth, DOM0, fn) + cycles(truth, DOMU, fn) + cycles(truth, IDLE, fn);
        }
        // 1000 cycles each; a handler still running at the end of the run is counted in part.
        assertTrue(handler <= interrupts * 1000.0 && handler > (interrupts - 2) * 1000.0,
                handler + " handler cycles for " + interrupts + " interrupts");
        assertTrue(cycles(truth, DOM0, "xenoprof_log_event") > 0);
        assertTrue(cycles(truth, DOMU, "xenoprof_log_event") > 0);
        assertEquals(interrupts, host.xenoprof().statistics().totalSamples(), "one counter: one sample per NMI");
    }

    @Test
    void samplesNeverLandInTheNmiHandlerBecauseNmisAreBlockedUntilItReturns() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 6_000, true, true); // overflows inside handlers too
        host.run(20_000, null);
        Fixtures.stopProfiling(host, sampled);
        var xen = host.scenario().hypervisor();
        List<long[]> handlerRanges = new ArrayList<>();
        for (String fn : List.of("nmi", "do_nmi", "nmi_callback", "xenoprof_log_event")) {
            int i = xen.symbols().indexOf(fn);
            handlerRanges.add(new long[] {xen.runtimeStart(i), xen.runtimeStart(i) + xen.symbols().length(i)});
        }
        assertTrue(sampled.total > 1000);
        for (Map<Long, Integer> pcs : sampled.perPc.values()) {
            for (long pc : pcs.keySet()) {
                for (long[] r : handlerRanges) {
                    assertFalse(pc >= r[0] && pc < r[1], "sample at 0x" + Long.toHexString(pc) + " in the handler");
                }
            }
        }
    }

    @Test
    void sampledSplitAgreesWithTheGroundTruthWithinSamplingError() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 100_000, true, true);
        host.resetGroundTruth();
        host.run(500_000, null);
        Fixtures.stopProfiling(host, sampled);
        GroundTruth truth = host.groundTruth();
        XenoprofStatistics stats = host.xenoprof().statistics();
        assertTrue(stats.balanced(), stats.toString());
        for (int domid : List.of(DOM0, DOMU)) {
            double all = events(truth, domid, null, Signal.CYCLES);
            for (CpuMode mode : CpuMode.values()) {
                double trueShare = events(truth, domid, mode, Signal.CYCLES) / all;
                double sampledShare = (double) sampled.samples(domid, mode) / sampled.samples(domid);
                double sigma = Math.sqrt(trueShare * (1 - trueShare) / sampled.samples(domid));
                // NMI-handler time is never sampled (its samples land right after it): allow 2 % on Xen.
                assertEquals(trueShare, sampledShare, 4 * sigma + 0.02, "dom" + domid + " " + mode);
            }
        }
    }

    @Test
    void codeRunsAtTheCplOfItsMode() throws Exception {
        // OS-only counting sees CPL 0: Xen itself. A 32-bit PV kernel runs at CPL 1 and user code at 3,
        // so with kernel=1 user=0 every sample is a Xen-mode sample.
        SimHost host = Fixtures.defaultHost();
        Fixtures.Sampled sampled = Fixtures.profile(host, 20_000, true, false, 50_000);
        assertTrue(sampled.samples(DOM0, CpuMode.HYPERVISOR) > 100);
        assertEquals(0, sampled.samples(DOM0, CpuMode.KERNEL) + sampled.samples(DOMU, CpuMode.KERNEL),
                "PV kernels run at CPL 1, which OS counting does not see");
        assertEquals(0, sampled.samples(DOM0, CpuMode.USER) + sampled.samples(DOMU, CpuMode.USER));
    }

    @Test
    void userCountingSeesPvKernelsAndUserCodeButNotXen() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.Sampled sampled = Fixtures.profile(host, 20_000, false, true, 50_000);
        assertTrue(sampled.samples(DOM0, CpuMode.KERNEL) > 100, "CPL 1 counts as USR on P6");
        assertTrue(sampled.samples(DOMU, CpuMode.USER) > 10);
        assertEquals(0, sampled.samples(DOM0, CpuMode.HYPERVISOR) + sampled.samples(DOMU, CpuMode.HYPERVISOR),
                "Xen runs at CPL 0, which USR counting does not see");
    }

    @Test
    void callTracesCarryTheCallerChainAsReturnAddressesInsideTheCallers() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 20_000, true, true, 16);
        host.run(50_000, null);
        Fixtures.stopProfiling(host, sampled);
        SymbolFile kernel = host.scenario().domains().get(1).images().get(0).symbols();
        List<String> expected = List.of("ip_local_deliver_finish", "ip_local_deliver", "ip_rcv_finish", "ip_rcv",
                "netif_receive_skb", "netif_poll", "net_rx_action", "__do_softirq");
        List<long[]> entries = sampled.entries.get(DOMU);
        int traces = 0;
        // Each sample is an escape record (TRACE_BEGIN), the PC, then the return addresses, innermost first.
        for (int i = 0; i + 1 < entries.size(); i++) {
            if (entries.get(i)[0] != SharedBuffer.ESCAPE_CODE) {
                continue;
            }
            assertEquals(SharedBuffer.TRACE_BEGIN, entries.get(i)[2]);
            if (!functionAt(kernel, entries.get(i + 1)[0]).equals("tcp_v4_rcv")) {
                continue;
            }
            List<String> callers = new ArrayList<>();
            for (int j = i + 2; j < entries.size() && entries.get(j)[0] != SharedBuffer.ESCAPE_CODE; j++) {
                long ret = entries.get(j)[0];
                callers.add(functionAt(kernel, ret));
                int f = kernel.indexOf(functionAt(kernel, ret));
                assertTrue(ret > kernel.start(f), "a return address follows a call: it is past the caller's start");
            }
            assertEquals(expected, callers);
            traces++;
        }
        assertTrue(traces > 5, traces + " traces of tcp_v4_rcv");
    }

    private static String functionAt(SymbolFile symbols, long address) {
        for (int i = 0; i < symbols.size(); i++) {
            if (address >= symbols.start(i) && address < symbols.start(i) + symbols.length(i)) {
                return symbols.name(i);
            }
        }
        return "?";
    }

    @Test
    void groundTruthResetStartsANewInterval() throws Exception {
        SimHost host = Fixtures.defaultHost();
        host.run(10_000, null);
        assertTrue(host.groundTruth().total(Signal.CYCLES) > 0);
        host.resetGroundTruth();
        assertEquals(0, host.groundTruth().rows().size());
        host.run(10_000, null);
        double unhalted = host.groundTruth().total(Signal.CYCLES) / 1000.0;
        assertTrue(unhalted > 0 && unhalted <= 2 * 10_000 * 2800, "only the new interval: " + unhalted);
    }

    @Test
    void runReportsProgressAboutTwentyTimesAndReturnsTheSamplesTaken() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.startProfiling(host, 100_000, true, true);
        List<long[]> reports = new ArrayList<>();
        long samples = host.run(100_000, (done, total, taken) -> reports.add(new long[] {done, total, taken}));
        assertTrue(reports.size() >= 19 && reports.size() <= 21, reports.size() + " reports");
        long[] last = reports.get(reports.size() - 1);
        assertEquals(100_000, last[0]);
        assertEquals(100_000, last[1]);
        assertEquals(samples, last[2]);
        assertEquals(100_000L * 2800, host.cycles());
    }

    @Test
    void aNegativeRunTimeIsRefused() throws Exception {
        SimHost host = Fixtures.defaultHost();
        assertThrows(IllegalArgumentException.class, () -> host.run(-1, null));
    }
}
