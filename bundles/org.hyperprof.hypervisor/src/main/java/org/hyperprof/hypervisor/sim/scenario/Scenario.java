package org.hyperprof.hypervisor.sim.scenario;

import java.util.List;
import java.util.Map;

/**
 * A parsed scenario: the host, the hypervisor image and the domains with their workloads. All
 * symbol names are resolved; the CPU model and the policy are names still to be looked up.
 *
 * @param name              the scenario's name
 * @param description       one line on what it models
 * @param location          the scenario file, for messages
 * @param cpuType           OProfile cpu_type of the PMU model
 * @param mhz               clock in MHz
 * @param pcpus             number of physical CPUs
 * @param seed              seed of every pseudo-random choice: the scenario's plus the host option
 *                          {@code seed.offset} (given to the constructor without the offset)
 * @param pmuOptions        options for {@code PmuModel.createPmu}
 * @param policy            the counter-virtualization policy's name
 * @param pvKernelCpl       CPL of PV guest kernels, or -1 to derive it from the cpu type
 * @param timesliceMicros   scheduler time slice
 * @param accountingMicros  credit accounting period
 * @param quantumMicros     how far one physical CPU runs before the next one catches up
 * @param sliceMinCycles    shortest workload slice
 * @param sliceMaxCycles    longest workload slice
 * @param hypervisorRates   rates of inserted hypervisor work, by signal ordinal
 * @param contextSwitch     the scheduler's cost at each vCPU switch
 * @param nmiHandler        the NMI handler's own cost after each PMU interrupt
 * @param idleLoop          the unhalted stretch of the idle loop before halting
 * @param halt              where a halted physical CPU sits
 * @param hypervisor        the hypervisor image
 * @param domains           the domains, in file order
 * @param lines             line numbers of host statements by keyword (for later errors)
 * @param xenFramePointers  whether the hypervisor was built with frame pointers, so that Xenoprof
 *                          walks call traces of Xen-mode samples ({@code xen.frame-pointers}; release
 *                          builds of Xen have none, the default; the host option of the same
 *                          name overrides it)
 * @param hostOptions       options of the host itself ({@code host.option}, see {@link HostOptions})
 * @param interruptsOff     hypervisor functions that run with external interrupts disabled (PowerPC
 *                          MSR[EE]=0) wherever they run ({@code ee.off})
 * @param pollPoints        hypervisor functions at whose end the hypervisor polls the PMU's alert
 *                          when postponed interrupts are handled by polling ({@code poll.points})
 */
