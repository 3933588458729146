package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.minimal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.host.ProgressListener;
import org.junit.jupiter.api.Test;

/**
 * Before a run, the host says when its scenario's values make the run meaningless: no sample can be
 * expected. Each forecast is checked against the run itself: no sample is delivered.
 */
class RunForecastTest {

    @Test
    void anOrdinaryRunExpectsSamples() throws Exception {
        SimHost host = Fixtures.defaultHost();
        Fixtures.startProfiling(host, 100_000, true, true);
        assertEquals(List.of(), host.noSamplesExpected(10_000));
    }

    @Test
    void nothingIsForecastWhileXenoprofIsNotProfiling() throws Exception {
        SimHost host = Fixtures.host(minimal("", "domain 0 d0 type=pv vcpus=1 load=0 hardware=yes", ""));
        assertEquals(List.of(), host.noSamplesExpected(10_000), "no sample is taken anyway; the state says why");
    }

    @Test
    void aCountAboveEveryEventTheRunCanCountExpectsNoSample() throws Exception {
        SimHost host = Fixtures.defaultHost(); // 2 pCPUs at 2800 MHz
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 10_000_000, true, true);
        List<String> why = host.noSamplesExpected(1_000);
        assertEquals(List.of("counter 0 (CPU_CLK_UNHALTED, count 10000000): a run of 1.0 ms at 2800 MHz on 2 pCPU(s)"
                + " counts at most 5600000 CYCLES events (the scenario's highest rate is 1000 per 1000 cycles), fewer"
                + " than the count between two samples; run longer or give a smaller count"), why);
        host.run(1_000, ProgressListener.NONE);
        Fixtures.stopProfiling(host, sampled);
        assertEquals(0, sampled.total);
        assertEquals(List.of(), host.noSamplesExpected(2_000), "two ms can count 11200000 events");
    }

    @Test
    void aHostWhoseDomainsHaveNoWorkExpectsNoSample() throws Exception {
        SimHost host = Fixtures.host(minimal("", "domain 0 d0 type=pv vcpus=1 load=0 hardware=yes", ""));
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 10_000, true, true);
        List<String> why = host.noSamplesExpected(5_000);
        assertEquals(1, why.size(), why.toString());
        assertTrue(why.get(0).startsWith("no domain has work to run (each has load=0 in its 'domain' line of"
                + " test.scenario, or is paused or destroyed)"), why.get(0));
        host.run(5_000, ProgressListener.NONE);
        Fixtures.stopProfiling(host, sampled);
        assertEquals(0, host.xenoprof().statistics().delivered());
    }

    @Test
    void aRunShorterThanTheFirstSwitchToAGuestExpectsNoSample() throws Exception {
        SimHost host = Fixtures.host(minimal("cost.switch 3000000 context_switch=1\n",
                "domain 0 d0 type=pv vcpus=1 load=1 hardware=yes", ""));
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 10_000, true, true);
        List<String> why = host.noSamplesExpected(2_000);
        assertEquals(List.of("every CPU starts on its idle vCPU, and a switch to a guest costs 3000000 cycles"
                + " (cost.switch, test.scenario:6), no less than a run of 2.0 ms at 1000 MHz: the run is spent in that"
                + " switch, charged to the idle vCPU, whose samples Xen drops; run longer, or lower cost.switch"), why);
        host.run(2_000, ProgressListener.NONE);
        Fixtures.stopProfiling(host, sampled);
        assertEquals(0, host.xenoprof().statistics().delivered());
        assertTrue(host.xenoprof().statistics().totalSamples() > 0, "samples were taken, and all dropped");
    }
}
