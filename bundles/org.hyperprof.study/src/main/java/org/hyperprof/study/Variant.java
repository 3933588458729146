package org.hyperprof.study;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One column of the study: a policy with its options, and whether Xenoprof profiles the host
 * system-wide during the run (otherwise only the guests' own profilers run).
 *
 * @param label      what the table calls it ({@code saverestore/frozen})
 * @param policy     the {@code vpmu.policy} name
 * @param options    policy options as host options ({@code vpmu.freeze=exit}), in order
 * @param systemWide whether Xenoprof profiles the host during the run
 */
record Variant(String label, String policy, Map<String, String> options, boolean systemWide) {

    Variant {
        options = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }

    /** The variants the study runs by default, in this order, when their policy is installed. */
    static final List<Variant> STANDARD = List.of(
            new Variant("systemwide", "systemwide", Map.of(), true),
            new Variant("saverestore", "saverestore", Map.of(StudyKeys.HOST_OPTION_FREEZE, "running"), false),
            new Variant("saverestore/frozen", "saverestore", Map.of(StudyKeys.HOST_OPTION_FREEZE, "exit"), false),
            new Variant("lazy", "lazy", Map.of(), false),
            new Variant("offset", "offset", Map.of(), false),
            new Variant("partitioned", "partitioned", Map.of(), true));

    /** The standard variant of that label, or null. */
    static Variant standard(String label) {
        for (Variant v : STANDARD) {
            if (v.label.equals(label)) {
                return v;
            }
        }
        return null;
    }

    /**
     * A policy the standard list does not know: run with its defaults and the guests' own
     * profilers only.
     */
    static Variant other(String policy) {
        return new Variant(policy, policy, Map.of(), false);
    }

    /** The host options of the load: the policy override, then the policy's options. */
    Map<String, String> hostOptions() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put(StudyKeys.HOST_OPTION_POLICY, policy);
        all.putAll(options);
        return all;
    }

    /** The options as the CSV shows them: {@code vpmu.freeze=exit}, space-separated; empty when none. */
    String optionsText() {
        StringBuilder b = new StringBuilder();
        options.forEach((k, v) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return b.toString();
    }
}
