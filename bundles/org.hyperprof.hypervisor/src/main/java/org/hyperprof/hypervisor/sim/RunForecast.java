package org.hyperprof.hypervisor.sim;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.RegionSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;

/**
 * Whether a run can be expected to take a sample, from upper bounds the scenario's values put on
 * it: no guest with work means only idle vCPUs run (Xen drops their samples); a counter cannot
 * overflow more often than the most events the run can count allow; a CPU that starts on its idle
 * vCPU spends its first vCPU switch charged to it. Each reason names the values and what to change.
 * The bounds are generous on purpose: a run warned about takes no sample, whatever the seed.
 */
final class RunForecast {

    private RunForecast() {
    }

    /**
     * @param startCycles cycles the host has run so far (0: every CPU is still on its idle vCPU)
     * @param states      each domain's state, in scenario order
     * @param counters    the counters Xenoprof programmed
     */
    static List<String> noSamples(Scenario scenario, long startCycles, long micros, List<DomainState> states,
            CounterConfig[] counters) {
        List<String> out = new ArrayList<>();
        if (micros <= 0) {
            return out;
        }
        BigInteger runCycles = BigInteger.valueOf(micros).multiply(BigInteger.valueOf(scenario.mhz()));
        String run = "a run of " + micros / 1000.0 + " ms at " + scenario.mhz() + " MHz";

        boolean anyWork = false;
        for (int i = 0; i < scenario.domains().size(); i++) {
            DomainSpec d = scenario.domains().get(i);
            anyWork |= d.loadPpm() > 0 && states.get(i) == DomainState.RUNNING;
        }
        if (!anyWork) {
            out.add("no domain has work to run (each has load=0 in its 'domain' line of " + scenario.location()
                    + ", or is paused or destroyed): the CPUs run only their idle vCPUs, and Xen drops the idle"
                    + " vCPUs' samples; give a domain a load above 0, or unpause it");
        }

        long switchCycles = scenario.contextSwitch().cycles();
        if (startCycles == 0 && switchCycles > 0 && runCycles.compareTo(BigInteger.valueOf(switchCycles)) <= 0) {
            out.add("every CPU starts on its idle vCPU, and a switch to a guest costs " + switchCycles + " cycles ("
                    + "cost.switch, " + scenario.where("cost.switch") + "), no less than " + run + ": the run is"
                    + " spent in that switch, charged to the idle vCPU, whose samples Xen drops; run longer, or lower"
                    + " cost.switch");
        }

        if (counters.length > 0) {
            List<String> silent = new ArrayList<>();
            for (CounterConfig c : counters) {
                String why = silentCounter(scenario, c, runCycles, run);
                if (why == null) {
                    silent.clear();
                    break; // this counter can sample: the run means something
                }
                silent.add(why);
            }
            out.addAll(silent);
        }
        return out;
    }

    /** Why counter {@code c} cannot overflow in the run, or null when it can. */
    private static String silentCounter(Scenario scenario, CounterConfig c, BigInteger runCycles, String run) {
        String name = "counter " + c.counter() + " (" + c.event().name() + ", count " + c.count() + ")";
        Signal signal = c.event().signal();
        if (signal == null) {
            return name + " counts an event the simulated machine never emits: no sample can come from it; choose"
                    + " another event (hp:events lists them)";
        }
        long rate = maxRate(scenario, signal);
        // The most events all CPUs together can count in the run; a counter may hold up to count - 1 from before.
        BigInteger most = runCycles.multiply(BigInteger.valueOf(scenario.pcpus())).multiply(BigInteger.valueOf(rate))
                .divide(BigInteger.valueOf(SignalRates.SCALE));
        if (most.compareTo(BigInteger.valueOf(c.count())) >= 0) {
            return null;
        }
        return name + ": " + run + " on " + scenario.pcpus() + " pCPU(s) counts at most " + most + " " + signal
                + " events (the scenario's highest rate is " + rate + " per " + SignalRates.SCALE + " cycles),"
                + " fewer than the count between two samples; run longer or give a smaller count";
    }

    /** The highest rate of a signal anywhere in the scenario, in events per {@link SignalRates#SCALE} cycles. */
    private static long maxRate(Scenario scenario, Signal signal) {
        if (signal == Signal.CYCLES) {
            return SignalRates.SCALE; // unhalted cycles: one a cycle at most
        }
        int s = signal.ordinal();
        long max = scenario.hypervisorRates()[s];
        for (DomainSpec d : scenario.domains()) {
            for (RegionSpec r : d.regions()) {
                for (WeightedSymbol w : r.symbols()) {
                    max = Math.max(max, w.rates()[s]);
                }
            }
        }
        return max;
    }
}
