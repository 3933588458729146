package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfFormat.*;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.Dispatcher;
import org.hyperprof.pipeline.SymbolTables;

/**
 * Imports one recording: reads it, tracks its machines and processes, resolves every sample and
 * its callchain to images and symbols, and hands the batches to the importer's own
 * {@link PerfReport} and then to the session's consumers (through a {@link SessionPublisher}, when
 * one is given). The report is a consumer of a {@link Dispatcher} of the import's own, bound by
 * its service properties as any consumer is: a tap for the flat profile, lossless (its own thread)
 * for the call graph; its books are in the result.
 *
 * <h2>Modes</h2>
 * perf's cpumode (header.misc) becomes the domain and Xenoprof mode of each sample: host kernel
 * and host user are the host domain in kernel and user mode; hypervisor is the host domain in
 * hypervisor mode; guest kernel and guest user are the guest's domain (one per QEMU process) in
 * kernel and user mode. In a callchain, the context markers switch the mode of the entries after
 * them and are not frames; a marker the format does not define means the callchain is corrupt, and
 * it is dropped (the sample itself counts), as perf does. The first entry is the sample's own
 * address and is not repeated among its callers.
 *
 * <h2>Books</h2>
 * taken = SAMPLE records read + samples the kernel reported lost; delivered = samples handed on;
 * lost = the LOST and LOST_SAMPLES counts; dropped = samples of events the recording does not
 * describe or cannot lay out; invalid = SAMPLE records malformed inside their size.
 *
 * <h2>Threads</h2>
 * An import reads on a thread of its own ({@code hyperprof-perf-reader}: decoding records into
 * column batches and ordering each round), resolves on the calling thread, builds the call graph
 * (when asked) on the report's delivery thread ({@code hyperprof-consumer-perf report}) and loads
 * symbols while the rest goes on
 * ({@code hyperprof-perf-symbols}: the kernel's on one, the listed images on another, and perf's
 * kernel names on {@code hyperprof-perf-kallsyms-names}). A few reused batches flow between reader
 * and resolver, so memory stays bounded by the distinct frames and stacks and by the largest round
 * ({@link PerfDataReader#ROUND_LIMIT_RECORDS}). All of them end before {@link #run} returns.
 *
 * <p>A flat import of a large mapped recording with nothing but the report to feed
 * ({@code hp:import --report-only}, the benchmark) is read in parts instead, one per CPU: the
 * calling thread reads and counts the first, a {@code hyperprof-perf-part} thread each later one,
 * and the calling thread then takes each part as if it had read it ({@link RecordingPart},
 * {@link #readInParts}). No batch passes between threads while they read.
 *
 * <p>One import per instance.
 */
public final class PerfImport {

    /**
     * Batches the call-graph report's queue holds (it is lossless: when the queue is full the
     * import waits). The report's speed comes in bursts (a stack new to the tree costs several
     * times one met before): with 4 the resolving thread waited 7-10 ms of a 65 ms import for it to
     * give arrays back, with 12 it waits 2-3 ms. Each set of 4,096 samples is about 0.5 MB.
     */
    static final int REPORT_QUEUE = 12;

    /** Told about progress at the end of each round of records. */
    public interface Progress {
        /** {@code samples} read so far; {@code delivered} handed on. */
        void round(long samples, long delivered);
    }

    /**
     * What an import did.
     *
     * @param sessionId  the published session's id, or -1 without a publisher
     * @param file       the recording
     * @param machine    the recording's host name, os release, arch and cpu description
     * @param events     the recorded events' names
     * @param domains    domain id to name
     * @param accounting the books (taken = delivered + lost + dropped + invalid)
     * @param counters   records by type, skipped records, problems counted
     * @param notes      problems met that did not stop the import
     * @param recordingNotes the notes on the recording itself, a part of {@code notes}: records skipped,
     *                   doubtful or malformed, header fields read around, and why nothing was
     *                   delivered (the others are about symbols: images without them, a kernel that differs)
     * @param endReason  {@code completed}, or why the import stopped early
     * @param failure    the error that stopped it, or null
     * @param report     the flat and call-graph reports
     * @param reportBooks what the report received and missed of the samples delivered (received +
     *                   missed = delivered)
     * @param summary    the session's summary from the publisher, or null
     */
    public record Result(long sessionId, String file, Map<String, String> machine, List<String> events,
            Map<Integer, String> domains, Accounting accounting, Map<String, Long> counters, List<String> notes,
            List<String> recordingNotes, String endReason, PerfDataException failure, PerfReport report,
            ConsumerAccounting reportBooks, SessionSummary summary) {

        public boolean completed() {
            return failure == null;
        }
    }

    private final SymbolTables symbolTables;
    private final ImportOptions options;
    private final boolean callGraph;

    private PerfDataReader reader;
    private SessionPublisher publisher;
    private String source;
    private Progress progress;
    private boolean live;

    private RecordingInfo info;
    private Machines machines;
    private Symbolizer symbolizer;
    /** {@link #symbolizer}, for the reading thread to see whether the resolving one waits for symbols. */
    private volatile Symbolizer loading;
    private Dictionary dictionary;
    private PerfReport report;
    private SessionPublisher.Channel channel;
    private BatchBuilder builder;
    private long lastFlushNanos;

