package org.hyperprof.testing.vpmu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.testing.pmu.ForwardingPmu;

/**
 * A host for policy tests: real register files of a real model, every physical read and write
 * logged (register and direction, in primitive arrays), charges kept per CPU and symbol and handed
 * to the {@link Rig} to run as hypervisor code, injections counted per vCPU. Records nothing that
 * allocates once {@link #recording} is off.
 */
public final class FakeHost implements PolicyHost {
    public static final List<String> SYMBOLS = HostCharges.FUNCTIONS;
    // Indexes into SYMBOLS, by the functions' names.
    public static final int SAVE = HostCharges.function("vpmu_save");
    public static final int LOAD = HostCharges.function("vpmu_load");
    public static final int RDMSR = HostCharges.function("vpmu_do_rdmsr");
    public static final int WRMSR = HostCharges.function("vpmu_do_wrmsr");
    public static final int INTERRUPT = HostCharges.function("vpmu_do_interrupt");
    public static final int REMOTE = HostCharges.function("smp_call_function_interrupt");

    public final PmuModel model;
    public final LoggingPmu[] pmus;
    public final Map<String, String> options = new HashMap<>();
    public long readCost = 40;
    public long writeCost = 100;
    public long injectCost = 700;
    public long ipiCost = 3000;
    public boolean xenoprofOwns;
    public boolean recording = true;
    public int contextsHandedOut;

    /** Per CPU: cycles charged and not yet run by the rig. */
    public final long[] pending;
    /** Per CPU and symbol: cycles charged. */
    public final long[][] charged;
    /** Per vCPU key (domid * 16 + vcpu): virtual interrupts injected; and whether one waits. */
    public final long[] injections = new long[1024];
    public final boolean[] virqPending = new boolean[1024];
    public final List<String> ledger = new ArrayList<>();

    public FakeHost(PmuModel model, int pcpus) {
        this.model = model;
        pmus = new LoggingPmu[pcpus];
        for (int i = 0; i < pcpus; i++) {
            pmus[i] = new LoggingPmu(model.createPmu(i, Map.of()));
        }
        pending = new long[pcpus];
        charged = new long[pcpus][SYMBOLS.size()];
    }

    public static int key(int domid, int vcpu) {
        return domid * 16 + vcpu;
    }

    public long charged(int pcpu, int symbol) {
        return charged[pcpu][symbol];
    }

    public long chargedEverywhere(int symbol) {
        long sum = 0;
        for (long[] c : charged) {
            sum += c[symbol];
        }
        return sum;
    }

    @Override
    public PmuModel model() {
        return model;
    }

    @Override
    public int pcpuCount() {
        return pmus.length;
    }

    @Override
    public PhysicalPmu pmu(int pcpu) {
        return pmus[pcpu];
    }

    @Override
    public PhysicalPmu newPmuContext() {
        contextsHandedOut++;
        return model.createPmu(0, Map.of());
    }

    @Override
    public void chargeHypervisor(int pcpu, long cycles, String symbol) {
        int s = HostCharges.function(symbol);
        if (cycles < 0) {
            throw new IllegalArgumentException("negative charge " + cycles);
        }
        pending[pcpu] += cycles;
        charged[pcpu][s] += cycles;
        if (recording) {
            ledger.add("charge " + pcpu + " " + symbol + " " + cycles);
        }
    }

    @Override
    public long cost(String name) {
        return HostCharges.cost(name, readCost, writeCost, injectCost, ipiCost);
    }

    @Override
    public String option(String key, String otherwise) {
        return options.getOrDefault(key, otherwise);
    }

    @Override
    public void injectVirtualInterrupt(int domid, int vcpu) {
        injections[key(domid, vcpu)]++;
        virqPending[key(domid, vcpu)] = true;
        if (recording) {
            ledger.add("inject " + domid + "/" + vcpu);
        }
    }

    @Override
    public boolean xenoprofProfiling() {
        return xenoprofOwns;
    }

    @Override
    public boolean xenoprofOwnsPmu() {
        return xenoprofOwns;
    }

    public long injectionsTotal() {
        long sum = 0;
        for (long n : injections) {
            sum += n;
        }
        return sum;
    }

    /** A real register file whose reads and writes are logged with their direction. */
    public static final class LoggingPmu extends ForwardingPmu {
        public final int[] log = new int[1 << 14];
        public final boolean[] wrote = new boolean[1 << 14];
        public int logged;
        public long reads;
        public long writes;

        public LoggingPmu(PhysicalPmu real) {
            super(real);
        }

        public void clearLog() {
            logged = 0;
        }

        /** The accesses since the last clear, as text like {@code "r 0xc1"}, {@code "w 0x186"}. */
        public List<String> accesses() {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < Math.min(logged, log.length); i++) {
                out.add((wrote[i] ? "w 0x" : "r 0x") + Integer.toHexString(log[i]));
            }
            return out;
        }

        @Override
        public long read(int register) {
            if (logged < log.length) {
                log[logged] = register;
                wrote[logged] = false;
            }
            logged++;
            reads++;
            return real.read(register);
        }

        @Override
        public void write(int register, long value) {
            if (logged < log.length) {
                log[logged] = register;
                wrote[logged] = true;
            }
            logged++;
            writes++;
            real.write(register, value);
        }
    }
}
