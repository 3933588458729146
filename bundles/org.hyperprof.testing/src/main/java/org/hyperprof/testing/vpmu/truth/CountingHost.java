package org.hyperprof.testing.vpmu.truth;

import java.util.Map;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.testing.vpmu.HostCharges;

/**
 * A host of real register files of one model. Records what the policy charges (per CPU, still to
 * run, and per hypervisor function in total) and injects, in primitive fields so that using it
 * allocates nothing.
 */
public final class CountingHost implements PolicyHost {
    public static final long READ = 100;
    public static final long WRITE = 150;
    public static final long INJECT = 500;
    public static final long IPI = 2000;

    public final PmuModel model;
    public final CountingPmu[] pmus;
    /** Charged cycles per CPU the engine has not yet run. */
    public final long[] pending;
    /** Charged cycles per hypervisor function ({@link HostCharges#FUNCTIONS}). */
    public final long[] bySymbol = new long[HostCharges.FUNCTIONS.size()];
    /** Injections per (domid * 16 + vcpu), and whether one waits to be taken. */
    public final int[] injections = new int[256];
    public final boolean[] injectionPending = new boolean[256];
    public boolean xenoprofOwns;
    public boolean xenoprofProfiling;
    public Map<String, String> options = Map.of();

    public CountingHost(PmuModel model, int pcpus) {
        this.model = model;
        this.pmus = new CountingPmu[pcpus];
        for (int p = 0; p < pcpus; p++) {
            pmus[p] = new CountingPmu(model.createPmu(p, Map.of()));
        }
        this.pending = new long[pcpus];
    }

    public long charged(String symbol) {
        return bySymbol[HostCharges.function(symbol)];
    }

    public long physicalAccesses() {
        long n = 0;
        for (CountingPmu p : pmus) {
            n += p.accesses();
        }
        return n;
    }

    @Override public PmuModel model() { return model; }
    @Override public int pcpuCount() { return pmus.length; }
    @Override public PhysicalPmu pmu(int pcpu) { return pmus[pcpu]; }
    @Override public PhysicalPmu newPmuContext() { return model.createPmu(0, Map.of()); }

    @Override
    public void chargeHypervisor(int pcpu, long cycles, String symbol) {
        bySymbol[HostCharges.function(symbol)] += cycles;
        pending[pcpu] += cycles;
    }

    @Override
    public long cost(String name) {
        return HostCharges.cost(name, READ, WRITE, INJECT, IPI);
    }

    @Override
    public String option(String key, String otherwise) {
        return options.getOrDefault(key, otherwise);
    }

    @Override
    public void injectVirtualInterrupt(int domid, int vcpu) {
        injections[domid * 16 + vcpu]++;
        injectionPending[domid * 16 + vcpu] = true;
    }

    @Override public boolean xenoprofProfiling() { return xenoprofProfiling; }
    @Override public boolean xenoprofOwnsPmu() { return xenoprofOwns; }
}