    /**
     * The import's own consumers, each bound by its service properties: the report, and the taps
     * tests add. Each batch reaches them before the session's consumers.
     */
    private Dispatcher consumers;
    /** Consumers tests add, with the properties they are bound with. */
    private final Map<SampleConsumer, Map<String, Object>> extra = new LinkedHashMap<>();
    /**
     * No consumer, no tap and no callchains: the report (and the report by process
     * {@link #sortBy} asked for) is the only reader, so each sample is counted in it as it is
     * resolved ({@link PerfReport#flat}, {@link SortedReport#count}), with no batch in between. This is
     * a stage of its own, not a delivery the dispatcher could make: no sample is resolved on its
     * own (each distinct address key once, see {@link #deferring}) and a large recording is read in
     * parts on every core at once ({@link #readInParts}; not by process, whose comms a part cannot
     * know), so there is never a batch to deliver; its books are the report's count of what was
     * delivered. The reports count the same as from batches (ReportOnlyImportTest holds the paths
     * equal); with any other reader, the samples go through batches that every reader sees alike.
     */
    private boolean direct;
    private long directSamples;
    /**
     * A direct import counts samples by address key ({@link Machines#defer}) and resolves each
     * distinct key once, at the end (or before a kernel map changes): a recording has about one
     * distinct address per 60 samples, and counting does not wait for the symbols still loading.
     * By process, the key is (process, address key), and each key keeps its first sample's comm
     * id and thread id for the report's row.
     */
    private boolean deferring;

    private long invalidContexts;
    private long guestSamples;
    private long samplesEventOverflow;
    /** The windows of --time, or null for every sample. */
    private TimeRanges time;
    /** Samples left out by --time: not in the session, nor in its books' taken. */
    private long outsideTime;
    private long forks;
    private long exits;

    /**
     * @param callGraph whether the importer's own report builds the call graph (the batches carry
     *                  callchains whenever {@link ImportOptions#callchains()} is on)
     */
    public PerfImport(SymbolTables symbolTables, ImportOptions options, boolean callGraph) {
        this.symbolTables = symbolTables;
        this.options = options;
        this.callGraph = callGraph && options.callchains();
    }

    /**
     * Reads the whole recording.
     *
     * @param publisher where consumers are fed, or null for the report only
     * @param source    the session's source name ({@code perf.data}, {@code perf record})
     * @param progress  told at each round's end, or null
     * @param live      whether the recording is being made now: each round's samples are then
     *                  handed on at its end, not only when a batch is full
     * @throws IllegalStateException when the publisher cannot start a session now (another runs)
     */
    public Result run(PerfDataReader recording, SessionPublisher publisher, String source, Progress progress,
            boolean live) {
        if (this.reader != null) {
            throw new IllegalStateException("a PerfImport reads one recording; make a new one for another");
        }
        this.reader = recording;
        this.publisher = publisher;
        this.source = source;
        this.progress = progress;
        this.live = live;
        if (options.time() != null) {
            RecordingInfo header = recording.info();
            time = TimeRanges.parse(options.time(), header.firstSampleTime, header.lastSampleTime);
        }
        // Reading in parts counts samples by address in each part; --time is read in sequence.
        boolean flat = publisher == null && extra.isEmpty() && !options.callchains() && !callGraph && time == null;
        PerfDataReader.PartStart[] starts = flat && !live && progress == null && parts > 1
                && recording.stableData() != null && recording.info().dataSize >= partMinBytes
                ? recording.partStarts(parts) : new PerfDataReader.PartStart[0];
        try {
            return importRecording(recording, starts);
        } finally {
            if (consumers != null) {
                // Their session has ended (or the import failed): their threads go with it.
                consumers.stopAll(1000);
            }
        }
    }

    private Result importRecording(PerfDataReader recording, PerfDataReader.PartStart[] starts) {
        PerfDataException failure;
        try {
            if (starts.length > 0) {
                failure = readInParts(recording, starts);
            } else {
                Pipeline pipeline = new Pipeline(recording, live, () -> {
                    Symbolizer s = loading;
                    return s != null && s.waiting;
                });
                failure = pipeline.run(this::process);
            }
            if (deferring) {
                endDeferral();
            }
        } finally {
            if (builder != null) {
                builder.flush();
            }
            if (symbolizer != null) {
                symbolizer.close();
            }
        }
        if (info == null) {
            // The recording ended before its header was complete: account for it without a session.
            this.publisher = null;
            header(recording.info());
        }
        return finish(failure);
    }

    /** Acts on one batch of decoded records, in order. */
    private void process(RecordBatch raw) {
        int[] order = raw.order;
        for (int k = 0, n = raw.ordered; k < n; k++) {
            int i = order[k];
            switch (raw.kind[i]) {
                case RecordBatch.SAMPLE -> sample(raw, i);
                case RecordBatch.ROUND -> roundFinished((Long) raw.event[i]);
                case RecordBatch.HEADER -> header((RecordingInfo) raw.event[i]);
                default -> sideBand(raw.kind[i], raw.event[i]);
            }
        }
    }

    /** Acts on a side-band record: MMAP, COMM, FORK or EXIT. */
    private void sideBand(byte kind, Object event) {
        switch (kind) {
            case RecordBatch.MMAP -> {
                RecordBatch.Mmap m = (RecordBatch.Mmap) event;
                if (deferring && m.cpumode() != CPUMODE_USER && machines.deferred() > 0) {
                    // A kernel's map: the samples deferred so far resolve against the one before.
                    endDeferral();
                    deferring = true;
                }
                machines.mmap(m);
            }
            case RecordBatch.COMM -> {
                RecordBatch.Comm c = (RecordBatch.Comm) event;
                machines.comm(c.pid(), c.tid(), c.comm());
            }
            case RecordBatch.FORK -> {
                RecordBatch.Task t = (RecordBatch.Task) event;
                forks++;
                machines.fork(t.pid(), t.ppid(), t.tid(), t.ptid(), t.exec());
            }
            case RecordBatch.EXIT -> exits++;
            default -> throw new IllegalStateException("raw batch entry of kind " + kind);
        }
    }

