package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.pipeline.SymbolTables;

/**
 * The reader over mutated recordings (bits flipped, bytes overwritten, files cut, sizes, types and
 * header fields lied about). The campaign ({@link #noMutantOfARecordingIsSilentlyWrong}) holds
 * hundreds of mutants of real recordings against perf report; the properties check that the
 * reader's fast paths (runs of samples, parts read at once) read mutants exactly as its general
 * path does. Everything is made from fixed seeds: the same mutants every run.
 */
class MutatedRecordingPropertyTest {

    private static Path dir;
    private static Path kallsyms;
    private static byte[] fileForm;
    private static byte[] pipeForm;
    private static byte[] real;
    /** One event with its time and callchains: the layout the fast path for runs of samples takes. */
    private static byte[] oneEvent;
    /** The campaign's recordings of the busy test program (perf record -g, file and pipe form), or null. */
    private static byte[] busyFile;
    private static byte[] busyPipe;
    /** The same, compressed (perf record -z, small rings: records straddle COMPRESSED records), or null. */
    private static byte[] busyCompressed;
    /** The kernel symbols perf report and the import both name the campaign's kernel samples with. */
    private static Path campaignKallsyms;

    @BeforeContainer
    static void recordings() throws Exception {
        dir = Files.createTempDirectory("hyperprof-fuzz");
        kallsyms = Files.writeString(dir.resolve("kallsyms"), "ffffffff81000000 T _text\nffffffff81000100 T f\n");
        Attr clock = new Attr().sampleType(IDENTIFIER | IP | TID | TIME | CPU | PERIOD | READ | CALLCHAIN)
                .readFormat(4 | 16).ids(5, 6).flags(SAMPLE_ID_ALL | FREQ);
        Attr faults = new Attr().sampleType(IDENTIFIER | IP | TID | TIME | CPU | PERIOD | READ | CALLCHAIN)
                .readFormat(4 | 16).ids(7);
        PerfDataWriter w = new PerfDataWriter().attr(clock).attr(faults).hostname("fuzz");
        w.feature(2, w.buildIdRecord(0x8002, -1, "0011223344556677889900112233445566778899", "/bin/true"));
        w.mmap(1, -1, 0xffffffff81000000L, 0x1000000, 0xffffffff81000000L, "[kernel.kallsyms]_text", 0);
        w.comm(9, "fuzz", 1).mmap2(2, 9, 0x400000, 0x10000, 0, "/bin/true", 2).fork(10, 9, 3);
        for (int i = 0; i < 40; i++) {
            Sample s = new Sample(i % 3 == 0 ? 1 : 2, 0x400100 + i, i % 2 == 0 ? 9 : 10, 10 + i, -128L,
                    0xffffffff81000110L, -512L, 0x400100 + i, 0x400200);
            s.identifier = i % 4 == 0 ? 7 : 5;
            s.read = new long[] {i, 5, 0};
            s.period = 1000 + i;
            w.sample(i % 4 == 0 ? faults : clock, s);
            if (i % 10 == 9) {
                w.finishedRound();
            }
        }
        w.lost(3).exit(10, 100).add(5, 0, new byte[24]);
        fileForm = w.file();
        pipeForm = w.pipe();
        Attr clockOnly = new Attr().sampleType(IP | TID | TIME | CPU | PERIOD | CALLCHAIN).flags(SAMPLE_ID_ALL | FREQ);
        PerfDataWriter one = new PerfDataWriter().attr(clockOnly).hostname("fuzz");
        one.comm(9, "fuzz", 1).mmap2(2, 9, 0x400000, 0x10000, 0, "/bin/true", 2);
        for (int i = 0; i < 60; i++) {
            Sample s = new Sample(i % 3 == 0 ? 1 : 2, 0x400100 + i, 9, 10 + (i ^ 1), -128L, 0xffffffff81000110L,
                    -512L, 0x400100 + i, 0x400200);
            s.period = 1000 + i;
            one.sample(clockOnly, s);
            if (i % 15 == 14) {
                one.mmap2(2, 9, 0x500000 + i, 0x1000, 0, "/lib/x" + i, 10 + i);
            }
            if (i % 5 == 4) {
                one.finishedRound();
            }
        }
        oneEvent = one.file();
        if (PerfTool.available()) {
            // The smallest ring buffers: perf ends a round every few dozen samples, so that the import
            // in parts can cut the real recording too.
            Path r = PerfTool.record(dir.resolve("real.data"), List.of("-e", "cpu-clock", "-c", "200000", "-g", "-m",
                    "1"),
                    List.of("/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"));
            real = Files.readAllBytes(r);
            if (PerfTool.gccAvailable()) {
                Path busy = PerfTool.compile(dir, "busy.c", "busy");
                List<String> options = List.of("-e", "cpu-clock", "-c", "100000", "-g");
                List<String> command = List.of(busy.toString(), "300", "/bin/sh");
                busyFile = Files.readAllBytes(PerfTool.record(dir.resolve("busy.data"), options, command));
                busyPipe = Files.readAllBytes(PerfTool.recordPipe(dir.resolve("busy-pipe.data"), options, command));
                List<String> compressed = new java.util.ArrayList<>(List.of("-z", "-m", "4"));
                compressed.addAll(options);
                busyCompressed = Files.readAllBytes(PerfTool.record(dir.resolve("busy-z.data"), compressed, command));
                campaignKallsyms = PerfTool.kallsymsSample(dir.resolve("kallsyms-sample"), 16);
            }
        }
    }

