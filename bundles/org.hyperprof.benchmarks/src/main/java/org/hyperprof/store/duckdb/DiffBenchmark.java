package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.pipeline.Dictionary;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * hp:diff on a store of two sessions of {@link #rows} aggregated rows each (the figure: two
 * sessions of 100,000 rows answer in under 0.5 s): the store opened, both sessions' rows summed,
 * named and matched by name in DuckDB, and the rows' figures computed and sorted as the command's
 * table does, both summaries. Lives in the store's package for its plain-Java constructor.
 *
 * <p>The sessions: {@link #rows} samples each at a distinct PC (so one row each), over 4,000 symbols
 * of four images in two domains, half of them in 40 hot symbols; the two sessions spread their samples
 * differently. Stored once, through the store's consumer as a source would, before the measurement.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar Diff}.
 */
@State(Scope.Benchmark)
public class DiffBenchmark {
    static final int SYMBOLS = 4000;
    static final int IMAGES = 4;

    @Param({ "100000" })
    public int rows;

    private Path folder;
    private SessionStoreComponent store;

    @Setup
    public void store() throws IOException {
        folder = Files.createTempDirectory("hyperprof-diff-bench");
        store = new SessionStoreComponent(new StoreSettings(folder.resolve("store.duckdb"), true, "bench", 10_000),
                Engine.CLASS_PATH, new PrintStream(System.err, true));
        Dictionary names = new Dictionary();
        for (int i = 0; i < IMAGES; i++) {
            names.addImage(i == 0 ? "vmlinux" : "/usr/lib/lib" + i + ".so", i == 0 ? ImageKind.KERNEL : ImageKind.USER,
                    i % 2);
        }
        for (int s = 0; s < SYMBOLS; s++) {
            names.addSymbol("function_" + s, s % IMAGES);
        }
        profile(1, names, 1);
        profile(2, names, 7);
    }

    /** Stores session {@code id}: sample {@code i} at its own PC, in symbol {@code i * stride % SYMBOLS}. */
    private void profile(long id, Dictionary names, int stride) {
        UnitMask none = new UnitMask("none", UnitMask.Kind.MANDATORY, 0, List.of(new UnitMask.Value(0, "none")));
        CounterConfig cycles = new CounterConfig(0, new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 1, 1, none, null,
                "cycles"), 100000, 0, true, true);
        store.sessionStarted(new SessionInfo(id, "simulator", "bench", "i386/p6", "PIII", 2000, List.of(cycles),
                Map.of(0, "Domain-0", 1, "domU"), false, names));
        int n = rows;
        int[] symbol = new int[n];
        int[] image = new int[n];
        int[] domain = new int[n];
        long[] pc = new long[n];
        long[] time = new long[n];
        for (int i = 0; i < n; i++) {
            // Half the samples in 1 % of the symbols, as in a real profile; the rest over all of them.
            long spread = (i * 0x9E3779B97F4A7C15L * stride) >>> 16;
            symbol[i] = (int) (i % 2 == 0 ? spread % (SYMBOLS / 100) : spread % SYMBOLS);
            image[i] = symbol[i] % IMAGES;
            domain[i] = image[i] % 2;
            pc[i] = 0x400000L + 16L * i;
            time[i] = 10_000L * i;
        }
        long[] weight = new long[n];
        Arrays.fill(weight, 100000);
        int[] unknown = new int[n];
        Arrays.fill(unknown, -1);
        store.samples(new SampleBatch(id, n, domain, new int[n], new byte[n], new byte[n], pc, image, symbol, weight,
                time, unknown, unknown, unknown, new byte[n], new int[n + 1], new long[0], new int[0], new int[0],
                new byte[0]));
        store.sessionEnded(new SessionSummary(id, new Accounting(n, n, 0, 0, 0), List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED));
    }

    @TearDown
    public void remove() throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    /** One hp:diff: milliseconds each, a few seconds of them. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    @Fork(1)
    public void diff(Blackhole out) throws StoreException {
        SessionDiff d = store.diff(new DiffRequest(1, 2, 0, null));
        DiffCommands.Layout all = new DiffCommands.Layout(true, true, Integer.MAX_VALUE);
        out.consume(DiffCommands.table(d, d.images(), all, false));
        out.consume(DiffCommands.table(d, d.symbols(), all, true));
    }
}
