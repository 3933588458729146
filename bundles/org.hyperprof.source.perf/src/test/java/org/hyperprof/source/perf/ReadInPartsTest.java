package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntConsumer;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flat import of a large mapped recording reads it in parts at once ({@link RecordingPart}).
 * Whatever the parts hold, the import must report exactly what a reading in sequence reports: the
 * same rows with the same ids, books, counters, notes and ending. The recordings here hold what a
 * part must get right on its own (processes mapped, forked and mapped over inside a part, children
 * of processes mapped before it, anonymous memory, the kernel, samples no mapping covers) and what
 * a part cannot read on its own and leaves to the import (a guest's sample, a kernel's map, a
 * malformed record, a record whose size lies, bytes that look like a round's end inside a sample).
 */
class ReadInPartsTest {

    @TempDir
    static Path dir;
    static ImportOptions options;

    @BeforeAll
    static void symbols() throws IOException {
        Path kallsyms = Files.writeString(dir.resolve("kallsyms"),
                "ffffffff81000000 T _text\nffffffff81000100 T schedule\nffffffff81000400 T do_syscall_64\n");
        Path empty = Files.createDirectories(dir.resolve("empty"));
        options = ImportOptions.defaults().withCallchains(false).withKallsyms(kallsyms).withSymbolDirs(empty, empty,
                empty);
    }

    /** Everything a flat import reports, as one text; {@code taken} is told how many parts were taken as read. */
    static String imported(Path file, ImportOptions options, int parts, IntConsumer taken) {
        try (PerfDataReader reader = PerfDataReader.open(file)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), options, false);
            imp.readInParts(parts, 0);
            PerfImport.Result r = imp.run(reader, null, "perf.data", null, false);
            taken.accept(imp.partsTaken);
            StringBuilder out = new StringBuilder();
            out.append(r.accounting().line()).append('\n').append(r.endReason()).append('\n').append(r.counters())
                    .append('\n').append(r.notes()).append('\n').append(r.domains()).append('\n')
                    .append(r.report().samples()).append(' ').append(r.report().period()).append('\n');
            r.report().rows().forEach(row -> out.append(row).append('\n'));
            return out.toString();
        } catch (PerfDataException e) {
            return "not opened: " + e.getMessage();
        }
    }

    /** The import read in {@code parts} parts reports what the reading in sequence reports; returns the parts taken. */
    private static int readsAsInSequence(Path file, int parts) {
        int[] taken = {0};
        String inSequence = imported(file, options, 1, n -> assertEquals(0, n, "one part is read in sequence"));
        assertEquals(inSequence, imported(file, options, parts, n -> taken[0] = n), parts + " parts");
        return taken[0];
    }

    /** What goes into a recording at sample {@code i} of {@link #SAMPLES}, besides the sample itself. */
    interface Extra {
        void at(int i, PerfDataWriter w, Attr a, long time);
    }

    static final int SAMPLES = 600;
    static final int PROG = 100;
    static final int CHILD = 200;
    static final int GRANDCHILD = 300;
    static final int LATE = 999;

    static Path recording(String name, Extra extra) throws IOException {
        return recording(name, extra, i -> i % 8 == 7);
    }

    /**
     * A host recording of one event: a kernel, a program with libc, then (in the later parts) a
     * child forked from it that maps another program over part of it, a grandchild forked from the
     * child after that, JIT code in anonymous memory, samples of a process that has no maps until it
     * is forked, samples outside every mapping, a pid used again. A round ends after sample {@code i} where {@code roundEnds} says; {@code extra}
     * adds to it.
     */
    static Path recording(String name, Extra extra, java.util.function.IntPredicate roundEnds) throws IOException {
        Attr a = new Attr().sampleType(IP | TID | TIME | CPU | PERIOD).flags(SAMPLE_ID_ALL | FREQ);
        PerfDataWriter w = new PerfDataWriter().attr(a).hostname("parts");
        w.mmap(1, -1, 0xffffffff81000000L, 0x1000000, 0xffffffff81000000L, "[kernel.kallsyms]_text", 0);
        w.comm(PROG, "prog", 1).mmap2(2, PROG, 0x400000, 0x20000, 0, "/opt/parts/prog", 2);
        w.mmap2(2, PROG, 0x7f0000000000L, 0x200000, 0x1000, "/opt/parts/libc.so.6", 3);
        for (int i = 0; i < SAMPLES; i++) {
            long time = 1000 + 10L * i;
            if (i == 300) {
                w.fork(CHILD, PROG, time - 5).comm(CHILD, "child", time - 4);
            } else if (i == 340) {
                w.mmap2(2, CHILD, 0x408000, 0x4000, 0x2000, "/opt/parts/other", time - 5);
            } else if (i == 360) {
                w.fork(GRANDCHILD, CHILD, time - 5);
            } else if (i == 380) {
                w.mmap2(2, PROG, 0x7e0000000000L, 0x10000, 0, "//anon", time - 5);
            } else if (i == 420) {
                // A process with samples before: now it has maps (the samples just before and after are its).
                w.sample(a, new Sample(2, 0x400500, LATE, time - 6));
                w.fork(LATE, PROG, time - 5);
                w.sample(a, new Sample(2, 0x400500, LATE, time - 4));
            } else if (i == 500) {
                w.exit(GRANDCHILD, time - 5);
            } else if (i == 530) {
                // Its pid again, from a process with no maps.
                w.sample(a, new Sample(2, 0x409004, GRANDCHILD, time - 6));
                w.fork(GRANDCHILD, 1, time - 5);
                w.sample(a, new Sample(2, 0x409004, GRANDCHILD, time - 4));
            }
            extra.at(i, w, a, time);
            int pid = i < 300 || i % 3 == 0 ? PROG : i % 3 == 1 || i < 360 ? CHILD : GRANDCHILD;
            Sample s;
            switch (i % 7) {
                case 0 -> s = new Sample(1, 0xffffffff81000100L + (i % 5) * 0x90, pid, time);
                case 1 -> s = new Sample(2, 0x7f0000000000L + 0x1000 * (i % 4) + 16, pid, time);
                case 2 -> s = new Sample(2, i >= 380 && pid == PROG ? 0x7e0000000100L + i % 3 : 0x409000 + i % 9, pid,
                        time);
                case 3 -> s = new Sample(2, 0x400400 + 4 * (i % 11), pid, time);
                case 4 -> s = new Sample(2, 0x40c000 + (i % 6), pid, time);
                case 5 -> s = i % 2 == 0 ? new Sample(2, 0x500000 + (i % 3), pid, time)
                        : new Sample(2, 0x400500 + (i % 3), LATE, time);
                default -> s = new Sample(2, 0x7f00001f0000L + (i % 2), pid, time);
            }
            s.period = 1000 + i % 13;
            s.cpu = i % 2;
            w.sample(a, s);
            if (roundEnds.test(i)) {
                w.finishedRound();
            }
        }
        w.finishedRound();
        return Files.write(dir.resolve(name), w.file());
    }

    @Test
    void aRecordingReadInPartsReportsWhatTheReadingInSequenceReports() throws IOException {
        Path file = recording("clean.data", (i, w, a, time) -> { });
        for (int parts = 2; parts <= 5; parts++) {
            assertEquals(parts - 1, readsAsInSequence(file, parts), "every later part is taken as read");
        }
    }

    @Test
    void aGuestSampleInALaterPartLeavesThatPartToTheImport() throws IOException {
        Path file = recording("guest-late.data", (i, w, a, time) -> {
            if (i == 450) {
                w.sample(a, new Sample(4, 0xffffffff81000100L, 4242, time - 1));
            }
        });
        assertEquals(0, readsAsInSequence(file, 2));
        readsAsInSequence(file, 4);
    }

    @Test
    void aGuestSampleInTheFirstPartStopsTheDeferralAndEveryPartIsReadInSequence() throws IOException {
        Path file = recording("guest-early.data", (i, w, a, time) -> {
            if (i == 40) {
                w.sample(a, new Sample(5, 0x400100, 4242, time - 1));
            }
        });
        assertEquals(0, readsAsInSequence(file, 3));
    }

    @Test
    void aKernelMapInALaterPartLeavesThatPartToTheImportAndTheNextIsTakenAgain() throws IOException {
        Path file = recording("module-late.data", (i, w, a, time) -> {
            if (i == 330) {
                w.mmap(1, -1, 0xffffffffc0000000L, 0x4000, 0, "/lib/modules/e1000.ko", time - 1);
            }
        });
        assertEquals(0, readsAsInSequence(file, 2));
        int taken = readsAsInSequence(file, 5);
        assertTrue(taken >= 1 && taken < 4, "the part with the kernel map is read by the import, the others are"
                + " taken: " + taken);
    }

    @Test
    void aMalformedRecordInALaterPartIsNotedAsInSequence() throws IOException {
        Path file = recording("bad-comm.data", (i, w, a, time) -> {
            if (i == 420) {
                ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                b.putInt(CHILD).putInt(CHILD).put("noterminator".getBytes(), 0, 8);
                w.add(3, 0, concat(b.array(), w.trailer(a, CHILD, time - 1, 0)));
            }
        });
        String text = imported(file, options, 1, n -> { });
        assertTrue(text.contains("no NUL-terminated name"), text);
        assertEquals(0, readsAsInSequence(file, 2));
    }

    @Test
    void aRecordWhoseSizeLiesInALaterPartStopsTheImportWhereTheReadingInSequenceStops() throws IOException {
        Path file = recording("lying-size.data", (i, w, a, time) -> {
            if (i == 520) {
                w.raw(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(9).putShort((short) 2)
                        .putShort((short) 4).array());
            }
        });
        String text = imported(file, options, 1, n -> { });
        assertTrue(text.contains("less than its own 8-byte header"), text);
        readsAsInSequence(file, 2);
        readsAsInSequence(file, 3);
    }

    @Test
    void bytesThatLookLikeARoundsEndInsideASampleDoNotCutTheRecordingThere() throws Exception {
        // A thread 524288 of process 68: its pid/tid pair reads 44 00 00 00 00 00 08 00, a FINISHED_ROUND.
        Path file = recording("false-round.data", (i, w, a, time) -> {
            if (i >= 150 && i < 450) {
                Sample s = new Sample(2, 0x400400, 68, time - 1);
                s.tid = 0x80000;
                w.sample(a, s);
            }
        }, i -> i % 8 == 7 && (i < 150 || i >= 450));
        try (PerfDataReader r = PerfDataReader.open(file)) {
            assertEquals(1, r.partStarts(2).length, "the scan takes the look-alike for a round's end");
        }
        assertEquals(0, readsAsInSequence(file, 2), "the first part's reading finds no round's end there");
        readsAsInSequence(file, 3);
    }

    @Test
    void aSharePastWhichNoRoundEndsGivesFewerParts() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | PERIOD).flags(SAMPLE_ID_ALL);
        PerfDataWriter w = new PerfDataWriter().attr(a);
        w.comm(PROG, "prog", 1).mmap2(2, PROG, 0x400000, 0x20000, 0, "/opt/parts/prog", 2);
        for (int i = 0; i < 300; i++) {
            w.sample(a, new Sample(2, 0x400100 + i % 7, PROG, 10 + i));
            if (i == 40) {
                w.finishedRound();
            }
        }
        Path file = Files.write(dir.resolve("one-round-end.data"), w.file());
        try (PerfDataReader r = PerfDataReader.open(file)) {
            assertEquals(0, r.partStarts(2).length, "no round ends after the first share starts");
        }
        assertEquals(0, readsAsInSequence(file, 2));
    }
}
