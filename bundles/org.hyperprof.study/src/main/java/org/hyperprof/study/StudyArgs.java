package org.hyperprof.study;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.UsageException;

/**
 * {@code hp:study}'s command line: {@code [--scenario <name|path>] [--policies a,b] [--ms <n>]
 * [--seeds <n>] [--vary <cost>=<f>,<f>] [--jobs <n>] [--out <dir>]}, each option also as {@code --option=value}.
 *
 * @param scenario the scenario (default: the embedded default)
 * @param policies the variants asked for, in order, or null for every installed standard one
 * @param ms       simulated milliseconds per variant
 * @param seeds    how many seeds each variant runs over (offsets 0 to seeds - 1)
 * @param vary     the modelled cost to scale and by which factors, or null
 * @param jobs     how many runs may go on at once, each on a simulated host of its own
 * @param out      the folder the CSV and SVG files go to
 */
record StudyArgs(String scenario, List<String> policies, long ms, int seeds, Sensitivity vary, int jobs, Path out) {

    static final long DEFAULT_MS = 500;
    static final int DEFAULT_SEEDS = 10;
    static final int MAX_SEEDS = 1000;
    /** A bound that keeps a typo from running for hours. */
    static final long MAX_MS = 600_000;
    /** More lanes than cores only add memory: a bound well above any machine this runs on. */
    static final int MAX_JOBS = 256;

    /** What {@code hp:study} takes: its table's usage line, and its {@code @Descriptor} (a constant). */
    static final String ARGUMENTS = "[--scenario name|path] [--policies a,b,...] [--ms N] [--seeds N] [--vary cost=f,f] [--jobs N] [--out dir]";

    static final Syntax SYNTAX = Syntax.of("hp:study", "run a scenario under each counter-virtualization policy;"
            + " print overhead and each guest's profile error against both truths")
            .options(Option.value("--scenario", "name|path", "the scenario (default: the embedded default)")
                    .completedBy(Completion.SCENARIO),
                    Option.value("--policies", "a,b,...", "the policy variants, in order, e.g."
                            + " systemwide,saverestore/frozen (default: every installed standard one)"),
                    Option.value("--ms", "N", "simulated milliseconds per variant (default " + DEFAULT_MS + ", at most "
                            + MAX_MS + ")"),
                    Option.value("--seeds", "N", "run every variant over N seeds (the scenario's seed plus 0 to"
                            + " N-1) and report means with 95 % intervals (default " + DEFAULT_SEEDS + "; 1: one run"
                            + " per variant)"),
                    Option.value("--vary", "cost=f,f", "re-run the study with a modelled cost scaled by each factor"
                            + " and say which conclusions change (cost.vpmu, cost.trap.hvm, cost.trap.pv or"
                            + " cost.trap.*; e.g. cost.vpmu=0.5,1.5)"),
                    Option.value("--jobs", "N", "runs at once, each on a simulated host of its own (default: the"
                            + " number of processors; 1: one after another on the current host, whose sessions"
                            + " also reach the reports and the store); the figures are the same whatever N"),
                    Option.value("--out", "dir", "the folder the CSV and SVG files go to (created; default: the"
                            + " working directory)").completedBy(Completion.FILE))
            .notes("  Writes hyperprof-study-<scenario>.csv and .svg; Ctrl-C stops the study after the variant"
                    + " that runs.");

    static StudyArgs parse(String... args) throws UsageException {
        Args a = SYNTAX.parse(args).atMostPositional(0, "only options; options start with --");
        String scenario = HostService.DEFAULT_SCENARIO;
        List<String> policies = null;
        long ms = DEFAULT_MS;
        Path out = Path.of("");
        if (a.value("--scenario") != null) {
            if (a.value("--scenario").isBlank()) {
                throw new UsageException("--scenario needs a scenario name or a scenario file's path");
            }
            scenario = a.value("--scenario").strip();
        }
        if (a.value("--policies") != null) {
            policies = policies(a.value("--policies"));
        }
        if (a.value("--ms") != null) {
            ms = Args.number(a.value("--ms").replace("_", ""), "--ms (simulated milliseconds per variant)", 1, MAX_MS);
        }
        int seeds = DEFAULT_SEEDS;
        if (a.value("--seeds") != null) {
            seeds = (int) Args.number(a.value("--seeds").replace("_", ""), "--seeds (seeds per variant)", 1,
                    MAX_SEEDS);
        }
        Sensitivity vary = a.value("--vary") == null ? null : vary(a.value("--vary"));
        if (vary != null && seeds < 2) {
            throw new UsageException("--vary compares conclusions over seeds; give --seeds 2 or more");
        }
        int jobs = defaultJobs();
        if (a.value("--jobs") != null) {
            jobs = (int) Args.number(a.value("--jobs").replace("_", ""), "--jobs (runs at once)", 1, MAX_JOBS);
        }
        if (a.value("--out") != null) {
            if (a.value("--out").isBlank()) {
                throw new UsageException("--out needs a folder");
            }
            out = Path.of(a.value("--out").strip());
        }
        return new StudyArgs(scenario, policies, ms, seeds, vary, jobs, out);
    }

    /** One run per processor: a run is one simulation thread, its consumers take little beside it. */
    static int defaultJobs() {
        return Math.min(MAX_JOBS, Runtime.getRuntime().availableProcessors());
    }

    private static Sensitivity vary(String value) throws UsageException {
        String v = value.strip();
        int eq = v.indexOf('=');
        String key = eq < 0 ? v : v.substring(0, eq).strip();
        if (eq < 0 || !Sensitivity.KEYS.contains(key)) {
            throw new UsageException("--vary takes <cost>=<factor>,<factor>... with <cost> one of "
                    + String.join(", ", Sensitivity.KEYS) + ", e.g. --vary cost.vpmu=0.5,1.5; got '" + value + "'");
        }
        List<Double> factors = new ArrayList<>();
        for (String f : v.substring(eq + 1).split(",")) {
            double x;
            try {
                x = Double.parseDouble(f.strip());
            } catch (NumberFormatException e) {
                x = Double.NaN;
            }
            if (!(x >= 0 && x <= 1000)) {
                throw new UsageException("--vary " + key + ": '" + f.strip() + "' is not a factor from 0 to 1000");
            }
            factors.add(x);
        }
        return new Sensitivity(key, factors);
    }

    private static List<String> policies(String value) throws UsageException {
        List<String> out = new ArrayList<>();
        for (String p : value.split(",")) {
            String name = p.strip();
            if (name.isEmpty()) {
                continue;
            }
            if (!out.contains(name)) {
                out.add(name);
            }
        }
        if (out.isEmpty()) {
            throw new UsageException("--policies needs policy variants separated by commas, e.g."
                    + " systemwide,saverestore/frozen");
        }
        return List.copyOf(out);
    }
}
