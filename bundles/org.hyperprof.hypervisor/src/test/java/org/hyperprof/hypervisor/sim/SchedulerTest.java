package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.events;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.junit.jupiter.api.Test;

/** The credit-like scheduler: time slices, waking with boost, vCPUs spilling over to a busy home's neighbour. */
class SchedulerTest {

    private static String guest(int domid, String name, int vcpus, String load, String burst) {
        return "domain " + domid + " " + name + " type=pv vcpus=" + vcpus + " load=" + load + " burst.us=" + burst + "\n"
                + "kernel vmlinux 0xc0100000-0xc0121000 symbols/vmlinux-syms-2.6.16-xenU.map\n"
                + "region k kernel vmlinux weight=1\nsymbol tcp_v4_rcv 1\n";
    }

    private static double busyShare(SimHost host, int domid) {
        return events(host.groundTruth(), domid, null, Signal.CYCLES) / host.cycles();
    }

    @Test
    void twoBusyVcpusOnOneCpuShareItByTimeSlices() throws Exception {
        SimHost host = Fixtures.host(Fixtures.minimal("", "domain 0 a type=pv vcpus=1 load=1 hardware=yes",
                guest(1, "b", 1, "1", "1000")));
        host.run(1_000_000, null); // 1 s at 1000 MHz: about 33 time slices of 30 ms
        assertEquals(0.5, busyShare(host, 0), 0.04);
        assertEquals(0.5, busyShare(host, 1), 0.04);
        assertTrue(host.vcpuSwitches() >= 30 && host.vcpuSwitches() <= 36, host.vcpuSwitches() + " switches");
        assertEquals(0, host.haltedCycles(0), "nothing ever blocks");
    }

    @Test
    void aWakingVcpuWithCreditPreemptsABusyOneInsteadOfWaitingForItsTimeSlice() throws Exception {
        SimHost host = Fixtures.host(Fixtures.minimal("", "domain 0 a type=pv vcpus=1 load=1 hardware=yes",
                guest(1, "b", 1, "0.1", "100")));
        host.run(1_000_000, null);
        // Waiting for the 30 ms slices would give b one 100 us burst per 30 ms (0.3 %); boosted it gets its load.
        assertEquals(0.1, busyShare(host, 1), 0.02);
        assertTrue(host.vcpuSwitches() > 1000, host.vcpuSwitches() + " switches");
    }

    @Test
    void aVcpuWhoseHomeIsBusyRunsOnAnotherCpu() throws Exception {
        SimHost host = Fixtures.host(Fixtures.minimal("", "domain 0 a type=pv vcpus=2 load=1 hardware=yes",
                guest(1, "b", 1, "1", "1000")).replace("cpu.count 1", "cpu.count 2"));
        host.run(1_000_000, null);
        // Three always-busy vCPUs on two CPUs: no CPU idles, and the work is shared out.
        assertTrue(host.haltedCycles(0) + host.haltedCycles(1) < host.cycles() / 100, "the CPUs stay busy");
        GroundTruth truth = host.groundTruth();
        double[] perVcpu = new double[3];
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == 0) {
                perVcpu[r.vcpu()] += r.milli(Signal.CYCLES) / 1000.0;
            } else if (r.domid() == 1) {
                perVcpu[2] += r.milli(Signal.CYCLES) / 1000.0;
            }
        }
        for (int i = 0; i < 3; i++) {
            double share = perVcpu[i] / host.cycles();
            assertTrue(share > 0.45 && share < 0.85, "vCPU " + i + " ran " + share + " of a CPU");
        }
    }

    @Test
    void aDomainWithNoLoadNeverRuns() throws Exception {
        SimHost host = Fixtures.host(Fixtures.minimal("", "domain 0 a type=pv vcpus=1 load=0.5 hardware=yes",
                guest(1, "b", 1, "0", "1000")));
        host.run(100_000, null);
        assertEquals(0, busyShare(host, 1));
        assertEquals(0.5, busyShare(host, 0), 0.08);
    }
}