    @AfterContainer
    static void cleanUp() throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A mutation: what it does to a copy of the bytes. */
    interface Mutation {
        byte[] apply(byte[] original);
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        Arbitrary<Double> where = Arbitraries.doubles().between(0, 1);
        Arbitrary<Mutation> flip = Combinators.combine(where, Arbitraries.integers().between(1, 255),
                Arbitraries.integers().between(1, 8)).as((at, mask, count) -> b -> {
                    byte[] c = b.clone();
                    for (int k = 0; k < count; k++) {
                        int i = (int) Math.min(c.length - 1, at * c.length + k * 37L) % c.length;
                        c[i] ^= (byte) mask.intValue();
                    }
                    return c;
                });
        Arbitrary<Mutation> cut = where.map(at -> b -> java.util.Arrays.copyOf(b, (int) (at * b.length)));
        Arbitrary<Mutation> lieU16 = Combinators.combine(where, Arbitraries.integers().between(0, 65535))
                .as((at, v) -> b -> {
                    byte[] c = b.clone();
                    int i = (int) (at * (c.length - 2)) & ~1;
                    ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).putShort(i, (short) (int) v);
                    return c;
                });
        Arbitrary<Mutation> lieU64 = Combinators.combine(where, Arbitraries.longs()).as((at, v) -> b -> {
            byte[] c = b.clone();
            int i = (int) (at * (c.length - 8)) & ~7;
            ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).putLong(i, v);
            return c;
        });
        return Arbitraries.oneOf(flip, cut, lieU16, lieU64);
    }

    private static ImportOptions options() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        return ImportOptions.defaults().withKallsyms(kallsyms).withSymbolDirs(empty, empty, empty);
    }

    /** What a reader hands on and counts, and how it stops: one text to compare. */
    private static String readsAs(Path f, boolean sampleRuns) throws IOException {
        StringBuilder out = new StringBuilder();
        try (PerfDataReader reader = PerfDataReader.open(f)) {
            reader.sampleRuns(sampleRuns);
            Capture c = new Capture();
            try {
                reader.read(c);
            } catch (PerfDataException e) {
                out.append("stopped: ").append(e.getMessage()).append('\n');
            }
            out.append(String.join("\n", c.lines)).append('\n').append(reader.counters()).append('\n')
                    .append(reader.notes()).append('\n').append(reader.samplesRead()).append(' ')
                    .append(reader.samplesDropped()).append(' ').append(reader.samplesInvalid()).append(' ')
                    .append(reader.lost());
        } catch (PerfDataException e) {
            out.append("not opened: ").append(e.getMessage());
        }
        return out.toString();
    }

    /** The fast path for runs of samples is an optimisation only: with or without it, a reader reads the same. */
    @Property(seed = "1400500")
    void theFastPathForRunsOfSamplesReadsExactlyWhatTheGeneralPathReads(@ForAll("mutations") Mutation m)
            throws Exception {
        Path f = Files.write(Files.createTempFile(dir, "d", ".data"), m.apply(oneEvent));
        assertEquals(readsAs(f, false), readsAs(f, true));
        if (real != null) {
            Path r = Files.write(Files.createTempFile(dir, "r", ".data"), m.apply(real));
            assertEquals(readsAs(r, false), readsAs(r, true));
        }
    }

    /**
     * A flat import read in parts reports what the reading in sequence reports, whatever the
     * mutation did (a part that meets anything it cannot read on its own is read by the import).
     */
    @Property(seed = "1400300")
    void aFlatImportReadInPartsReportsWhatTheReadingInSequenceReports(@ForAll("mutations") Mutation m)
            throws Exception {
        ImportOptions flat = options().withCallchains(false);
        for (byte[] original : real != null ? List.of(oneEvent, real) : List.of(oneEvent)) {
            Path f = Files.write(Files.createTempFile(dir, "p", ".data"), m.apply(original));
            String inSequence = ReadInPartsTest.imported(f, flat, 1, n -> { });
            for (int parts = 2; parts <= 4; parts++) {
                assertEquals(inSequence, ReadInPartsTest.imported(f, flat, parts, n -> { }), parts + " parts");
            }
        }
    }

    /**
     * The recordings the property above mutates are themselves read in parts, so that it tests
     * parts at all: the hand-written one always (a round ends in its later share), the real one
     * where perf ended a round there.
     */
    @Example
    void theRecordingsMutatedAreReadInPartsWhenWhole() throws Exception {
        ImportOptions flat = options().withCallchains(false);
        for (byte[] original : real != null ? List.of(oneEvent, real) : List.of(oneEvent)) {
            Path f = Files.write(Files.createTempFile(dir, "w", ".data"), original);
            try (PerfDataReader reader = PerfDataReader.open(f)) {
                int later = reader.partStarts(2).length;
                if (original == oneEvent) {
                    assertEquals(1, later, "a round ends in the later share of the hand-written recording");
                }
                PerfImport imp = new PerfImport(Wiring.resolvers(), flat, false);
                imp.readInParts(2, 0);
                imp.run(reader, null, "perf.data", null, false);
                assertEquals(later, imp.partsTaken, () -> "the later part taken as read; left: " + imp.partsLeft);
            }
        }
    }

    // ---------------------------------------------------------------- the mutation campaign

    /**
     * How many times the test run's campaign a run makes: 1 in the test run (a few seconds), more as
     * a soak run (README, "Development: fuzzing the parsers"). The first mutants of each seed are the
     * same at every scale.
     */
    static final int SCALE = Math.max(1, Integer.getInteger("hyperprof.campaign.scale", 1));
    /** Mutants of each real recording per run, and of each hand-written one. */
    static final int FILE_MUTANTS = 120 * SCALE;
    static final int PIPE_MUTANTS = 80 * SCALE;
    static final int COMPRESSED_MUTANTS = 60 * SCALE;
    static final int HAND_WRITTEN_MUTANTS = 100 * SCALE;
    /** perf report on a mutant normally takes 20-40 ms; one that runs this long is taken as hanging. */
    static final long PERF_TIMEOUT_SECONDS = 10;
    /** An import of a 20 KB mutant takes milliseconds; far past this it hangs. */
    static final long IMPORT_TIMEOUT_SECONDS = 120;

    /** How the import ended on a mutant. */
    enum Ours {
        /** {@link PerfDataReader#open} refused it with a {@link PerfDataException}. */
        REFUSED,
        /** The import stopped early with a {@link PerfDataException}, keeping what it read. */
        STOPPED,
        /** It completed, with notes on what it skipped or doubted. */
        NOTED,
        /** It completed without a word about the recording. */
        CLEAN
    }

    /** What happened to one mutant on both sides. */
    record Verdict(PerfDataMutants.Mutant mutant, PerfTool.Outcome perf, Ours ours, String why,
            Map<PerfTool.Key, Long> rows) {

        boolean perfAccepts() {
            return !perf.timedOut() && !perf.crashed() && !perf.rows().isEmpty();
        }

        boolean agrees() {
            return perf.rows().equals(rows);
        }

        /** The campaign's failure: a result that differs from perf's (or stands where perf has none) and says nothing. */
        boolean silentlyWrong() {
            if (perf.timedOut() || perf.crashed() || ours != Ours.CLEAN) {
                return false;
            }
            return !perfAccepts() || !agrees();
        }

        String category() {
            if (perf.timedOut()) {
                return "perf hangs";
            }
            if (perf.crashed()) {
                return "perf crashes";
            }
            if (perfAccepts()) {
                return agrees() ? "perf accepts, same totals" : "perf accepts, other totals";
            }
            return "perf prints no report";
        }

        @Override
        public String toString() {
            return mutant + ": perf " + (perf.timedOut() ? "hung" : perf.crashed() ? "crashed (" + perf.exit() + ")"
                    : perfAccepts() ? perf.rows().values().stream().mapToLong(Long::longValue).sum() + " samples"
                    : "no report: " + perf.said()) + "; hyperprof " + ours + ": " + why
                    + (perfAccepts() && !agrees() ? "; rows " + diff(perf.rows(), rows) : "");
        }
    }

    /** The rows that differ, briefly. */
    static String diff(Map<PerfTool.Key, Long> perf, Map<PerfTool.Key, Long> ours) {
        StringBuilder b = new StringBuilder();
        java.util.Set<PerfTool.Key> keys = new java.util.TreeSet<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        keys.addAll(perf.keySet());
        keys.addAll(ours.keySet());
        int shown = 0;
        for (PerfTool.Key k : keys) {
            if (!java.util.Objects.equals(perf.get(k), ours.get(k)) && shown++ < 4) {
                b.append(k).append(": perf ").append(perf.get(k)).append(", hyperprof ").append(ours.get(k)).append("; ");
            }
        }
        return b.toString();
    }

    /**
     * The campaign: hundreds of mutants of recordings {@code perf record} makes now (file, pipe and -z) in file and
     * pipe form, each read by {@code perf report} (the oracle) and by the import. Whatever perf
     * does, the import never crashes or hangs, its books balance, and it is never silently wrong:
     * where perf prints a report, the import's per-(dso, sym) totals equal perf's, or it refuses,
     * stops or notes with a clear reason; where perf prints none (it refuses the file, or finds no
     * sample), the import refuses, stops or says in a note what it skipped or why it has nothing.
     * Every run makes the same mutants from fixed seeds; the hand-written recordings' mutants
     * (events with READ values and ids, which perf record does not write here) are checked
     * against the same rules without an oracle. perf report runs on two mutants at once.
     */
    @Example
    void noMutantOfARecordingIsSilentlyWrong() throws Exception {
        long t0 = System.nanoTime();
        List<PerfDataMutants.Mutant> handWritten = new java.util.ArrayList<>();
        handWritten.addAll(new PerfDataMutants(fileForm, 14_001).next(HAND_WRITTEN_MUTANTS, 0));
        handWritten.addAll(new PerfDataMutants(pipeForm, 14_002).next(HAND_WRITTEN_MUTANTS, HAND_WRITTEN_MUTANTS));
        SymbolTables resolvers = Wiring.resolvers();
        ImportOptions handOptions = options();
        for (PerfDataMutants.Mutant m : handWritten) {
            importMutant(m, resolvers, handOptions);
        }
        if (busyFile == null) {
            return; // perf or gcc is not installed: the hand-written recordings' mutants above are all there is
        }
        List<PerfDataMutants.Mutant> mutants = new java.util.ArrayList<>();
        mutants.addAll(new PerfDataMutants(busyFile, 14_003).next(FILE_MUTANTS, 0));
        mutants.addAll(new PerfDataMutants(busyPipe, 14_004).next(PIPE_MUTANTS, FILE_MUTANTS));
        // Of the -z recording, its records and header: perf stops reading a file's features at the first
        // it cannot parse (CACHE and the topologies too, which the import does not read), and then has
        // no COMPRESSED feature and decompresses nothing, where the import reads that feature whatever
        // came before it. (Mutated features are the campaign's on the other recordings.)
        new PerfDataMutants(busyCompressed, 14_005).next(COMPRESSED_MUTANTS, FILE_MUTANTS + PIPE_MUTANTS).stream()
                .filter(m -> !m.recipe().contains("(in the features)")).forEach(mutants::add);
        ImportOptions realOptions = ImportOptions.defaults().withKallsyms(campaignKallsyms);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        List<Verdict> verdicts = new java.util.ArrayList<>();
        try {
            List<java.util.concurrent.Future<Verdict>> futures = new java.util.ArrayList<>();
            for (PerfDataMutants.Mutant m : mutants) {
                futures.add(pool.submit(() -> {
                    Path f = Files.write(dir.resolve("campaign-" + m.number() + ".data"), m.bytes());
                    try {
                        PerfTool.Outcome perf = PerfTool.flatReport(f, campaignKallsyms, PERF_TIMEOUT_SECONDS);
                        Verdict v = importMutant(m, resolvers, realOptions);
                        return new Verdict(m, perf, v.ours(), v.why(), v.rows());
                    } finally {
                        Files.deleteIfExists(f);
                    }
                }));
            }
            for (int i = 0; i < futures.size(); i++) {
                try {
                    verdicts.add(futures.get(i).get(IMPORT_TIMEOUT_SECONDS + PERF_TIMEOUT_SECONDS,
                            java.util.concurrent.TimeUnit.SECONDS));
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError(mutants.get(i) + ": the import did not end", e);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError(mutants.get(i) + ": " + e.getCause(), e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, Map<Ours, Integer>> table = new java.util.TreeMap<>();
        for (Verdict v : verdicts) {
            table.computeIfAbsent(v.category(), k -> new java.util.EnumMap<>(Ours.class)).merge(v.ours(), 1,
                    Integer::sum);
        }
        List<Verdict> silent = verdicts.stream().filter(Verdict::silentlyWrong).toList();
        System.out.printf(java.util.Locale.ROOT, "perf.data mutation campaign: %d mutants of real recordings (%d file,"
                + " %d pipe, %d compressed) and %d of hand-written ones in %.1f s: %s; silently wrong: %d%n",
                verdicts.size(), FILE_MUTANTS, PIPE_MUTANTS, mutants.size() - FILE_MUTANTS - PIPE_MUTANTS,
                handWritten.size(), (System.nanoTime() - t0) / 1e9, table, silent.size());
        verdicts.stream().filter(v -> v.perfAccepts() && !v.agrees())
                .forEach(v -> System.out.println("  perf accepts, hyperprof differs with a reason: " + v));
        // What the import said, by kind: the first words of each note or error, numbers and names left out.
        Map<String, Long> kinds = new java.util.TreeMap<>();
        for (Verdict v : verdicts) {
            for (String why : v.why().split(" / ")) {
                if (!why.isBlank()) {
                    String kind = why.replaceFirst("^.*?: (at byte \\d+ \\(0x[0-9a-f]+\\): )?", "")
                            .replaceAll("0x[0-9a-f]+|[0-9]+", "N").replaceAll("(?s)^(.{0,60}).*", "$1");
                    kinds.merge(v.ours() + ": " + kind, 1L, Long::sum);
                }
            }
        }
        System.out.println("  what the import said, by kind: " + kinds);
        if (!silent.isEmpty()) {
            // Kept next to the build output, to look into with perf report and the import by hand.
            Path kept = Files.createDirectories(Path.of("target", "perf-campaign"));
            for (Verdict v : silent) {
                Files.write(kept.resolve("mutant-" + v.mutant().number() + ".data"), v.mutant().bytes());
            }
            Files.copy(campaignKallsyms, kept.resolve("kallsyms"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        assertTrue(silent.isEmpty(), () -> silent.size() + " mutants silently wrong:\n  "
                + String.join("\n  ", silent.stream().map(Verdict::toString).toList()));
    }

    /**
     * The campaign's case made exact (a run flipped bit 0 of byte 2 of the test program's MMAP2
     * pgoff): the program's mapping said to start 64 KiB further into the file, past its code, so
     * that its samples lie where no executable segment is. perf report names them by the data
     * object its tree holds there (the program's 64 KiB buffer) at offsets of its own; the import
     * leaves them unnamed and says so, naming the image, never silently.
     */
    @Example
    void samplesThatAMappingPutsOutsideTheProgramsCodeAreNoted() throws Exception {
        if (busyFile == null) {
            return; // perf or gcc is not installed
        }
        byte[] bytes = busyFile.clone();
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        PerfDataMutants.Layout layout = new PerfDataMutants.Layout(busyFile);
        int moved = 0;
        for (int[] r : layout.of(PerfFormat.MMAP2)) {
            String name = new String(bytes, r[0] + 72, r[2] - 72, java.nio.charset.StandardCharsets.UTF_8);
            if (name.startsWith(dir.resolve("busy").toString() + "\0")) {
                b.putLong(r[0] + 32, b.getLong(r[0] + 32) + 0x10000);
                moved++;
            }
        }
        assertTrue(moved > 0, "the test program's mappings found");
        Verdict v = bothRead(bytes, 1200, "the test program's MMAP2 pgoff + 0x10000");
        assertEquals(Ours.NOTED, v.ours(), v.toString());
        assertTrue(v.why().contains("samples in " + dir.resolve("busy") + " lie outside its code"), v.toString());
        assertTrue(!v.silentlyWrong(), v.toString());
    }

    /**
     * The campaign's case made exact (one run flipped bit 6 of the attr's sample_type byte 1):
     * a real recording whose event's sample_type announces a field after the callchain that its
     * samples lack. For each such bit, perf report and the import agree: where perf checks the
     * field it refuses the sample ({@code Can't parse sample}) and prints no report, and the import
     * counts the samples invalid and names the field; PHYS_ADDR, CGROUP, DATA_PAGE_SIZE and
     * CODE_PAGE_SIZE perf reads without a check, so both count every sample alike, and the import
     * notes that the records end before them.
     */
    @Example
    void aFieldAfterTheCallchainThatTheSamplesLackIsNeverTakenSilently() throws Exception {
        if (real == null) {
            return; // perf cannot record here
        }
        PerfDataMutants.Layout layout = new PerfDataMutants.Layout(real);
        java.util.Set<Integer> refusedByPerf = new java.util.TreeSet<>();
        for (int bit = 10; bit <= 24; bit++) {
            if (bit == 16) {
                continue; // IDENTIFIER: the field before all others
            }
            byte[] bytes = real.clone();
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (long at = layout.attrsOffset; at < layout.attrsOffset + layout.attrsSize; at += layout.attrSize) {
                b.putLong((int) at + 24, b.getLong((int) at + 24) | 1L << bit);
            }
            Verdict v = bothRead(bytes, 1000 + bit, "sample_type bit " + bit + " set in the attrs");
            assertEquals(Ours.NOTED, v.ours(), v.toString());
            if (v.perfAccepts()) {
                assertTrue(v.agrees(), v.toString());
                assertTrue(v.why().contains("ends before its"), v.toString());
            } else {
                refusedByPerf.add(bit);
                assertTrue(v.perf().said().contains("Can't parse sample"), v.toString());
                assertTrue(v.why().contains("is too short for its") || v.why().contains("is too short for a"),
                        v.toString());
            }
        }
        assertEquals(java.util.Set.of(10, 11, 12, 13, 14, 15, 17, 18, 20, 24), refusedByPerf,
                "the bits whose fields perf checks");
    }

    /**
     * The same recording with the fields after the callchain there, appended to every sample:
     * where they are what perf reads, perf and the import count every sample alike and the import
     * says nothing of them; a BRANCH_STACK without the hw_idx its event asks for, or a user stack
     * saying more of it is in use than it holds, perf refuses, and the import counts invalid.
     */
    @Example
    void fieldsAfterTheCallchainAreReadAsPerfReadsThem() throws Exception {
        if (real == null) {
            return; // perf cannot record here
        }
        long hwIndex = 1L << 17;
        record Case(String recipe, long bits, long branchSampleType, long[] after, String refusal) {
        }
        List<Case> cases = List.of(
                new Case("a user stack of 8 bytes, all in use", 1L << 13, 0, new long[] {8, 0, 8}, null),
                new Case("a user stack of 8 bytes, 9 in use", 1L << 13, 0, new long[] {8, 0, 9}, "user stack of 8"),
                new Case("a branch stack with its hw_idx", 1L << 11, hwIndex, new long[] {1, 7, 0x10, 0x20, 0}, null),
                new Case("a branch stack lacking its hw_idx", 1L << 11, hwIndex, new long[] {1, 0x10, 0x20, 0},
                        "branch stack of 1 entries and its hw_idx"),
                new Case("a branch stack of no hw_idx", 1L << 11, 0, new long[] {1, 0x10, 0x20, 0}, null),
                new Case("registers of ABI NONE, a weight", 1L << 12 | 1L << 14, 0, new long[] {0, 5}, null));
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            Verdict v = bothRead(withAfterCallchain(real, c.bits(), c.branchSampleType(), c.after()), 1100 + i,
                    c.recipe());
            if (c.refusal() == null) {
                assertTrue(v.perfAccepts() && v.agrees(), v.toString());
                assertTrue(!v.why().contains("SAMPLE record"), v.toString());
            } else {
                assertTrue(!v.perfAccepts() && v.perf().said().contains("Can't parse sample"), v.toString());
                assertEquals(Ours.NOTED, v.ours(), v.toString());
                assertTrue(v.why().contains(c.refusal()), v.toString());
            }
        }
    }

    /** What perf report (flat, the sample of kernel symbols) and the import make of {@code bytes}. */
    private static Verdict bothRead(byte[] bytes, int number, String recipe) throws Exception {
        Path kernel = dir.resolve("kallsyms-after-callchain");
        if (!Files.exists(kernel)) {
            PerfTool.kallsymsSample(kernel, 16);
        }
        PerfDataMutants.Mutant m = new PerfDataMutants.Mutant(number, recipe, bytes);
        Path f = Files.write(dir.resolve("after-callchain-" + number + ".data"), bytes);
        PerfTool.Outcome perf = PerfTool.flatReport(f, kernel, PERF_TIMEOUT_SECONDS);
        Verdict ours = importMutant(m, Wiring.resolvers(), ImportOptions.defaults().withKallsyms(kernel));
        return new Verdict(m, perf, ours.ours(), ours.why(), ours.rows());
    }

    /**
     * A file-form recording with {@code bits} set in its events' sample_type, their
     * branch_sample_type {@code branchSampleType}, and the u64s {@code after} appended to every
     * sample; the data section grows by them and the feature sections move behind it.
     */
    private static byte[] withAfterCallchain(byte[] file, long bits, long branchSampleType, long... after) {
        PerfDataMutants.Layout layout = new PerfDataMutants.Layout(file);
        int[] last = layout.records.get(layout.records.size() - 1);
        assertEquals(layout.dataEnd, last[0] + last[2], "every record of the data section laid out");
        int grow = 8 * after.length * layout.of(PerfFormat.SAMPLE).size();
        ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer out = ByteBuffer.allocate(file.length + grow).order(ByteOrder.LITTLE_ENDIAN);
        out.put(file, 0, (int) layout.dataOffset);
        for (long at = layout.attrsOffset; at < layout.attrsOffset + layout.attrsSize; at += layout.attrSize) {
            out.putLong((int) at + 24, in.getLong((int) at + 24) | bits);
            out.putLong((int) at + EventAttr.BRANCH_SAMPLE_TYPE_AT, branchSampleType);
        }
        for (int[] r : layout.records) {
            int start = out.position();
            out.put(file, r[0], r[2]);
            if (r[1] == PerfFormat.SAMPLE) {
                out.putShort(start + 6, (short) (r[2] + 8 * after.length));
                for (long v : after) {
                    out.putLong(v);
                }
            }
        }
        out.putLong(48, layout.dataEnd - layout.dataOffset + grow);
        int table = out.position();
        out.put(file, (int) layout.dataEnd, file.length - (int) layout.dataEnd);
        int features = 0;
        for (int w = 0; w < 4; w++) {
            features += Long.bitCount(in.getLong(72 + 8 * w));
        }
        for (int i = 0; i < features; i++) {
            out.putLong(table + 16 * i, out.getLong(table + 16 * i) + grow);
        }
        return out.array();
    }

    /**
     * Imports a mutant one of the ways a user does (by its number: hp:import, --report-only in
     * parts, --callgraph, and a pipe-form one as hp:record reads it), checks what must hold
     * whatever the bytes (only typed errors, books that balance, a report of what was delivered)
     * and says how it ended.
     */
    private static Verdict importMutant(PerfDataMutants.Mutant m, SymbolTables resolvers, ImportOptions options)
            throws IOException {
        boolean pipe = m.recipe().startsWith("pipe");
        int way = m.number() % 4;
        PerfDataReader reader;
        try {
            if (pipe && way == 3) {
                reader = PerfDataReader.open(new ByteArrayInputStream(m.bytes()), "<mutant " + m.number() + ">");
            } else {
                reader = PerfDataReader.open(Files.write(dir.resolve("ours-" + m.number() + ".data"), m.bytes()));
            }
        } catch (PerfDataException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), m.toString());
            return new Verdict(m, null, Ours.REFUSED, e.getMessage(), Map.of());
        } finally {
            Files.deleteIfExists(dir.resolve("ours-" + m.number() + ".data"));
        }
        try (reader) {
            PerfImport imp = new PerfImport(resolvers, way == 1 ? options.withCallchains(false) : options, way == 2);
            if (way == 1) {
                imp.readInParts(2, 0);
            }
            PerfImport.Result r = imp.run(reader, null, "perf.data", null, false);
            assertTrue(r.accounting().balanced(), () -> m + ": " + r.accounting().line());
            assertTrue(r.accounting().delivered() <= r.accounting().taken(), () -> m + ": " + r.accounting().line());
            assertEquals(r.accounting().delivered(), r.report().samples(), () -> m + ": the report counts what was"
                    + " delivered");
            assertEquals(new ConsumerAccounting(PerfReport.NAME, r.accounting().delivered(), 0, null), r.reportBooks(),
                    () -> m + ": the report's books");
            if (!r.completed()) {
                assertTrue(r.failure().getMessage().contains("at byte"), () -> m + ": " + r.failure().getMessage());
                return new Verdict(m, null, Ours.STOPPED, r.failure().getMessage(), PerfTool.rows(r));
            }
            return new Verdict(m, null, r.recordingNotes().isEmpty() ? Ours.CLEAN : Ours.NOTED, String.join(" / ",
                    r.recordingNotes()), PerfTool.rows(r));
        }
    }
}
