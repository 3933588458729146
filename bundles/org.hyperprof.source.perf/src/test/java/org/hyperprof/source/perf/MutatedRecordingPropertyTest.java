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

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The reader over mutated recordings (bytes flipped, files cut, sizes and counts lied about): it
 * throws nothing but {@link PerfDataException}, and an import's books balance whatever it met.
 * The recordings mutated are a rich hand-written one in file and pipe form, and a real one made
 * with perf when perf is installed.
 */
class MutatedRecordingPropertyTest {

    private static Path dir;
    private static Path kallsyms;
    private static byte[] fileForm;
    private static byte[] pipeForm;
    private static byte[] real;
    /** One event with its time and callchains: the layout the fast path for runs of samples takes. */
    private static byte[] oneEvent;

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
                one.mmap2(2, 9, 0x500000 + i, 0x1000, 0, "/lib/x" + i, 10 + i).finishedRound();
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

    /** Imports; fails the property on anything but a PerfDataException or a result whose books balance. */
    private static void importsCleanly(byte[] bytes, boolean asStream) throws Exception {
        PerfDataReader reader;
        try {
            if (asStream) {
                reader = PerfDataReader.open(new ByteArrayInputStream(bytes), "<fuzz>");
            } else {
                Path f = Files.write(Files.createTempFile(dir, "m", ".data"), bytes);
                reader = PerfDataReader.open(f);
            }
        } catch (PerfDataException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
            return;
        }
        try (reader) {
            PerfImport.Result r = new PerfImport(Wiring.resolvers(), options(), true).run(reader, null, "perf.data",
                    null, false);
            assertTrue(r.accounting().balanced(), r.accounting().line());
            assertTrue(r.accounting().delivered() <= r.accounting().taken(), r.accounting().line());
            assertTrue(r.report().samples() == r.accounting().delivered(), "the report counts what was delivered");
            if (!r.completed()) {
                assertTrue(r.failure().getMessage().contains("at byte"), r.failure().getMessage());
            }
        }
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
    @Property(tries = 500)
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
    @Property(tries = 300)
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

    @Property(tries = 600)
    void aMutatedFileYieldsOnlyTypedErrorsAndBalancedBooks(@ForAll("mutations") Mutation m) throws Exception {
        importsCleanly(m.apply(fileForm), false);
    }

    @Property(tries = 400)
    void aMutatedPipeYieldsOnlyTypedErrorsAndBalancedBooks(@ForAll("mutations") Mutation m) throws Exception {
        importsCleanly(m.apply(pipeForm), true);
    }

    @Property(tries = 400)
    void aMutatedRealRecordingYieldsOnlyTypedErrorsAndBalancedBooks(@ForAll("mutations") Mutation m)
            throws Exception {
        if (real == null) {
            return; // perf is not installed here; the hand-written recordings are fuzzed above
        }
        importsCleanly(m.apply(real), false);
    }
}