    // ---------------------------------------------------------------- reading in parts

    /**
     * Reads a flat import's recording in parts at once: this thread reads the first part, a thread
     * of its own each later part ({@link RecordingPart}); then this thread takes each part in turn
     * as if it had read it. A part is taken only when the reading before it ended exactly where it
     * starts, after a FINISHED_ROUND (so it starts at a round boundary, and its rounds are the
     * rounds of a reading in sequence), while this import still defers (no guest sample came) and
     * when the part could read everything on its own; else this thread reads the part itself.
     * The results are those of a reading in sequence, to the counter and the note; without the
     * hand-offs of the two-thread {@link Pipeline}, whose threads the scheduler tends to put on one
     * CPU, each thread reads and counts on its own core.
     */
    private PerfDataException readInParts(PerfDataReader recording, PerfDataReader.PartStart[] starts) {
        int n = starts.length;
        RecordingPart[] later = new RecordingPart[n];
        Thread[] threads = new Thread[n];
        try {
            for (int k = 0; k < n; k++) {
                long stop = k + 1 < n ? starts[k + 1].start() : PerfDataReader.NO_STOP;
                later[k] = new RecordingPart(recording, starts[k], stop);
                threads[k] = new Thread(later[k], "hyperprof-perf-part");
                threads[k].setDaemon(true);
                threads[k].start();
            }
            ReadHere here = new ReadHere() {
                @Override
                void act(RecordBatch batch) {
                    process(batch);
                }
            };
            recording.stopAt(starts[0].start());
            boolean paused = recording.read(here);
            int k = 0;
            // Paused: the reading is exactly at starts[k], where part k starts.
            while (paused) {
                RecordingPart part = later[k];
                awaitPart(threads[k]);
                if (deferring && part.canBeTaken(recording, machines.threads)) {
                    part.replay(replay);
                    machines.threads.adopt(part.threads);
                    recording.absorb(part.reader);
                    partsTaken++;
                    if (!part.paused()) {
                        return null; // it read to the end of the data
                    }
                    k++; // it stopped exactly where the next part starts
                    continue;
                }
                partsLeft.add(!deferring ? "a sample of a guest or of the hypervisor came before"
                        : part.gaveUp() != null ? part.gaveUp() : "its books cannot join the import's");
                recording.resumeAt(starts[k].start(), deferring && k + 1 < n ? starts[k + 1].start()
                        : PerfDataReader.NO_STOP);
                paused = recording.read(here);
                k++;
            }
            return null;
        } catch (PerfDataException e) {
            return e;
        } finally {
            for (int k = 0; k < n; k++) {
                if (later[k] != null) {
                    later[k].cancel();
                }
            }
            for (Thread t : threads) {
                if (t != null) {
                    awaitPart(t);
                }
            }
        }
    }

    /** Takes a part's records: its side-band records at their places, its samples by key. */
    private final RecordingPart.Replay replay = new RecordingPart.Replay() {
        @Override
        public void sideBand(byte kind, Object event) {
            PerfImport.this.sideBand(kind, event);
        }

        @Override
        public void samples(int cpumode, int pid, long ip, long samples, long period) {
            if (!machines.defer(cpumode, pid, ip, samples, period)) {
                throw new IllegalStateException("a part handed on a sample of cpumode " + cpumode);
            }
            directSamples += samples;
        }

        @Override
        public Dso image(String name) {
            return machines.hostImage(name);
        }

        @Override
        public void samplesIn(Dso image, long address, long samples, long period) {
            machines.deferIn(image, address, samples, period);
            directSamples += samples;
        }
    };


