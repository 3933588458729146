package org.hyperprof.study;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A study over several seeds: every figure of every variant as the mean and the Student-t 95 %
 * half-width over the per-seed values, and each policy's errors compared with {@code systemwide}'s
 * seed by seed (paired, since every variant runs the same seeds), Holm-corrected over the
 * comparisons made.
 */
final class StudySummary {
    static final String BASELINE = "systemwide";
    static final double ALPHA = 0.05;

    /** A mean over seeds with its 95 % half-width (NaN with fewer than two values) and how many values. */
    record Figure(double mean, double halfWidth, int n) {
        static Figure of(List<Double> values) {
            double[] x = values.stream().mapToDouble(Double::doubleValue).toArray();
            return x.length == 0 ? new Figure(Double.NaN, Double.NaN, 0)
                    : new Figure(Stats.mean(x), Stats.halfWidth95(x), x.length);
        }

        String text(int places) {
            if (n == 0) {
                return Numbers.NA;
            }
            String m = Numbers.fixed(mean, places);
            return Double.isNaN(halfWidth) ? m : m + " ± " + Numbers.fixed(halfWidth, places);
        }

        String meanCsv() {
            return n == 0 ? Numbers.NA : Numbers.fixed(mean, 3);
        }

        String halfWidthCsv() {
            return n == 0 || Double.isNaN(halfWidth) ? Numbers.NA : Numbers.fixed(halfWidth, 3);
        }
    }

    /**
     * One policy's error for one guest against {@code systemwide}'s, seed by seed.
     *
     * @param error    {@code A} (guest only) or {@code B} (with the hypervisor's work on its behalf)
     * @param adjusted the Holm-adjusted two-sided p-value; the difference counts when it is below 0.05
     */
    record Comparison(String variant, String guest, String error, double[] differences, double p, double adjusted) {
        boolean significant() {
            return adjusted < ALPHA;
        }

        /** |mean| / sd of the paired differences: how far apart the two are in units of their noise. */
        double standardized() {
            double sd = Stats.sd(differences);
            return sd == 0 ? Double.POSITIVE_INFINITY : Math.abs(Stats.mean(differences)) / sd;
        }
    }

    record GuestRow(String name, String sources, Figure samples, long totalSamples, Figure errA, Figure maxA,
            Figure errB, Figure maxB) {
    }

    record VariantRow(Variant variant, int ok, List<String> failures, Figure hyp, Figure policy, Figure accesses,
            Figure lost, List<GuestRow> guests) {
    }

    final String scenario;
    final Long seed;
    final long ms;
    final int seeds;
    final List<VariantRow> rows = new ArrayList<>();
    final List<Comparison> comparisons = new ArrayList<>();

    StudySummary(List<Results.Study> studies) {
        Results.Study first = studies.get(0);
        this.scenario = first.scenario();
        this.seed = first.seed();
        this.ms = first.ms();
        this.seeds = studies.size();
        Map<String, Variant> variants = new LinkedHashMap<>();
        Map<String, List<String>> guests = new LinkedHashMap<>();
        for (Results.Study s : studies) {
            for (Results.Run r : s.runs()) {
                variants.putIfAbsent(r.variant().label(), r.variant());
                List<String> names = guests.computeIfAbsent(r.variant().label(), k -> new ArrayList<>());
                for (Results.Guest g : r.guests()) {
                    if (!names.contains(g.name())) {
                        names.add(g.name());
                    }
                }
            }
        }
        for (Variant v : variants.values()) {
            List<Results.Run> runs = runs(studies, v.label());
            List<Results.Run> ok = runs.stream().filter(Results.Run::ok).toList();
            List<String> failures = runs.stream().filter(r -> !r.ok()).map(Results.Run::failure).distinct().toList();
            List<GuestRow> rowsOfGuests = new ArrayList<>();
            for (String name : guests.get(v.label())) {
                List<Results.Guest> gs = ok.stream().flatMap(r -> r.guests().stream())
                        .filter(g -> g.name().equals(name)).toList();
                rowsOfGuests.add(new GuestRow(name, String.join("/", gs.stream().map(Results.Guest::source)
                        .distinct().toList()), figure(gs, g -> (double) g.samples()),
                        gs.stream().mapToLong(Results.Guest::samples).sum(),
                        figure(gs, g -> g.guestOnly() == null ? null : g.guestOnly().totalPoints()),
                        figure(gs, g -> g.guestOnly() == null ? null : g.guestOnly().maxSymbolPoints()),
                        figure(gs, g -> g.withHypervisor() == null ? null : g.withHypervisor().totalPoints()),
                        figure(gs, g -> g.withHypervisor() == null ? null : g.withHypervisor().maxSymbolPoints())));
            }
            rows.add(new VariantRow(v, ok.size(), failures, figure(ok, r -> r.overhead().hypervisorPercent()),
                    figure(ok, r -> r.overhead().policyPercent()), figure(ok, r -> r.overhead().accessesPerSwitch()),
                    figure(ok, r -> (double) r.lost()), rowsOfGuests));
        }
        compare(studies, variants, guests);
    }

