package org.hyperprof.hypervisor.xenoprof;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.pmu.PmuModel;

/** A host for the Xenoprof tests: domains with vCPU counts, dom0 as hardware domain, fake PMUs. */
final class FakeMachine implements Machine {
    private final PmuModel model;
    private final FakePmu[] pmus;
    private final Map<Integer, Integer> vcpus = new LinkedHashMap<>();
    private final Set<Integer> hvm = new HashSet<>();
    /** What holds the PMU for the guests, or null when Xenoprof may take it. */
    String guestsHoldPmu;
    /** Read by XenoprofCore when it is built: set before constructing the core. */
    boolean framePointers;

    FakeMachine(PmuModel model, int pcpus) {
        this.model = model;
        this.pmus = new FakePmu[pcpus];
        for (int c = 0; c < pcpus; c++) {
            pmus[c] = model == null ? new FakePmu(c, null) : (FakePmu) model.createPmu(c, Map.of());
        }
    }

    /** The usual test host: the two-counter model, 2 pCPUs, dom0 (2 vCPUs), dom3 (2 vCPUs), dom5 (1 vCPU). */
    static FakeMachine standard() {
        return new FakeMachine(new FakeModel(2), 2).domain(0, 2).domain(3, 2).domain(5, 1);
    }

    FakeMachine domain(int domid, int vcpuCount) {
        vcpus.put(domid, vcpuCount);
        return this;
    }

    FakeMachine hvmDomain(int domid, int vcpuCount) {
        vcpus.put(domid, vcpuCount);
        hvm.add(domid);
        return this;
    }

    void destroy(int domid) {
        vcpus.remove(domid);
    }

    FakePmu fakePmu(int pcpu) {
        return pmus[pcpu];
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
    public FakePmu pmu(int pcpu) {
        return pmus[pcpu];
    }

    @Override
    public boolean domainExists(int domid) {
        return vcpus.containsKey(domid);
    }

    @Override
    public int vcpuCount(int domid) {
        Integer n = vcpus.get(domid);
        if (n == null) {
            throw new IllegalArgumentException("no domain " + domid);
        }
        return n;
    }

    @Override
    public boolean hardwareDomain(int domid) {
        return domid == 0;
    }

    @Override
    public boolean hvm(int domid) {
        return hvm.contains(domid);
    }

    @Override
    public String guestsHoldPmu() {
        return guestsHoldPmu;
    }

    @Override
    public boolean hypervisorFramePointers() {
        return framePointers;
    }
}
