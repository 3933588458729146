package org.hyperprof.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.report.opreport.OpreportConsumer;
import org.hyperprof.source.perf.ImportOptions;
import org.hyperprof.source.perf.PerfDataReader;
import org.hyperprof.source.perf.PerfImport;
import org.hyperprof.store.duckdb.SessionStoreComponent;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;

/**
 * The session store's cost on the work it records, side by side: the same call with the store as a
 * lossless consumer and without it, alternately in one JVM (so both sides meet the machine's
 * drifts alike), each after a pause in which the store finishes writing the last session (as a
 * command in a shell finds it idle). Per side: wall time and the process's CPU time of each call,
 * mean, median and best. {@code profile}: the default host profiled for one simulated second (the
 * main job's profile) and its opreport rendered; {@code import}: {@link BigRecording} (500,000
 * samples or more with call chains) imported with its call graph.
 *
 * <p>Run: {@code java -Xms1g -Xmx1g -XX:+UseTransparentHugePages -cp
 * bundles/org.hyperprof.benchmarks/target/benchmarks.jar org.hyperprof.benchmarks.StoreSideBySide
 * profile|import [rounds]}
 */
public final class StoreSideBySide {

    private StoreSideBySide() {
    }

    /** One call of the work, on the side with or without the store; the session it made. */
    private interface Work {
        long call(boolean withStore) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "profile";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        Path folder = Files.createTempDirectory("hyperprof-side-by-side");
        SessionStoreComponent store = SessionStoreComponent.onClassPath(folder.resolve("store.duckdb"), "bench",
                System.err);
        try {
            Work work = switch (what) {
                case "profile" -> profiles(store);
                case "import" -> imports(store);
                default -> throw new IllegalArgumentException("profile or import, not " + what);
            };
            run(work, store, rounds, what);
        } finally {
            BenchStore.deleteFolder(folder);
        }
        System.exit(0);
    }

    private static void run(Work work, SessionStoreComponent store, int rounds, String what) throws Exception {
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
                .getOperatingSystemMXBean();
        List<List<Long>> wall = List.of(new ArrayList<>(), new ArrayList<>());
        List<List<Long>> cpu = List.of(new ArrayList<>(), new ArrayList<>());
        int warmUp = 3;
        for (int round = 0; round < rounds + warmUp; round++) {
            for (int side = 0; side < 2; side++) {
                boolean withStore = side == 0;
                Thread.sleep(300);
                long cpu0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                long session = work.call(withStore);
                long t1 = System.nanoTime();
                long cpu1 = os.getProcessCpuTime();
                while (withStore && store.session(session).map(s -> s.status().equals(StoredSession.RUNNING))
                        .orElse(true)) {
                    Thread.sleep(5);
                }
                if (round >= warmUp) {
                    wall.get(side).add((t1 - t0) / 1_000_000);
                    cpu.get(side).add((cpu1 - cpu0) / 1_000_000);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s, %d rounds, the store on and off alternately:%n", what, rounds);
        for (int side = 0; side < 2; side++) {
            System.out.printf(Locale.ROOT, "  store %-3s wall %s; CPU %s%n", side == 0 ? "on" : "off",
                    figures(wall.get(side)), figures(cpu.get(side)));
        }
        System.out.printf(Locale.ROOT, "  with the store: wall %+.1f %% (means), %+.1f %% (medians); CPU %+.1f %% (means)%n",
                change(wall, true), change(wall, false), change(cpu, true));
    }

    private static String figures(List<Long> v) {
        List<Long> s = new ArrayList<>(v);
        Collections.sort(s);
        return String.format(Locale.ROOT, "mean %.0f median %d best %d ms", mean(s), s.get(s.size() / 2), s.get(0));
    }

    private static double mean(List<Long> v) {
        return v.stream().mapToLong(Long::longValue).average().orElse(0);
    }

    private static double change(List<List<Long>> sides, boolean means) {
        double on;
        double off;
        if (means) {
            on = mean(sides.get(0));
            off = mean(sides.get(1));
        } else {
            List<Long> a = new ArrayList<>(sides.get(0));
            List<Long> b = new ArrayList<>(sides.get(1));
            Collections.sort(a);
            Collections.sort(b);
            on = a.get(a.size() / 2);
            off = b.get(b.size() / 2);
        }
        return 100 * (on - off) / off;
    }

    /** The default host profiled for one simulated second, its opreport rendered. */
    private static Work profiles(SessionStoreComponent store) throws Exception {
        ProfilerImpl[] profilers = new ProfilerImpl[2];
        OpreportConsumer[] reports = new OpreportConsumer[2];
        for (int side = 0; side < 2; side++) {
            HostServiceImpl hosts = new HostServiceImpl();
            hosts.addModel(new P6PmuModel(), "org.hyperprof.pmu.p6");
            hosts.addPolicy(new SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
            hosts.load(HostService.DEFAULT_SCENARIO, null);
            profilers[side] = new ProfilerImpl(hosts);
            profilers[side].addResolver(KallsymsResolver.FORMAT_NAME, new KallsymsResolver());
            reports[side] = new OpreportConsumer();
            profilers[side].addConsumer("opreport", reports[side]);
        }
        profilers[0].addConsumer("store", store, Delivery.LOSSLESS);
        ProfileRequest request = new ProfileRequest(List.of(), 1_000_000, List.of());
        return withStore -> {
            int side = withStore ? 0 : 1;
            SessionSummary summary = profilers[side].profile(request, ProgressListener.NONE);
            StringBuilder report = new StringBuilder(64 * 1024);
            reports[side].render(new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS, Set.of()), report);
            return summary.sessionId();
        };
    }

    /** The big recording imported with its call graph. */
    private static Work imports(SessionStoreComponent store) throws Exception {
        Path recording = BigRecording.get();
        SymbolTables resolvers = BigRecording.resolvers();
        ProfilerImpl with = new ProfilerImpl(new HostServiceImpl());
        ProfilerImpl without = new ProfilerImpl(new HostServiceImpl());
        with.addConsumer("store", store, Delivery.LOSSLESS);
        return withStore -> {
            try (PerfDataReader r = PerfDataReader.open(recording)) {
                return new PerfImport(resolvers, ImportOptions.defaults().withCallchains(true), true)
                        .run(r, withStore ? with : without, "perf.data", null, false).sessionId();
            }
        };
    }
}
