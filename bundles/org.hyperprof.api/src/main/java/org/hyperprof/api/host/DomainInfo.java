package org.hyperprof.api.host;

import java.util.List;

/**
 * A domain of a simulated host as its own kernel knows it.
 *
 * @param domid          the domain id
 * @param name           its name ({@code Domain-0}, {@code domU-rcv})
 * @param hvm            an HVM (translated) guest; false for PV
 * @param vcpus          number of vCPUs
 * @param hardwareDomain whether it is the hardware domain (the only one that may become primary)
 * @param memoryMap      the images the domain's daemon knows: the hypervisor image (given with
 *                       {@code --xen}), its kernel, its modules, its user processes
 */
public record DomainInfo(int domid, String name, boolean hvm, int vcpus, boolean hardwareDomain,
        List<Mapping> memoryMap) {

    public DomainInfo {
        memoryMap = List.copyOf(memoryMap);
    }
}
