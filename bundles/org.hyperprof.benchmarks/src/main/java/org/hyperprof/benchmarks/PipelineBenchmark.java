package org.hyperprof.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.SymbolFiles;
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.Dispatcher;
import org.hyperprof.pipeline.ImageSymbols;
import org.hyperprof.symbols.elf.ElfResolver;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The sample pipeline alone, on one thread: each sample's PC and its callers' return addresses are
 * resolved to the dictionary's symbols ({@link ImageSymbols}, a call chain in one call), batched
 * ({@link BatchBuilder}, 4,096 per batch, arrays lent and given back) and handed through the
 * {@link Dispatcher} to a consumer that reads every column of every sample (a tap, so it runs on the
 * same thread), a column at a time or sample by sample ({@link #read}).
 *
 * <p>The workload: PCs drawn Zipf-distributed (exponent {@link #zipf}) from the function symbols of
 * the running JDK's {@code libjvm.so} ({@link #sites} addresses in each function: 1, its own
 * address; 8, eight places inside it), call chains of mean depth 8 drawn the same way; drawn once,
 * with a fixed seed, before the measurement. One operation is one sample.
 * {@code resolveBatchAndDeliver} is the whole stage; {@code batchAndDeliver} the same samples with
 * their symbols resolved beforehand, so the two tell resolution from batching and delivery.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar Pipeline -prof gc}.
 */
@Fork(3)
public class PipelineBenchmark extends ThroughputBenchmark {
    static final int SAMPLES = 1 << 13;
    static final int BATCH = 4096;

    @Param({ "1.1" })
    public double zipf;

    @Param({ "8" })
    public int meanDepth;

    @Param({ "1", "8" })
    public int sites;

    /** The consumer's order of reading: {@code columns} or {@code samples} (see {@link EveryColumn}). */
    @Param({ "columns", "samples" })
    public String read = "columns";

    private long[] pcs;
    private int[] chainStart;
    private long[] chainPcs;
    private int[] symbolIds;
    private int[] chainSymbolIds;
    private int[] chainImageIds;
    /** Every caller in user mode, as the simulated user code is. */
    private byte[] chainModes;
    /** One call chain as the resolving source holds it before handing it on. */
    private final long[] scratchPcs = new long[128];
    private final int[] scratchImages = new int[128];
    private final byte[] scratchModes = new byte[128];
    private final int[] scratchSymbols = new int[128];
    private Dispatcher dispatcher;
    private Dictionary dictionary;
    private ImageSymbols symbols;
    private BatchBuilder builder;
    private EveryColumn consumer;
    private long time;

    /**
     * Reads every column of every sample and sums them, so none of the pipeline's work can be left
     * out. {@code bySample}: sample by sample, each one's callers after it, as a call-graph
     * aggregate walks them; otherwise a column at a time (the callers' columns as one run), the
     * order a columnar batch reads fastest in.
     */
    public static final class EveryColumn implements SampleConsumer {
        private final boolean bySample;
        public long sum;
        public long samples;

        public EveryColumn(boolean bySample) {
            this.bySample = bySample;
        }

        @Override
        public void sessionStarted(SessionInfo session) {
        }

        @Override
        public void samples(SampleBatch b) {
            sum = bySample ? bySample(b, sum) : byColumn(b, sum);
            samples += b.size;
        }

        private static long bySample(SampleBatch b, long s) {
            for (int i = 0; i < b.size; i++) {
                s += b.domain[i] + b.vcpu[i] + b.mode[i] + b.counter[i] + b.pc[i] + b.image[i] + b.symbol[i]
                        + b.weight[i] + b.time[i] + b.cpu[i] + b.pid[i] + b.tid[i] + b.flags[i];
                for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                    s += b.chainPc[c] + b.chainImage[c] + b.chainSymbol[c] + b.chainMode[c];
                }
            }
            return s;
        }

        private static long byColumn(SampleBatch b, long s) {
            for (int i = 0; i < b.size; i++) {
                s += b.domain[i] + b.vcpu[i] + b.mode[i] + b.counter[i] + b.pc[i] + b.image[i] + b.symbol[i]
                        + b.weight[i] + b.time[i] + b.cpu[i] + b.pid[i] + b.tid[i] + b.flags[i] + b.chainStart[i + 1];
            }
            for (int c = b.chainStart[0]; c < b.chainStart[b.size]; c++) {
                s += b.chainPc[c] + b.chainImage[c] + b.chainSymbol[c] + b.chainMode[c];
            }
            return s;
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException, SymbolFileException {
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        SymbolTable table = new ElfResolver().load(new ImageSource("libjvm.so", "elf", libjvm.toString(),
                SymbolFiles.content(libjvm)));
        List<Integer> functions = new ArrayList<>();
        for (int i = 0; i < table.size(); i++) {
            if (table.symbolSize(i) >= 8) {
                functions.add(i);
            }
        }
        if (functions.size() < 1000) {
            throw new IllegalStateException(libjvm + " has only " + functions.size() + " sized symbols");
        }
        SplittableRandom random = new SplittableRandom(42);
        // Rank r (from 1) is drawn with weight 1/r^zipf; ranks map to functions in a shuffled order.
        int n = functions.size();
        double[] cumulative = new double[n];
        double total = 0;
        for (int r = 0; r < n; r++) {
            total += 1 / Math.pow(r + 1, zipf);
            cumulative[r] = total;
        }
        java.util.Collections.shuffle(functions, new java.util.Random(7));
        pcs = new long[SAMPLES];
        chainStart = new int[SAMPLES + 1];
        long[] chain = new long[SAMPLES * meanDepth * 2];
        int c = 0;
        for (int i = 0; i < SAMPLES; i++) {
            pcs[i] = site(table, functions.get(rank(cumulative, random.nextDouble() * total)), random, sites);
            chainStart[i] = c;
            // Depth: geometric with the given mean (at least 1).
            int depth = 1;
            while (random.nextDouble() >= 1.0 / meanDepth && depth < 127) {
                depth++;
            }
            for (int d = 0; d < depth && c < chain.length; d++) {
                chain[c++] = site(table, functions.get(rank(cumulative, random.nextDouble() * total)), random, sites);
            }
        }
        chainStart[SAMPLES] = c;
        chainPcs = java.util.Arrays.copyOf(chain, c);

        dictionary = new Dictionary();
        int image = dictionary.addImage("libjvm.so", ImageKind.USER, 0);
        symbols = new ImageSymbols(dictionary, image, table);
        dispatcher = new Dispatcher(64);
        if (!read.equals("columns") && !read.equals("samples")) {
            throw new IllegalArgumentException("read " + read + ": give columns or samples");
        }
        consumer = new EveryColumn(read.equals("samples"));
        dispatcher.add("every-column", consumer, Delivery.TAP);
        dispatcher.sessionStarted(new SessionInfo(1, "benchmark", "libjvm", "unknown", "", 0, List.of(),
                Map.of(0, "host"), false, dictionary));
        builder = new BatchBuilder(1, BATCH, BatchBuilder.Reuse.WHEN_RELEASED, 0, dispatcher::publish);
        symbolIds = new int[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            symbolIds[i] = symbols.symbol(pcs[i]);
        }
        chainSymbolIds = new int[chainPcs.length];
        chainImageIds = new int[chainPcs.length];
        java.util.Arrays.fill(chainImageIds, image);
        chainModes = new byte[chainPcs.length];
        java.util.Arrays.fill(scratchImages, image);
        for (int i = 0; i < chainPcs.length; i++) {
            chainSymbolIds[i] = symbols.symbol(chainPcs[i]);
        }
    }

    /** One of a function's {@code sites} addresses: its own address, or places inside it. */
    private static long site(SymbolTable table, int function, SplittableRandom random, int sites) {
        long size = table.symbolSize(function);
        return table.start(function) + (size * random.nextInt(sites)) / sites;
    }

    private static int rank(double[] cumulative, double x) {
        int i = java.util.Arrays.binarySearch(cumulative, x);
        return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        builder.flush();
        if (consumer.samples == 0 || consumer.sum == 0) {
            throw new IllegalStateException("the consumer read nothing");
        }
        dispatcher.stopAll(1000);
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public void resolveBatchAndDeliver() {
        long[] p = pcs;
        int[] starts = chainStart;
        long[] chain = chainPcs;
        ImageSymbols sym = symbols;
        BatchBuilder b = builder;
        int image = sym.image();
        long[] framePcs = scratchPcs;
        int[] frameImages = scratchImages;
        int[] frameSymbols = scratchSymbols;
        for (int i = 0; i < SAMPLES; i++) {
            long pc = p[i];
            b.begin(0, 0, 0, 0, pc, image, sym.symbol(pc), 1, time++, 0, 1000, 1000);
            int from = starts[i];
            int n = starts[i + 1] - from;
            System.arraycopy(chain, from, framePcs, 0, n);
            sym.symbols(chain, from, n, frameSymbols, 0);
            b.callers(framePcs, frameImages, frameSymbols, scratchModes, 0, n);
            b.end();
        }
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public void batchAndDeliver() {
        long[] p = pcs;
        int[] starts = chainStart;
        long[] chain = chainPcs;
        int[] ids = symbolIds;
        int[] chainIds = chainSymbolIds;
        BatchBuilder b = builder;
        int image = symbols.image();
        int[] chainImages = chainImageIds;
        for (int i = 0; i < SAMPLES; i++) {
            b.begin(0, 0, 0, 0, p[i], image, ids[i], 1, time++, 0, 1000, 1000);
            b.callers(chain, chainImages, chainIds, chainModes, starts[i], starts[i + 1] - starts[i]);
            b.end();
        }
    }
}
