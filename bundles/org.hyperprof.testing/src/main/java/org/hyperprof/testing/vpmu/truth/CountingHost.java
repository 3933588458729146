package org.hyperprof.testing.vpmu.truth;

import java.util.Map;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.vpmu.PolicyHost;

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
    public static final String[] SYMBOLS = {"vpmu_save", "vpmu_load", "vpmu_do_rdmsr", "vpmu_do_wrmsr", "vpmu_do_interrupt",
        "smp_call_function_interrupt"};

    public final PmuModel model;
    public final CountingPmu[] pmus;
    /** Charged cycles per CPU the engine has not yet run. */
    public final long[] pending;
    public final long[] bySymbol = new long[SYMBOLS.length];
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
        for (int i = 0; i < SYMBOLS.length; i++) {
            if (SYMBOLS[i].equals(symbol)) {
                return bySymbol[i];
            }
        }
        throw new IllegalArgumentException(symbol);
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
        for (int i = 0; i < SYMBOLS.length; i++) {
            if (SYMBOLS[i].equals(symbol)) {
                bySymbol[i] += cycles;
                pending[pcpu] += cycles;
                return;
            }
        }
        throw new IllegalArgumentException("the hypervisor image has no function " + symbol);
    }

    @Override
    public long cost(String name) {
        return switch (name) {
            case COST_PMU_READ -> READ;
            case COST_PMU_WRITE -> WRITE;
            case COST_INJECT -> INJECT;
            case COST_IPI -> IPI;
            default -> throw new IllegalArgumentException("no cost " + name);
        };
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
