package org.hyperprof.hypervisor.sim.scenario;

/**
 * A guest function that makes a hypercall: the ground truth's "work on the guest's behalf" books the
 * hypervisor work done under the hypercall's handler to this function.
 *
 * @param guestFunction the guest kernel (or module) function that makes the hypercall
 * @param handler       the hypervisor function that handles it (do_memory_op, do_multicall, ...)
 * @param weight        its share of the handler's work among the domain's call sites of the same
 *                      handler, in millionths (a weight of 2.5 is 2500000)
 * @param source        where the call is made, as {@code <file>:<function>} of the guest's source
 * @param line          the scenario line
 */
public record CallSite(SymbolRef guestFunction, SymbolRef handler, long weight, String source, int line) {
}
