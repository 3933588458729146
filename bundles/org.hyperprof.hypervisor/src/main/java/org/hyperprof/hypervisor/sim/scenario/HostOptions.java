package org.hyperprof.hypervisor.sim.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of the simulated host itself (not of its PMU model): the scenario's
 * {@code host.option <key>=<value>} statements, which a load may override. Each key is known and
 * each value checked here, so a typo is an error rather than a silently ignored setting.
 */
public final class HostOptions {

    /** The host option that overrides the scenario's {@code xen.frame-pointers} line. */
    public static final String FRAME_POINTERS = "xen.frame-pointers";

    /** The host option added to the scenario's seed (the host's {@code scenario.seed} counter reports the sum). */
    public static final String SEED_OFFSET = "seed.offset";

    /** The host options that scale the modelled costs of counter virtualization, for sensitivity studies. */
    public static final String VPMU_COST_SCALE = "cost.vpmu.scale";
    public static final String TRAP_HVM_COST_SCALE = "cost.trap.hvm.scale";
    public static final String TRAP_PV_COST_SCALE = "cost.trap.pv.scale";

    /** The keys a host knows, each with what it takes. */
    public static final Map<String, String> KNOWN = Map.of(PostponedHandling.OPTION,
            "ignore|owner|poll: how the hypervisor handles a PMU interrupt postponed by MSR[EE]=0 (default ignore)",
            FRAME_POINTERS, "yes|no: whether the hypervisor was built with frame pointers, so that call"
                    + " traces of Xen-mode samples walk Xen's own stack (default: the scenario's xen.frame-pointers"
                    + " line, else no, as in release builds)",
            SEED_OFFSET, "<n>: added to the scenario's seed, so that a study can repeat a run under other"
                    + " scheduling and workload phases (default 0)",
            VPMU_COST_SCALE, "<factor>: scales every cost.vpmu price of the scenario (a sensitivity study;"
                    + " default 1)",
            TRAP_HVM_COST_SCALE, "<factor>: scales the scenario's cost.trap.hvm (default 1)",
            TRAP_PV_COST_SCALE, "<factor>: scales the scenario's cost.trap.pv (default 1)",
            "vpmu.policy", "<name>: the counter-virtualization policy, instead of the scenario's",
            "vpmu.<key>", "<value>: an option of the counter-virtualization policy (e.g. vpmu.freeze=exit)");

    /** The host option that overrides the scenario's counter-virtualization policy. */
    public static final String POLICY = "vpmu.policy";
    /** Host options with this prefix are the policy's own (read through {@code PolicyHost.option}). */
    public static final String POLICY_PREFIX = "vpmu.";

    private HostOptions() {
    }

    /**
     * Checks one option.
     *
     * @throws IllegalArgumentException for an unknown key (naming the known ones) or a bad value
     */
    public static void check(String key, String value) {
        if (key != null && key.startsWith(POLICY_PREFIX) && key.length() > POLICY_PREFIX.length()
                && !key.equals("vpmu.<key>")) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("host option '" + key + "' has no value; give " + key + "=<value>");
            }
            return;
        }
        if (key == null || !KNOWN.containsKey(key) || key.equals("vpmu.<key>")) {
            throw new IllegalArgumentException("unknown host option '" + key + "'; known host options: "
                    + describe() + " (options of the CPU model are pmu.option)");
        }
        if (key.equals(PostponedHandling.OPTION)) {
            PostponedHandling.ofOption(value);
        }
        if (key.equals(FRAME_POINTERS)) {
            framePointers(value);
        }
        if (key.equals(SEED_OFFSET)) {
            seedOffset(value);
        }
        if (key.equals(VPMU_COST_SCALE) || key.equals(TRAP_HVM_COST_SCALE) || key.equals(TRAP_PV_COST_SCALE)) {
            costScale(key, value);
        }
    }

    /**
     * The factor of a cost-scaling option.
     *
     * @throws IllegalArgumentException for a value that is not a number from 0 to 1000
     */
    public static double costScale(String key, String value) {
        double f;
        try {
            f = Double.parseDouble(value == null ? "" : value.strip());
        } catch (NumberFormatException e) {
            f = Double.NaN;
        }
        if (!(f >= 0 && f <= 1000)) {
            throw new IllegalArgumentException(key + " " + value + " is not a factor from 0 to 1000 (it scales the"
                    + " scenario's modelled cost, e.g. " + key + "=1.5)");
        }
        return f;
    }

    /**
     * The value of {@value #SEED_OFFSET}.
     *
     * @throws IllegalArgumentException for a value that is not a whole number
     */
    public static long seedOffset(String value) {
        try {
            return Long.parseLong(value == null ? "" : value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(SEED_OFFSET + " " + value + " is not a whole number (added to the"
                    + " scenario's seed, e.g. seed.offset=3)");
        }
    }

    /**
     * The value of {@value #FRAME_POINTERS}.
     *
     * @throws IllegalArgumentException for a value other than yes or no
     */
    public static boolean framePointers(String value) {
        String v = value == null ? "" : value.strip();
        if (!v.equals("yes") && !v.equals("no")) {
            throw new IllegalArgumentException(FRAME_POINTERS + " " + value + " is neither yes nor no (whether the"
                    + " hypervisor was built with frame pointers; release builds: no)");
        }
        return v.equals("yes");
    }

    /** Checks every option and returns them merged over {@code base}, in a stable order. */
    public static Map<String, String> merge(Map<String, String> base, Map<String, String> overrides) {
        Map<String, String> out = new LinkedHashMap<>(base);
        if (overrides != null) {
            for (Map.Entry<String, String> e : overrides.entrySet()) {
                check(e.getKey(), e.getValue());
                out.put(e.getKey(), e.getValue().strip());
            }
        }
        return out;
    }

    /** The known options as {@code key (values)}. */
    public static String describe() {
        List<String> parts = KNOWN.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")").sorted()
                .toList();
        return String.join(", ", parts);
    }
}