    private static List<Results.Run> runs(List<Results.Study> studies, String label) {
        List<Results.Run> out = new ArrayList<>();
        for (Results.Study s : studies) {
            s.runs().stream().filter(r -> r.variant().label().equals(label)).findFirst().ifPresent(out::add);
        }
        return out;
    }

    private static <T> Figure figure(List<T> items, Function<T, Double> value) {
        List<Double> values = new ArrayList<>();
        for (T t : items) {
            Double v = value.apply(t);
            if (v != null && !v.isNaN()) {
                values.add(v);
            }
        }
        return Figure.of(values);
    }

    /** Each policy's err A and err B per guest against the baseline's on the same seed, Holm-corrected together. */
    private void compare(List<Results.Study> studies, Map<String, Variant> variants, Map<String, List<String>> guests) {
        if (!variants.containsKey(BASELINE)) {
            return;
        }
        List<Comparison> raw = new ArrayList<>();
        for (String label : variants.keySet()) {
            if (label.equals(BASELINE)) {
                continue;
            }
            for (String guest : guests.get(label)) {
                for (String error : List.of("A", "B")) {
                    List<Double> d = new ArrayList<>();
                    for (Results.Study s : studies) {
                        Double mine = error(s, label, guest, error);
                        Double base = error(s, BASELINE, guest, error);
                        if (mine != null && base != null) {
                            d.add(mine - base);
                        }
                    }
                    if (d.size() >= 2) {
                        double[] x = d.stream().mapToDouble(Double::doubleValue).toArray();
                        raw.add(new Comparison(label, guest, error, x, Stats.pairedP(x), Double.NaN));
                    }
                }
            }
        }
        double[] adjusted = Stats.holm(raw.stream().mapToDouble(Comparison::p).toArray());
        for (int i = 0; i < raw.size(); i++) {
            Comparison c = raw.get(i);
            comparisons.add(new Comparison(c.variant(), c.guest(), c.error(), c.differences(), c.p(), adjusted[i]));
        }
    }

    private static Double error(Results.Study s, String label, String guest, String which) {
        for (Results.Run r : s.runs()) {
            if (r.ok() && r.variant().label().equals(label)) {
                for (Results.Guest g : r.guests()) {
                    if (g.name().equals(guest)) {
                        ProfileError e = which.equals("A") ? g.guestOnly() : g.withHypervisor();
                        return e == null ? null : e.totalPoints();
                    }
                }
            }
        }
        return null;
    }

    /** The comparison of that policy, guest and error, or null when none was made. */
    Comparison comparison(String variant, String guest, String error) {
        for (Comparison c : comparisons) {
            if (c.variant().equals(variant) && c.guest().equals(guest) && c.error().equals(error)) {
                return c;
            }
        }
        return null;
    }

    /** The comparison whose difference is smallest against its noise, or null when none was made. */
    Comparison closest() {
        Comparison best = null;
        for (Comparison c : comparisons) {
            if (best == null || c.standardized() < best.standardized()) {
                best = c;
            }
        }
        return best;
    }

    static String fixed(double v, int places) {
        return String.format(Locale.ROOT, "%." + places + "f", v);
    }
}
