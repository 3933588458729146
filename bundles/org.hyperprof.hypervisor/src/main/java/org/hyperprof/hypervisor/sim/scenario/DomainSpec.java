package org.hyperprof.hypervisor.sim.scenario;

import java.util.List;

/**
 * A domain of the scenario.
 *
 * @param domid          the domain id
 * @param name           its name
 * @param hvm            an HVM guest (its kernel runs at its own CPL 0); false for PV
 * @param vcpus          number of vCPUs
 * @param hardwareDomain the hardware domain (dom0)
 * @param loadPpm        busy fraction of each vCPU in parts per million
 * @param burstMicros    mean length of a busy burst before the vCPU blocks, in microseconds
 * @param images         the kernel first, then modules, then user processes
 * @param regions        the workload
 * @param line           the scenario line that declares it
 * @param profiler       the guest's own profiler, or null when it runs none
 * @param callSites      which of its functions make which hypercalls (empty: none said)
 */
public record DomainSpec(int domid, String name, boolean hvm, int vcpus, boolean hardwareDomain, long loadPpm,
        long burstMicros, List<ImageSpec> images, List<RegionSpec> regions, int line, GuestProfilerSpec profiler,
        List<CallSite> callSites) {

    public DomainSpec {
        images = List.copyOf(images);
        regions = List.copyOf(regions);
        callSites = List.copyOf(callSites);
    }

    /** A domain whose scenario says no call sites. */
    public DomainSpec(int domid, String name, boolean hvm, int vcpus, boolean hardwareDomain, long loadPpm,
            long burstMicros, List<ImageSpec> images, List<RegionSpec> regions, int line, GuestProfilerSpec profiler) {
        this(domid, name, hvm, vcpus, hardwareDomain, loadPpm, burstMicros, images, regions, line, profiler, List.of());
    }

    /** A domain that runs no profiler of its own. */
    public DomainSpec(int domid, String name, boolean hvm, int vcpus, boolean hardwareDomain, long loadPpm,
            long burstMicros, List<ImageSpec> images, List<RegionSpec> regions, int line) {
        this(domid, name, hvm, vcpus, hardwareDomain, loadPpm, burstMicros, images, regions, line, null);
    }
}
