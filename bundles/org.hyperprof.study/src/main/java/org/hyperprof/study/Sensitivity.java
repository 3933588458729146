package org.hyperprof.study;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the study's conclusions hold when a modelled cost is scaled: {@code --vary cost.vpmu=0.5,1.5}
 * re-runs the study with the cost times each factor (through the host's {@code <key>.scale} option)
 * and says, comparison by comparison, whether its conclusion (differs from systemwide or not, and
 * which way) changed.
 *
 * @param key     what is varied: {@code cost.vpmu}, {@code cost.trap.hvm}, {@code cost.trap.pv} or
 *                {@code cost.trap.*} (both traps)
 * @param factors the factors, in order
 */
record Sensitivity(String key, List<Double> factors) {
    static final List<String> KEYS = List.of("cost.vpmu", "cost.trap.hvm", "cost.trap.pv", "cost.trap.*");

    Sensitivity {
        factors = List.copyOf(factors);
    }

    /** The host options that scale the varied cost by {@code factor}. */
    Map<String, String> hostOptions(double factor) {
        Map<String, String> out = new LinkedHashMap<>();
        String f = Double.toString(factor);
        if (key.equals("cost.trap.*")) {
            out.put("cost.trap.hvm.scale", f);
            out.put("cost.trap.pv.scale", f);
        } else {
            out.put(key + ".scale", f);
        }
        return out;
    }

    /** The variants with the scaling options added to their own. */
    List<Variant> scaled(List<Variant> variants, double factor) {
        List<Variant> out = new ArrayList<>();
        for (Variant v : variants) {
            Map<String, String> options = new LinkedHashMap<>(v.options());
            options.putAll(hostOptions(factor));
            out.add(new Variant(v.label(), v.policy(), options, v.systemWide()));
        }
        return out;
    }

    /** A comparison's conclusion: {@code higher}, {@code lower} (than systemwide, significantly) or {@code same}. */
    static String conclusion(StudySummary.Comparison c) {
        if (c == null) {
            return "n/a";
        }
        if (!c.significant()) {
            return "same";
        }
        return Stats.mean(c.differences()) > 0 ? "higher" : "lower";
    }

    /** One line per factor, then one per comparison whose conclusion changed. */
    String render(StudySummary base, List<StudySummary> byFactor) {
        String nl = System.lineSeparator();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < factors.size() && i < byFactor.size(); i++) {
            StudySummary scaled = byFactor.get(i);
            List<String> changed = new ArrayList<>();
            for (StudySummary.Comparison c : base.comparisons) {
                StudySummary.Comparison other = scaled.comparison(c.variant(), c.guest(), c.error());
                String before = conclusion(c);
                String after = conclusion(other);
                if (!before.equals(after)) {
                    changed.add("  " + c.variant() + " " + c.guest() + " err " + c.error() + ": " + before + " -> "
                            + after + " than systemwide (mean difference " + Numbers.fixed(Stats.mean(c.differences()),
                                    2) + " -> " + (other == null ? Numbers.NA
                                            : Numbers.fixed(Stats.mean(other.differences()), 2)) + " points)");
                }
            }
            b.append("sensitivity: ").append(key).append(" x ").append(factors.get(i)).append(": ")
                    .append(changed.isEmpty() ? "no conclusion changes" : changed.size() + " of "
                            + base.comparisons.size() + " conclusions change")
                    .append(changed.isEmpty() ? " (" + base.comparisons.size() + " comparisons with systemwide)" : "")
                    .append(nl);
            changed.forEach(line -> b.append(line).append(nl));
        }
        return b.toString();
    }
}