    /** Waits for a part's thread to end (it ends soon once cancelled: at its next batch). */
    private static void awaitPart(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** How many parts a flat import of a large mapped recording reads at once: one per CPU, up to 8. */
    private int parts = Math.min(8, Runtime.getRuntime().availableProcessors());
    /** The smallest data section read in parts: below it, starting threads costs more than it saves. */
    private long partMinBytes = 4L << 20;
    /** Parts taken as read by their own threads (tests check that parts were read). */
    int partsTaken;
    /** Why each part not taken was left to this thread (for tests). */
    final List<String> partsLeft = new ArrayList<>();

    /** Reads flat imports in {@code n} parts from data sections of {@code minBytes} on (tests); before {@link #run}. */
    void readInParts(int n, long minBytes) {
        this.parts = n;
        this.partMinBytes = minBytes;
    }

    /**
     * Reading and resolving on two threads: the reader decodes and orders records into
     * {@link RecordBatch}es on a thread of its own while the calling thread resolves the batch before
     * (and feeds the consumers). A few batches circulate between the two, so memory stays bounded.
     */
    private static final class Pipeline implements PerfEvents {
        private static final int BATCHES = 4;
        /**
         * The most batches in circulation: more are made (up to this bound, so memory stays bounded)
         * only when the resolving side falls behind, such as while it waits for the kernel's symbols
         * of a cold import; the reader then decodes ahead on the core that would otherwise idle.
         */
        private static final int MAX_BATCHES = 32;
        /**
         * The most records decoded ahead in batches the resolving side has not given back: batches
         * hold whole rounds, and a round may hold many records, so the count of batches alone
         * would not bound memory (a decoded record takes about 70 bytes: about 18 MB).
         */
        private static final long MAX_RECORDS_AHEAD = 1 << 18;
        /** Records in batches handed over and not yet given back. */
        private final java.util.concurrent.atomic.AtomicLong recordsAhead = new java.util.concurrent.atomic.AtomicLong();
        private final PerfDataReader reader;
        private final boolean live;
        private final java.util.concurrent.ArrayBlockingQueue<RecordBatch> full =
                new java.util.concurrent.ArrayBlockingQueue<>(MAX_BATCHES + 1);
        private final java.util.concurrent.ArrayBlockingQueue<RecordBatch> free =
                new java.util.concurrent.ArrayBlockingQueue<>(MAX_BATCHES + 1);
        /** Batches made so far, by the reading thread: {@link #BATCHES} as needed, more while stalled. */
        private int made;
        private volatile boolean cancelled;

        /** Thrown inside the reading thread when the resolving side gave up. */
        private static final class Cancelled extends RuntimeException {
            private static final long serialVersionUID = 1L;

            Cancelled() {
                super(null, null, false, false);
            }
        }

        /** Whether the resolving side waits for symbols being loaded (the reader may then read ahead). */
        private final java.util.function.BooleanSupplier stalled;

        Pipeline(PerfDataReader reader, boolean live, java.util.function.BooleanSupplier stalled) {
            this.reader = reader;
            this.stalled = stalled;
            this.live = live;
        }

        private RecordBatch newBatch() {
            return new RecordBatch(PerfDataReader.BATCH_RECORDS, reader.stableData(), reader.byteOrder());
        }

        /** Runs the import; returns the error that stopped the reading, or null. */
        PerfDataException run(java.util.function.Consumer<RecordBatch> resolve) {
            Thread t = new Thread(this::read, "hyperprof-perf-reader");
            t.setDaemon(true);
            t.start();
            try {
                while (true) {
                    RecordBatch b = take(full);
                    resolve.accept(b);
                    if (b.last) {
                        Throwable f = b.failure;
                        if (f instanceof PerfDataException e) {
                            return e;
                        }
                        if (f instanceof RuntimeException e) {
                            throw e;
                        }
                        if (f instanceof Error e) {
                            throw e;
                        }
                        return null;
                    }
                    recordsAhead.addAndGet(-b.count);
                    b.clear();
                    free.add(b);
                }
            } catch (RuntimeException | Error e) {
                cancelled = true;
                t.interrupt();
                throw e;
            } finally {
                join(t);
            }
        }

        private void read() {
            Throwable failure = null;
            try {
                reader.read(this);
            } catch (Cancelled e) {
                return;
            } catch (PerfDataException | RuntimeException | Error e) {
                failure = e;
            }
            // The reader handed on everything it read; an empty batch says how the reading ended.
            RecordBatch end;
            try {
                end = take();
            } catch (Cancelled e) {
                return;
            }
            end.last = true;
            end.failure = failure;
            try {
                put(end);
            } catch (Cancelled e) {
                // The resolving side gave up.
            }
        }

        @Override
        public RecordBatch take() {
            RecordBatch next = free.poll();
            // The first BATCHES are made as the reading needs them: a small recording (or a fuzzer's
            // input) reads into one or two, and does not pay for clearing the rest.
            if (next == null && (made < BATCHES || made < MAX_BATCHES && recordsAhead.get() < MAX_RECORDS_AHEAD
                    && stalled.getAsBoolean())) {
                made++;
                next = newBatch();
            }
            return next != null ? next : take(free);
        }

        @Override
        public void handOver(RecordBatch batch) {
            recordsAhead.addAndGet(batch.count);
            put(batch);
        }

        @Override
        public boolean eachRound() {
            return live;
        }

        private void put(RecordBatch b) {
            while (!cancelled) {
                try {
                    if (full.offer(b, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    throw new Cancelled();
                }
            }
            throw new Cancelled();
        }

        private RecordBatch take(java.util.concurrent.ArrayBlockingQueue<RecordBatch> q) {
            while (!cancelled || q == full) {
                try {
                    RecordBatch b = q.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
                    if (b != null) {
                        return b;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Cancelled();
                }
            }
            throw new Cancelled();
        }

        private static void join(Thread t) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Result finish(PerfDataException failure) {
        symbolizer.close();
        long delivered = builder.samples() + directSamples;
        long dropped = reader.samplesDropped() + samplesEventOverflow;
        long invalid = reader.samplesInvalid();
        long lost = reader.lost();
        Accounting books = new Accounting(reader.samplesRead() - outsideTime + lost, delivered, lost, dropped, invalid);
        Map<String, Long> counters = new TreeMap<>(reader.counters());
        counters.put("samples.delivered", delivered);
        counters.put("samples.dropped", dropped);
        counters.put("callchains.invalid-context", invalidContexts);
        counters.put("mmaps.ignored", machines.mmapsIgnored);
        counters.put("tasks.forked", forks);
        counters.put("tasks.exited", exits);
        counters.put("images", (long) dictionary.imageCount());
        counters.put("symbols", (long) dictionary.symbolCount());
        if (samplesEventOverflow > 0) {
            counters.put("samples.dropped.event-index", samplesEventOverflow);
        }
        if (time != null) {
            counters.put("samples.outside-time", outsideTime);
        }
        List<String> recordingNotes = new ArrayList<>(reader.notes());
        if (invalidContexts > 0) {
            recordingNotes.add(invalidContexts + " callchains held a context marker the format does not define (a broken"
                    + " frame-pointer walk); as perf does, each was dropped and its sample kept");
        }
        if (samplesEventOverflow > 0) {
            recordingNotes.add(samplesEventOverflow + " samples belong to events beyond the 256th, which a sample batch"
                    + " cannot number; counted as dropped");
        }
        if (time != null) {
            recordingNotes.add(outsideTime + " samples lie outside " + time.describe() + ": left out, as perf report"
                    + " --time leaves them out; the session and its books hold the samples inside");
        }
        if (reader.userStacks() > 0) {
            counters.put("samples.user-stacks", reader.userStacks());
            long n = reader.userStacks();
            recordingNotes.add(n + (n == 1 ? " user stack was" : " user stacks were") + " not unwound: the samples"
                    + " carry a copy of their user stack (perf record --call-graph dwarf), which perf report unwinds"
                    + " with the programs' DWARF unwind tables and this import does not, so their call graphs hold"
                    + " only the kernel's part (each sample's own function and the self counts are exact); for the"
                    + " callers in user space record with --call-graph fp (programs built with frame pointers) or"
                    + " --call-graph lbr, or read this recording with perf report");
        }
        if (guestSamples > 0) {
            recordingNotes.add(guestSamples + " samples were taken in a guest (cpumode guest kernel or guest user): they are"
                    + " shown as perf kvm report shows them, one domain per guest; plain perf report leaves them out");
        }
        if (machines.kernelMapNote != null) {
            recordingNotes.add(machines.kernelMapNote);
        }
        if (symbolizer.relocationNote != null) {
            recordingNotes.add(symbolizer.relocationNote);
        }
        if (machines.kernelWithoutMap) {
            recordingNotes.add("kernel samples came without the kernel's map record (the MMAP of [kernel.kallsyms] perf"
                    + " record writes first): they are named by the kernel symbols as they are, where perf report"
                    + " places the kernel by other means and may name them otherwise; the record is missing or"
                    + " corrupt");
        }
        if (!machines.outsideKernelMap.isEmpty()) {
            java.util.Set<Long> out = machines.outsideKernelMap;
            recordingNotes.add("kernel samples at " + out.size() + (out.size() >= 1000 ? " or more" : "") + " addresses (0x"
                    + Long.toHexString(out.iterator().next()) + (out.size() > 1 ? ", ..." : "") + ") lie outside the"
                    + " kernel's map given by its map record" + (machines.namedOutsideKernelMap ? "; named here by the"
                    + " kernel's symbols all the same" : "") + ": perf report names such an address only where a"
                    + " map covers it, and by data symbols too, so it may name them otherwise (the addresses or the"
                    + " map record are corrupt)");
        }
        recordingNotes.addAll(machines.outsideCodeNotes());
        if (!machines.unmappedProcesses.isEmpty()) {
            java.util.Set<Integer> pids = machines.unmappedProcesses;
            recordingNotes.add("user samples of " + pids.size() + (pids.size() >= 1000 ? " or more" : "") + " processes that"
                    + " no MMAP record mapped (pid " + pids.stream().limit(5).map(String::valueOf)
                    .collect(java.util.stream.Collectors.joining(", ")) + (pids.size() > 5 ? ", ..." : "") + ") are"
                    + " shown as [unknown]; if their pid is corrupt, perf report, which finds a sample's thread by its"
                    + " tid, may name them");
        }
        if (delivered == 0 && failure == null) {
            recordingNotes.add(nothingDelivered(books));
        }
        if (!books.balanced()) {
            recordingNotes.add("the books do not balance: " + books.line());
        }
        List<String> notes = new ArrayList<>(recordingNotes);
        for (Dso d : symbolizer.withoutSymbols()) {
            long n = machines.unresolved(d);
            if (n > 0) {
                notes.add(d.name + ": " + n + " samples and callchain entries have no symbol (perf report"
                        + " shows them by address): " + d.why);
            }
        }
        if (symbolizer.mismatchNote != null) {
            notes.add(symbolizer.mismatchNote);
        }
        for (Dso k : machines.kernels()) {
            String note = outsideEverySymbol(k, machines.unresolved(k));
            if (note != null) {
                notes.add(note);
            }
        }
        String endReason = failure == null ? SessionSummary.COMPLETED : "stopped: " + failure.getMessage();
        ConsumerAccounting reportBooks = endOwnSession(books, counters, notes, endReason);
        // The report has every batch: the run-time addresses it counted on its own get their names.
        report.nameRunTimeFrames(dictionary::addresses);
        if (reportBooks.missed() > 0) {
            notes.add("the report missed " + reportBooks.missed() + " of the " + delivered + " samples delivered"
                    + (reportBooks.problem() == null ? "" : " (" + reportBooks.problem() + ")")
                    + ": its counts leave them out");
        }
        SessionSummary summary = null;
        if (channel != null) {
            summary = channel.close(books, counters, notes, endReason);
        }
        List<String> events = new ArrayList<>();
        for (EventAttr a : info.attrs) {
            events.add(a.name);
        }
        Map<String, String> machine = new LinkedHashMap<>(info.features);
        return new Result(channel != null ? channel.sessionId() : -1, info.file, machine, events,
                machines.domains(), books, counters, List.copyOf(notes), List.copyOf(recordingNotes), endReason, failure,
                report, reportBooks, summary);
    }

    /**
     * Ends the session for the import's own consumers, once each has taken what is queued for it
     * (the call graph is whole then), and returns the report's books.
     */
    private ConsumerAccounting endOwnSession(Accounting books, Map<String, Long> counters, List<String> notes,
            String endReason) {
        if (consumers == null) {
            // Counted straight into the report (direct): what it counted is what it received.
            ConsumerAccounting flat = new ConsumerAccounting(PerfReport.NAME, report.samples(),
                    books.delivered() - report.samples(), null);
            if (sorted != null) {
                ConsumerAccounting byProcess = new ConsumerAccounting(SortedReport.NAME, sorted.samples(),
                        books.delivered() - sorted.samples(), null);
                sorted.sessionEnded(new SessionSummary(builder.sessionId(), books, List.of(),
                        List.of(flat, byProcess), null, null, 0, endReason, counters, notes));
            }
            return flat;
        }
        long id = builder.sessionId();
        SessionSummary own = consumers.sessionEnded(id, c -> new SessionSummary(id, books, List.of(), c, null, null,
                0, endReason, counters, notes), TimeUnit.DAYS.toNanos(1));
        for (ConsumerAccounting c : own.consumers()) {
            if (c.consumer().equals(PerfReport.NAME)) {
                return c;
            }
        }
        throw new IllegalStateException("the report was not bound to the import's consumers");
    }

    /**
     * How many of a kernel's samples and callchain entries fell outside every symbol of the kallsyms
     * file its table came from, or null for none; when not one of them found a symbol, the file is
     * most likely another kernel's (another build, or the same one booted with modules elsewhere).
     */
    static String outsideEverySymbol(Dso kernel, long unresolved) {
        if (kernel.table == null || kernel.kallsymsFile == null || unresolved == 0) {
            return null;
        }
        boolean anyFound = false;
        for (int id : kernel.symbolIds != null ? kernel.symbolIds : new int[0]) {
            if (id >= 0) {
                anyFound = true;
                break;
            }
        }
        return kernel.name + ": " + unresolved + " samples and callchain entries fall outside every symbol of "
                + kernel.kallsymsFile + " (perf report shows them by address)" + (anyFound ? ""
                : "; not one address found a symbol there: the file is most likely another kernel's than the"
                        + " recording's (another build, or another boot's module addresses): give a copy of the"
                        + " recording machine's /proc/kallsyms, taken while it ran, with "
                        + (kernel.machinePid == Machines.HOST_PID ? "--kallsyms" : "--guest-kallsyms " + kernel.machinePid
                                + "=<file>"));
    }

    /** Why an import that read to its end delivered no sample: an empty report always says why. */
    private String nothingDelivered(Accounting books) {
        if (reader.samplesRead() > 0) {
            return "no sample was delivered: all " + reader.samplesRead() + " SAMPLE records read were dropped ("
                    + books.dropped() + ") or invalid (" + books.invalid() + "); see the notes above";
        }
        long records = reader.recordsRead();
        String where = info.pipe ? "the stream" : "the data section (" + info.dataSize + " bytes from byte "
                + info.dataOffset + ")";
        if (records == 0) {
            return "no sample was delivered: " + where + " holds no record at all" + (info.pipe ? ""
                    : info.dataSize == 0 ? " (the header's data size is 0)" : "");
        }
        return "no sample was delivered: " + where + " holds " + records + " records but no SAMPLE record"
                + (books.lost() > 0 ? "; the kernel reported " + books.lost() + " samples lost" : "");
    }

    // ---------------------------------------------------------------- PerfEvents

    private void header(RecordingInfo recording) {
        if (info != null) {
            return;
        }
        this.info = recording;
        this.dictionary = new Dictionary();
        dictionary.demangle(options.demangle());
        this.symbolizer = new Symbolizer(symbolTables, options, recording);
        this.loading = symbolizer;
        this.machines = new Machines(dictionary, symbolizer, recording);
        machines.rawFrames(options.callchains());
        boolean kernel = false;
        for (EventAttr a : recording.attrs) {
            kernel |= (a.flags & A_EXCLUDE_KERNEL) == 0;
        }
        machines.prefetch(kernel);
        // Guests known before their first sample get their names into the session's start.
        for (RecordingInfo.BuildId b : recording.buildIds) {
            if (b.pid() > 0 && (b.cpumode() == CPUMODE_GUEST_KERNEL || b.cpumode() == CPUMODE_GUEST_USER)) {
                machines.guest(b.pid());
            }
        }
        for (Integer pid : new TreeMap<>(options.guestKallsyms()).keySet()) {
            if (pid != ImportOptions.ANY_GUEST) {
                machines.guest(pid);
            }
        }
        this.report = new PerfReport(dictionary, callGraph);
        this.direct = publisher == null && (extra.isEmpty() || extra.size() == 1 && extra.containsKey(sorted))
                && !options.callchains() && !callGraph;
        this.deferring = direct;
        String host = recording.feature("hostname", fileName(recording.file));
        String arch = recording.feature("arch", "unknown");
        if (publisher != null) {
            channel = publisher.open(source, host, arch, cpuName(recording), 0, counters(recording),
                    machines.domains(), dictionary, live);
        }
        long sessionId = channel != null ? channel.sessionId() : 0;
        BatchBuilder.Sink sink = (batch, lease) -> {
            throw new IllegalStateException("an import that counts straight into its report makes no batches");
        };
        SessionInfo own = new SessionInfo(sessionId, source, host, arch, cpuName(recording), 0,
                counters(recording), machines.domains(), false, dictionary);
        if (direct && sorted != null) {
            sorted.sessionStarted(own);
        }
        if (!direct) {
            consumers = new Dispatcher(REPORT_QUEUE);
            consumers.add(report, report.properties());
            extra.forEach(consumers::add);
            // The import can wait for a lossless consumer of its own (the call graph): a live
            // recording read more slowly loses in the kernel's buffers, and that is in the books.
            consumers.sessionStarted(own, true);
            Dispatcher dispatcher = consumers;
            SessionPublisher.Channel ch = channel;
            sink = ch == null ? dispatcher::publish : (batch, lease) -> {
                dispatcher.publish(batch, lease);
                // Consumers that queue the batch hold its lease: the arrays come back when they are done.
                lease.hold();
                ch.publish(batch, lease::release);
            };
        }
        // Reused at once when every reader reads each batch in the call (the flat report and tests'
        // taps); else once every holder is done (the call graph is lossless: PerfReport#properties).
        BatchBuilder.Reuse reuse = publisher != null || callGraph ? BatchBuilder.Reuse.WHEN_RELEASED
                : BatchBuilder.Reuse.AT_ONCE;
        this.builder = new BatchBuilder(sessionId, options.batchSize(), reuse, 0, sink);
        this.lastFlushNanos = System.nanoTime();
    }

    private static String fileName(String file) {
        int slash = file.lastIndexOf('/');
        return slash >= 0 ? file.substring(slash + 1) : file;
    }

    private static String cpuName(RecordingInfo r) {
        String desc = r.feature("cpudesc", null);
        String cpus = r.feature("nrcpus online", null);
        if (desc == null) {
            return "unknown CPU (the recording has no CPUDESC feature)";
        }
        return cpus == null ? desc : desc + " (" + cpus + " CPUs online)";
    }

    /** The recorded events as counters: one per attr, its period (0 in frequency mode). */
    static List<CounterConfig> counters(RecordingInfo r) {
        List<CounterConfig> out = new ArrayList<>();
        UnitMask none = new UnitMask("none", UnitMask.Kind.MANDATORY, 0,
                List.of(new UnitMask.Value(0, "no unit mask")));
        for (EventAttr a : r.attrs) {
            if (a.index >= 256) {
                break;
            }
            String how = a.freq ? "sampled at " + a.periodOrFreq + " Hz" : "sampled every " + a.periodOrFreq
                    + " events";
            EventDescriptor d = new EventDescriptor(a.name, (int) a.config, 1L << Math.min(a.index, 63), 1, none,
                    null, "perf event " + a.name + " (attr type " + a.type + ", config 0x" + Long.toHexString(a.config)
                            + "), " + how);
            out.add(new CounterConfig(a.index, d, a.fixedPeriod(), 0, (a.flags & A_EXCLUDE_KERNEL) == 0,
                    (a.flags & A_EXCLUDE_USER) == 0));
        }
        return out;
    }

    private void sample(RecordBatch raw, int i) {
        DecodedSamples d = raw.columns;
        EventAttr attr = d.attr[i];
        // As perf report --time: before the sample's thread is looked up (or made).
        if (time != null && attr.sampleTimeOffset >= 0 && time.skips(d.time[i])) {
            outsideTime++;
            return;
        }
        int index = attr.index;
        if (index >= 256) {
            samplesEventOverflow++;
            return;
        }
        int cpumode = d.cpumode[i];
        long ip = d.ip[i];
        Machines m = machines;
        boolean guest = cpumode == CPUMODE_GUEST_KERNEL || cpumode == CPUMODE_GUEST_USER;
        // perf finds a host sample's thread by its tid (a guest's pid names its machine), even a
        // process's main thread: a FORK whose parent pid is corrupt moves its parent thread to that pid.
        int pid = d.pid[i];
        if (!guest) {
            pid = m.threads.find(pid, d.tid[i]);
        }
        if (deferring) {
            boolean deferred;
            if (sorted == null) {
                deferred = m.defer(cpumode, pid, ip, d.period[i]);
            } else {
                // Only host samples are deferred: a guest's has no thread here (and ends the deferral).
                int comm = guest ? SampleBatch.UNKNOWN : m.threads.comm(dictionary);
                int tid = d.tid[i];
                deferred = !guest && m.defer(cpumode, pid, ip, 1, d.period[i], sorted.process(comm, tid),
                        ((long) comm << 32) | (tid & 0xFFFFFFFFL));
            }
            if (deferred) {
                directSamples++;
                return;
            }
            endDeferral();
        }
        m.resolve(cpumode, pid, ip);
        if (m.outside) {
            m.sampleOutside(1);
        }
        if (guest) {
            guestSamples++;
        }
        int domain = guest ? m.guest(pid).domain : Machines.HOST_DOMAIN;
        int mode = mode(cpumode);
        boolean modeUnknown = cpumode == CPUMODE_UNKNOWN || cpumode > CPUMODE_GUEST_USER;
        if (direct) {
            directSamples++;
            report.flat(m.selfFrame(), cpumode, d.period[i]);
            if (sorted != null) {
                // As from a batch: a guest's sample has no comm or thread, an unknown mode is [H].
                int comm = guest ? SampleBatch.UNKNOWN : m.threads.comm(dictionary);
                int tid = guest ? SampleBatch.UNKNOWN : d.tid[i];
                sorted.count(comm, tid, m.selfFrame(), modeUnknown ? 'H' : PerfReport.letter(mode, guest), 1,
                        d.period[i]);
            }
            return;
        }
        BatchBuilder b = builder;
        b.begin(domain, d.cpu[i], mode, index, ip, m.image, m.selfFrame(), d.period[i],
                attr.sampleTimeOffset >= 0 ? d.time[i] : SampleBatch.UNKNOWN,
                attr.sampleCpuOffset >= 0 ? d.cpu[i] : SampleBatch.UNKNOWN,
                guest ? SampleBatch.UNKNOWN : pid, guest ? SampleBatch.UNKNOWN : d.tid[i]);
        if (!guest) {
            // The thread found above: its name now (perf's comm at the sample's time).
            b.comm(m.threads.comm(dictionary));
        }
        if (modeUnknown) {
            b.flag(SampleBatch.MODE_UNKNOWN);
        }
        int n = d.chainLength[i];
        if (n > 0 && options.callchains()) {
            int from = d.chainAt[i];
            chain(raw.chains(), from, from + 8 * n, ip, guest, b, m, pid);
        }
        b.end();
    }

    /** Resolves a sample's callchain into its callers (see the class comment for the rules). */
    private void chain(java.nio.ByteBuffer chain, int from, int to, long ip, boolean guest, BatchBuilder b,
            Machines m, int pid) {
        int context = guest ? CPUMODE_GUEST_USER : CPUMODE_USER;
        boolean first = true;
        boolean fromPc = false;
        int mark = b.chainMark();
        for (int j = from; j < to; j += 8) {
            long x = chain.getLong(j);
            if (isMarker(x)) {
                if (x == CONTEXT_KERNEL) {
                    context = CPUMODE_KERNEL;
                } else if (x == CONTEXT_USER) {
                    context = CPUMODE_USER;
                } else if (x == CONTEXT_HV) {
                    context = CPUMODE_HYPERVISOR;
                } else if (x == CONTEXT_GUEST_KERNEL || x == CONTEXT_GUEST) {
                    context = CPUMODE_GUEST_KERNEL;
                } else if (x == CONTEXT_GUEST_USER) {
                    context = CPUMODE_GUEST_USER;
                } else {
                    // A corrupt callchain: none of its frames is kept (as perf report drops it).
                    invalidContexts++;
                    b.dropCallers(mark);
                    return;
                }
                continue;
            }
            if (first) {
                first = false;
                if (x == ip) {
                    fromPc = true;
                    continue;
                }
            }
            m.resolve(context, pid, x);
            b.caller(x, m.image, m.rawFrame(), mode(context));
        }
        if (fromPc) {
            b.flag(SampleBatch.CHAIN_FROM_PC);
        }
    }

    /** The Xenoprof mode of a perf cpumode (a guest's kernel is kernel mode in the guest's domain). */
    private static int mode(int cpumode) {
        return switch (cpumode) {
            case CPUMODE_KERNEL, CPUMODE_GUEST_KERNEL -> CpuMode.KERNEL.code();
            case CPUMODE_HYPERVISOR -> CpuMode.HYPERVISOR.code();
            default -> CpuMode.USER.code();
        };
    }

    /** Resolves the samples counted while symbols loaded (waiting for them now) and counts them in the report. */
    private void endDeferral() {
        deferring = false;
        PerfReport r = report;
        SortedReport s = sorted;
        machines.resolveDeferred((frame, cpumode, n, p, process, first) -> {
            r.flat(frame, cpumode, n, p);
            if (s != null) {
                // A deferred sample is a host user or kernel one: the letter of its cpumode.
                s.count((int) (first >>> 32), (int) first, frame, PerfReport.level(cpumode), n, p);
            }
        });
    }

    private void roundFinished(long samplesRead) {
        if (live && builder.pending() > 0 && System.nanoTime() - lastFlushNanos > 100_000_000L) {
            // A live recording: what this round brought reaches the consumers now, not at the next full batch.
            builder.flush();
            lastFlushNanos = System.nanoTime();
        }
        if (progress != null) {
            progress.round(samplesRead, builder.samples() - builder.pending() + directSamples);
        }
    }

    private SortedReport sorted;

    /**
     * Also counts the flat profile by {@code keys} ({@link SortedReport}), when they have a process
     * key (perf's {@code dso,sym} is the import's own report); before {@link #run}. The samples then
     * go through batches, as with any consumer.
     */
    public void sortBy(SortKeys keys) {
        if (!keys.byProcess()) {
            return;
        }
        sorted = new SortedReport(keys);
        extra.put(sorted, sorted.properties());
    }

    /** The report {@link #sortBy} asked for, or null. */
    public SortedReport sorted() {
        return sorted;
    }

    /** The dictionary, for tests. */
    Dictionary dictionary() {
        return dictionary;
    }

    /**
     * Also delivers the session to {@code consumer} (tests write a report of an import this way),
     * bound as any consumer is; before {@link #run}.
     */
    void consumer(SampleConsumer consumer, String name) {
        extra.put(consumer, Map.of(SampleConsumer.NAME, name, SampleConsumer.DELIVERY, "tap"));
    }

    /**
     * Also hands every batch to {@code reader}, a tap bound to the import's consumers as any
     * consumer is (tests look at each sample this way); before {@link #run}.
     */
    void tap(java.util.function.Consumer<SampleBatch> reader) {
        extra.put(new SampleConsumer() {
            @Override
            public void sessionStarted(SessionInfo session) {
            }

            @Override
            public void samples(SampleBatch batch) {
                reader.accept(batch);
            }

            @Override
            public void sessionEnded(SessionSummary summary) {
            }
        }, Map.of(SampleConsumer.NAME, "tap " + (extra.size() + 1), SampleConsumer.DELIVERY, "tap"));
    }
}