public record Scenario(String name, String description, String location, String cpuType, long mhz, int pcpus,
        long seed, Map<String, String> pmuOptions, String policy, int pvKernelCpl, long timesliceMicros,
        long accountingMicros, long quantumMicros, long sliceMinCycles, long sliceMaxCycles, long[] hypervisorRates,
        HypervisorCost contextSwitch, HypervisorCost nmiHandler, HypervisorCost idleLoop, SymbolRef halt,
        ImageSpec hypervisor, List<DomainSpec> domains, Map<String, Integer> lines, boolean xenFramePointers,
        Map<String, String> hostOptions, List<SymbolRef> interruptsOff, List<SymbolRef> pollPoints,
        VirtualPmuSpec vpmu) {

    /** A scenario that prices no virtual PMU. */
    public Scenario(String name, String description, String location, String cpuType, long mhz, int pcpus,
            long seed, Map<String, String> pmuOptions, String policy, int pvKernelCpl, long timesliceMicros,
            long accountingMicros, long quantumMicros, long sliceMinCycles, long sliceMaxCycles, long[] hypervisorRates,
            HypervisorCost contextSwitch, HypervisorCost nmiHandler, HypervisorCost idleLoop, SymbolRef halt,
            ImageSpec hypervisor, List<DomainSpec> domains, Map<String, Integer> lines, boolean xenFramePointers,
            Map<String, String> hostOptions, List<SymbolRef> interruptsOff, List<SymbolRef> pollPoints) {
        this(name, description, location, cpuType, mhz, pcpus, seed, pmuOptions, policy, pvKernelCpl, timesliceMicros,
                accountingMicros, quantumMicros, sliceMinCycles, sliceMaxCycles, hypervisorRates, contextSwitch,
                nmiHandler, idleLoop, halt, hypervisor, domains, lines, xenFramePointers, hostOptions, interruptsOff,
                pollPoints, VirtualPmuSpec.NONE);
    }

    /** A scenario without host options, EE=0 stretches or poll points. */
    public Scenario(String name, String description, String location, String cpuType, long mhz, int pcpus,
            long seed, Map<String, String> pmuOptions, String policy, int pvKernelCpl, long timesliceMicros,
            long accountingMicros, long quantumMicros, long sliceMinCycles, long sliceMaxCycles, long[] hypervisorRates,
            HypervisorCost contextSwitch, HypervisorCost nmiHandler, HypervisorCost idleLoop, SymbolRef halt,
            ImageSpec hypervisor, List<DomainSpec> domains, Map<String, Integer> lines, boolean xenFramePointers) {
        this(name, description, location, cpuType, mhz, pcpus, seed, pmuOptions, policy, pvKernelCpl, timesliceMicros,
                accountingMicros, quantumMicros, sliceMinCycles, sliceMaxCycles, hypervisorRates, contextSwitch,
                nmiHandler, idleLoop, halt, hypervisor, domains, lines, xenFramePointers, Map.of(), List.of(),
                List.of());
    }

    /** A scenario whose hypervisor has no frame pointers (a Xen release build). */
    public Scenario(String name, String description, String location, String cpuType, long mhz, int pcpus,
            long seed, Map<String, String> pmuOptions, String policy, int pvKernelCpl, long timesliceMicros,
            long accountingMicros, long quantumMicros, long sliceMinCycles, long sliceMaxCycles, long[] hypervisorRates,
            HypervisorCost contextSwitch, HypervisorCost nmiHandler, HypervisorCost idleLoop, SymbolRef halt,
            ImageSpec hypervisor, List<DomainSpec> domains, Map<String, Integer> lines) {
        this(name, description, location, cpuType, mhz, pcpus, seed, pmuOptions, policy, pvKernelCpl, timesliceMicros,
                accountingMicros, quantumMicros, sliceMinCycles, sliceMaxCycles, hypervisorRates, contextSwitch,
                nmiHandler, idleLoop, halt, hypervisor, domains, lines, false);
    }

    public Scenario {
        vpmu = vpmu == null ? VirtualPmuSpec.NONE : vpmu;
        // The host option, given at load or in a host.option line, says more than the scenario's line.
        String framePointers = hostOptions.get(HostOptions.FRAME_POINTERS);
        if (framePointers != null) {
            xenFramePointers = HostOptions.framePointers(framePointers);
        }
        // A study repeats a run under other phases by the seed.offset host option: the seed is the sum.
        seed += seedOffset(hostOptions);
        pmuOptions = Map.copyOf(pmuOptions);
        hostOptions = Map.copyOf(hostOptions);
        interruptsOff = List.copyOf(interruptsOff);
        pollPoints = List.copyOf(pollPoints);
        domains = List.copyOf(domains);
        lines = Map.copyOf(lines);
        hypervisorRates = hypervisorRates.clone();
    }

    @Override
    public long[] hypervisorRates() {
        return hypervisorRates.clone();
    }

    /** How the host handles PMU interrupts postponed by MSR[EE]=0 ({@value PostponedHandling#OPTION}; default ignore). */
    public PostponedHandling postponedHandling() {
        String v = hostOptions.get(PostponedHandling.OPTION);
        return v == null ? PostponedHandling.IGNORE : PostponedHandling.ofOption(v);
    }

    /**
     * The same scenario with host options merged over its own and, when {@code pmuOptions} is not
     * null, those PMU options instead of its own.
     *
     * @throws IllegalArgumentException for an unknown host option or value (see {@link HostOptions})
     */
    public Scenario withOptions(Map<String, String> hostOverrides, Map<String, String> pmuOptions) {
        Map<String, String> host = HostOptions.merge(hostOptions, hostOverrides);
        Map<String, String> pmu = pmuOptions == null ? this.pmuOptions : pmuOptions;
        // The constructor adds the new options' seed offset: take the one in force out, so it applies once.
        long baseSeed = seed - seedOffset(hostOptions);
        return new Scenario(name, description, location, cpuType, mhz, pcpus, baseSeed, pmu, policy, pvKernelCpl,
                timesliceMicros, accountingMicros, quantumMicros, sliceMinCycles, sliceMaxCycles, hypervisorRates,
                contextSwitch, nmiHandler, idleLoop, halt, hypervisor, domains, lines, xenFramePointers, host,
                interruptsOff, pollPoints, vpmu);
    }

    private static long seedOffset(Map<String, String> options) {
        String v = options.get(HostOptions.SEED_OFFSET);
        return v == null ? 0 : HostOptions.seedOffset(v);
    }

    /**
     * The virtual PMU's prices as the host charges them: the scenario's, each scaled by its host
     * option ({@code cost.vpmu.scale}, {@code cost.trap.hvm.scale}, {@code cost.trap.pv.scale}) when given.
     */
    public VirtualPmuSpec effectiveVpmu() {
        double all = scale(HostOptions.VPMU_COST_SCALE);
        double hvm = scale(HostOptions.TRAP_HVM_COST_SCALE);
        double pv = scale(HostOptions.TRAP_PV_COST_SCALE);
        if (all == 1 && hvm == 1 && pv == 1) {
            return vpmu;
        }
        Map<String, Long> costs = new java.util.TreeMap<>();
        vpmu.costs().forEach((k, v) -> costs.put(k, Math.round(v * all)));
        return new VirtualPmuSpec(costs, scaled(vpmu.hvm(), hvm), scaled(vpmu.pv(), pv));
    }

    private double scale(String key) {
        String v = hostOptions.get(key);
        return v == null ? 1 : HostOptions.costScale(key, v);
    }

    private static VirtualPmuSpec.Trap scaled(VirtualPmuSpec.Trap trap, double factor) {
        return trap == null ? null : new VirtualPmuSpec.Trap(Math.round(trap.cycles() * factor), trap.function());
    }

    /** The counter-virtualization policy: the host option {@code vpmu.policy} when given, else the scenario's. */
    public String effectivePolicy() {
        return hostOptions.getOrDefault(HostOptions.POLICY, policy);
    }

    /**
     * The host options addressed to the policy ({@code vpmu.<key>}, without the prefix), the
     * policy's name excepted.
     */
    public Map<String, String> policyOptions() {
        Map<String, String> out = new java.util.TreeMap<>();
        for (Map.Entry<String, String> e : hostOptions.entrySet()) {
            if (e.getKey().startsWith(HostOptions.POLICY_PREFIX) && !e.getKey().equals(HostOptions.POLICY)) {
                out.put(e.getKey().substring(HostOptions.POLICY_PREFIX.length()), e.getValue());
            }
        }
        return out;
    }

    /** {@code file:line} of a host statement, or the file when the statement was defaulted. */
    public String where(String keyword) {
        Integer line = lines.get(keyword);
        return line == null ? location : location + ":" + line;
    }

    /**
     * The CPL a PV guest kernel runs at: as given, else 3 for 64-bit x86 hosts (x86-64 PV kernels
     * run in ring 3) and 1 otherwise (32-bit PV kernels run in ring 1; PowerPC supervisor state).
     */
    public int pvKernelCpl(String effectiveCpuType) {
        if (pvKernelCpl >= 0) {
            return pvKernelCpl;
        }
        return effectiveCpuType.startsWith("x86-64/") ? 3 : 1;
    }
}
