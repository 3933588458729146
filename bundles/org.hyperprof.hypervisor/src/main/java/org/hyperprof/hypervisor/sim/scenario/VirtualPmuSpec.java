package org.hyperprof.hypervisor.sim.scenario;

import java.util.Map;

/**
 * What virtualizing the PMU costs on this host: the prices a counter-virtualization policy reads
 * ({@code cost.vpmu <name> <cycles>}: {@code pmu.read}, {@code pmu.write}, {@code inject},
 * {@code ipi}), and the trap a guest's PMU register access takes into the hypervisor, for HVM (an
 * MSR intercept: VM exit, emulation, VM entry; {@code cost.trap.hvm <cycles> <function>}) and for PV
 * (the emulated privileged instruction or hypercall; {@code cost.trap.pv <cycles> <function>}).
 * The scenario file names the source of each number beside it.
 *
 * @param costs cycles per named event
 * @param hvm   an HVM guest's trapped PMU access, or null when the scenario prices none
 * @param pv    a PV guest's trapped PMU access, or null
 */
public record VirtualPmuSpec(Map<String, Long> costs, Trap hvm, Trap pv) {

    /** No virtual PMU prices: a host for Xenoprof alone. */
    public static final VirtualPmuSpec NONE = new VirtualPmuSpec(Map.of(), null, null);

    public VirtualPmuSpec {
        costs = Map.copyOf(costs);
    }

    /** A trap: its cycles and the hypervisor function they are spent in. */
    public record Trap(long cycles, SymbolRef function) {
    }
}
