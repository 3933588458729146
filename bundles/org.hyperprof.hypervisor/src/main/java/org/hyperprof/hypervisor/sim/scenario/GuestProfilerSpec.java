package org.hyperprof.hypervisor.sim.scenario;

/**
 * A guest's own profiler (OProfile or perf in the guest, against the virtual PMU the host's
 * counter-virtualization policy offers): {@code profiler <event spec> handler=<kernel function>
 * [handler.cycles=<n>] [buffer=<slots>]} inside a domain.
 *
 * @param event         the event in OProfile syntax ({@code EVENT:count[:unitmask[:kernel[:user]]]})
 * @param handler       the guest kernel function its PMU interrupt handler runs in
 * @param handlerCycles cycles of guest kernel work per virtual PMU interrupt
 * @param bufferSlots   slots of each vCPU's sample buffer (the guest kernel's own CPU buffer)
 * @param counter       the counter the guest puts its event on ({@code counter=<n>}), or -1 for the
 *                      model's own placement
 * @param line          the scenario line
 */
public record GuestProfilerSpec(String event, SymbolRef handler, long handlerCycles, int bufferSlots, int counter,
        int line) {
}
