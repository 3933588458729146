package org.hyperprof.testing.sample;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;

/**
 * A session in the shape of the 2006 network experiment, as the report consumers' tests build it:
 * P6's two events, dom0 (driver domain: Xen, its kernel, e1000) and a domU receiver (Xen, its
 * kernel, the {@code rcv22} process), the images registered in that order. Each report's test
 * extends it with the symbols, samples and books its rules are read from.
 */
public class NetworkExperiment {
    public static final int DOM0 = 0;
    public static final int DOMU = 1;

    public static final UnitMask NO_MASK = new UnitMask("zero", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "No unit mask")));
    public static final EventDescriptor CPU_CLK_UNHALTED = new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 0b11, 6000,
            NO_MASK, Signal.CYCLES, "clocks processor is not halted");
    public static final EventDescriptor INST_RETIRED = new EventDescriptor("INST_RETIRED", 0xc0, 0b11, 6000, NO_MASK,
            Signal.INSTRUCTIONS, "number of instructions retired");
    public static final CounterConfig CYCLES_100000 = new CounterConfig(0, CPU_CLK_UNHALTED, 100000, 0, true, true);
    public static final CounterConfig INSTRUCTIONS_50000 = new CounterConfig(1, INST_RETIRED, 50000, 0, true, true);

    public final TestDictionary dictionary = new TestDictionary();
    public final int dom0Xen = dictionary.image(DOM0, "xen-syms", ImageKind.HYPERVISOR);
    public final int dom0Kernel = dictionary.image(DOM0, "vmlinux-xen0", ImageKind.KERNEL);
    public final int e1000 = dictionary.image(DOM0, "e1000", ImageKind.MODULE);
    public final int domUXen = dictionary.image(DOMU, "xen-syms", ImageKind.HYPERVISOR);
    public final int domUKernel = dictionary.image(DOMU, "vmlinux-xenU", ImageKind.KERNEL);
    public final int rcv22 = dictionary.image(DOMU, "rcv22", ImageKind.USER);

    /** The session on the simulated 2800 MHz PIII, with the domains' names and the counters that sampled. */
    public SessionInfo sessionInfo(long sessionId, Map<Integer, String> domains, CounterConfig... counters) {
        return new SessionInfo(sessionId, "simulator", "xen-summit-2006", "i386/p6", "PIII", 2800, List.of(counters),
                domains, true, dictionary);
    }
}
