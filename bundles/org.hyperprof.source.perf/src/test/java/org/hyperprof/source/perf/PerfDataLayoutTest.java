package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The perf.data layout as peers.md part 2 gives it, read from files written field by field. */
class PerfDataLayoutTest {

    private static final long KERNEL = -128L;
    private static final long USER = -512L;

    @TempDir
    Path dir;

    private static PerfDataWriter oneEvent() {
        return new PerfDataWriter().attr(new Attr());
    }

    @Test
    void theFileHeaderAttrsDataAndFeatureSectionsAreRead() throws Exception {
        PerfDataWriter w = oneEvent().hostname("vm");
        w.feature(4, w.string("6.1.0"));
        w.feature(6, w.string("x86_64"));
        w.feature(7, PerfDataWriter.concat(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(2).putInt(4)
                .array()));
        w.feature(8, w.string("AMD EPYC"));
        w.feature(11, PerfDataWriter.concat(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(2).array(),
                w.string("perf"), w.string("record")));
        w.feature(2, PerfDataWriter.concat(w.buildIdRecord(0x8001, -1, "e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1",
                "[kernel.kallsyms]"), w.buildIdRecord(0x8002, -1, "93ac61ec5a8eb1396f9fbd350e3169a558528a40",
                        "/usr/lib/libc.so.6")));
        w.sample(new Sample(2, 0x401000, 7, 10));
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        RecordingInfo info = c.info;
        assertEquals("vm", info.features.get("hostname"));
        assertEquals("6.1.0", info.features.get("osrelease"));
        assertEquals("x86_64", info.features.get("arch"));
        assertEquals("2", info.features.get("nrcpus online"));
        assertEquals("4", info.features.get("nrcpus avail"));
        assertEquals("AMD EPYC", info.features.get("cpudesc"));
        assertEquals("perf record", info.features.get("cmdline"));
        assertEquals("93ac61ec5a8eb1396f9fbd350e3169a558528a40", info.buildId(-1, "/usr/lib/libc.so.6"));
        assertEquals(2, info.buildIds.get(1).cpumode(), "the low 3 bits of misc give the image's cpumode");
        assertEquals(List.of("header", "sample ev0 mode2 ip=0x401000 pid=7 t=10 cpu=0 period=100000"), c.lines);
    }

    @Test
    void aBuildIdShorterThan20BytesHasItsLengthInByte20OfTheArea() throws Exception {
        PerfDataWriter w = oneEvent();
        w.feature(2, w.buildIdRecord(0x8002, -1, "00112233445566778899aabbccddeeff", "/bin/md5"));
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        assertEquals("00112233445566778899aabbccddeeff", c.info.buildId(-1, "/bin/md5"));
    }

    @Test
    void sampleFieldsFollowRecordOrderSoPeriodAndReadComeBeforeTheCallchain() throws Exception {
        // big.data's layout: IP|TID|TIME|READ|CALLCHAIN|PERIOD with read_format ID|LOST; read in bit
        // order, the period (50000) would be taken for the callchain length.
        Attr a = new Attr().sampleType(IP | TID | TIME | READ | CALLCHAIN | PERIOD).readFormat(4 | 16).period(20000)
                .flags(SAMPLE_ID_ALL | FREQ);
        Sample s = new Sample(1, 0xffffffff81001234L, 9, 5, KERNEL, 0xffffffff81001234L, USER, 0x4011a0);
        s.period = 50000;
        s.read = new long[] {77, 21, 0};
        PerfDataWriter w = new PerfDataWriter().attr(a).sample(a, s);
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        assertEquals(List.of("sample ev0 mode1 ip=0xffffffff81001234 pid=9 t=5 cpu=0 period=50000 chain="
                + "ffffffffffffff80,ffffffff81001234,fffffffffffffe00,4011a0"), c.samples());
    }

    @Test
    void identifierIsFirstAndTellsWhichEventASampleBelongsTo() throws Exception {
        Attr clock = new Attr().sampleType(IDENTIFIER | IP | TID | TIME).ids(11, 12);
        Attr faults = new Attr().sampleType(IDENTIFIER | IP | TID | TIME).ids(21);
        faults.config = 2;
        Sample s1 = new Sample(2, 0x1000, 1, 1);
        s1.identifier = 12;
        Sample s2 = new Sample(2, 0x2000, 1, 2);
        s2.identifier = 21;
        PerfDataWriter w = new PerfDataWriter().attr(clock).attr(faults).sample(clock, s1).sample(faults, s2);
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        assertEquals(List.of("sample ev0 mode2 ip=0x1000 pid=1 t=1 cpu=0 period=100000",
                "sample ev1 mode2 ip=0x2000 pid=1 t=2 cpu=0 period=100000"), c.samples());
        assertEquals("page-faults", c.info.attrs.get(1).name, "generic names come from the event table resource");
    }

    @Test
    void aSampleWithAnIdNoEventListsIsDroppedAndCounted() throws Exception {
        Attr a = new Attr().sampleType(IDENTIFIER | IP | TID | TIME).ids(11);
        Attr b = new Attr().sampleType(IDENTIFIER | IP | TID | TIME).ids(12);
        Sample stray = new Sample(2, 0x1000, 1, 1);
        stray.identifier = 99;
        PerfDataWriter w = new PerfDataWriter().attr(a).attr(b).sample(a, stray);
        try (PerfDataReader r = PerfDataReader.open(w.writeFile(dir, "f.data"))) {
            Capture c = new Capture();
            r.read(c);
            assertEquals(List.of(), c.samples());
            assertEquals(1, r.samplesRead());
            assertEquals(1, r.samplesDropped());
            assertTrue(r.notes().get(0).contains("sample id 99"), r.notes().toString());
        }
    }

    @Test
    void eventsThatDisagreeWhereTheirSampleIdIsAreRefused() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | ID).ids(1);
        Attr b = new Attr().sampleType(IP | TIME | ID).ids(2);
        PerfDataWriter w = new PerfDataWriter().attr(a).attr(b);
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(w.writeFile(dir, "f.data")));
        assertTrue(e.getMessage().contains("places its sample id differently"), e.getMessage());
    }

    @Test
    void anEventWithSampleTypeBitsTheReaderDoesNotKnowHasItsSamplesDroppedAndNoted() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | (1L << 30));
        PerfDataWriter w = new PerfDataWriter().attr(a).sample(a, new Sample(2, 0x1000, 1, 1));
        try (PerfDataReader r = PerfDataReader.open(w.writeFile(dir, "f.data"))) {
            Capture c = new Capture();
            r.read(c);
            assertEquals(List.of(), c.samples());
            assertEquals(1, r.samplesDropped());
            assertTrue(r.notes().get(0).contains("sample_type bits 0x40000000"), r.notes().toString());
        }
    }

    /**
     * perf's ordered events: at each FINISHED_ROUND the queued records up to the newest time of the
     * round before go on, in time order; the others wait. So a later round's older record comes
     * first, and a record older than one already handed on is out of order (noted, as perf warns).
     */
    @Test
    void recordsAreHandedOnInPerfsOrderRoundsOverlappingInTime() throws Exception {
        PerfDataWriter w = oneEvent();
        w.sample(new Sample(2, 0x30, 1, 30)).sample(new Sample(2, 0x10, 1, 10)).mmap2(2, 1, 0x400000, 0x1000, 0,
                "/bin/x", 20).finishedRound();
        w.sample(new Sample(2, 0x05, 1, 5)).sample(new Sample(2, 0x40, 1, 40)).finishedRound();
        w.sample(new Sample(2, 0x50, 1, 50)).sample(new Sample(2, 0x45, 1, 45)).finishedRound();
        w.sample(new Sample(2, 0x07, 1, 7)).sample(new Sample(2, 0x60, 1, 60));
        Path f = w.writeFile(dir, "f.data");
        Capture c = Capture.of(f);
        assertEquals(List.of("header", "round",
                "sample ev0 mode2 ip=0x5 pid=1 t=5 cpu=0 period=100000",
                "sample ev0 mode2 ip=0x10 pid=1 t=10 cpu=0 period=100000", "mmap pid=1 /bin/x @0x400000",
                "sample ev0 mode2 ip=0x30 pid=1 t=30 cpu=0 period=100000", "round",
                "sample ev0 mode2 ip=0x40 pid=1 t=40 cpu=0 period=100000", "round",
                "sample ev0 mode2 ip=0x7 pid=1 t=7 cpu=0 period=100000",
                "sample ev0 mode2 ip=0x45 pid=1 t=45 cpu=0 period=100000",
                "sample ev0 mode2 ip=0x50 pid=1 t=50 cpu=0 period=100000",
                "sample ev0 mode2 ip=0x60 pid=1 t=60 cpu=0 period=100000"), c.lines);
        try (PerfDataReader r = PerfDataReader.open(f)) {
            r.read(new Capture());
            assertTrue(r.notes().stream().anyMatch(n -> n.contains("out of order")), r.notes().toString());
        }
    }

    /** perf's times are u64, and it hands a record of time 0 or 2^64-1 on at once, as one without a time. */
    @Test
    void timesAreUnsignedAndZeroOrAllOnesMeanNone() throws Exception {
        PerfDataWriter w = oneEvent();
        w.sample(new Sample(2, 0x30, 1, 30)).sample(new Sample(2, 0x80, 1, 0x8000000000000000L))
                .sample(new Sample(2, 0x00, 1, 0)).sample(new Sample(2, 0x10, 1, 10))
                .sample(new Sample(2, 0xff, 1, -1L));
        Capture c = Capture.of(w.writeFile(dir, "t.data"));
        assertEquals(List.of("header", "sample ev0 mode2 ip=0x0 pid=1 t=0 cpu=0 period=100000",
                "sample ev0 mode2 ip=0xff pid=1 t=-1 cpu=0 period=100000",
                "sample ev0 mode2 ip=0x10 pid=1 t=10 cpu=0 period=100000",
                "sample ev0 mode2 ip=0x30 pid=1 t=30 cpu=0 period=100000",
                "sample ev0 mode2 ip=0x80 pid=1 t=-9223372036854775808 cpu=0 period=100000"), c.lines);
    }

    /** Events without sample_id_all give side-band records no time: perf report then reads a file in its order. */
    @Test
    void aFileWhoseRecordsDoNotAllCarryTheirTimeIsReadInFileOrder() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr().flags(0));
        w.sample(new Sample(2, 0x30, 1, 30)).mmap2(2, 1, 0x400000, 0x1000, 0, "/bin/x", 20)
                .sample(new Sample(2, 0x10, 1, 10)).finishedRound();
        Capture c = Capture.of(w.writeFile(dir, "u.data"));
        assertEquals(List.of("header", "sample ev0 mode2 ip=0x30 pid=1 t=30 cpu=0 period=100000",
                "mmap pid=1 /bin/x @0x400000", "sample ev0 mode2 ip=0x10 pid=1 t=10 cpu=0 period=100000", "round"),
                c.lines);
    }

    /**
     * One round of 300 records, each pair of samples written newer first, with mappings among
     * them: a reader whose round may hold only 16 records (or 2 KB of a stream's bytes) hands on the
     * older half of the round again and again, and still hands on exactly what an unbounded reader
     * does, callchains and mappings included, since no record is older than what went before it.
     */
    @Test
    void aRoundLargerThanItsMemoryBoundIsHandedOnInHalvesWithNothingLostOrReordered() throws Exception {
        PerfDataWriter w = oneEvent();
        for (int t = 0; t < 300; t += 2) {
            w.sample(new Sample(2, 0x1000 + t + 1, 1, t + 1, 0x500000 + t + 1, USER, 0x400000 + t));
            w.sample(new Sample(2, 0x1000 + t, 1, t, KERNEL, 0xffffffff81000000L + t));
            if (t % 20 == 0) {
                w.mmap2(2, 1, 0x400000 + 0x1000 * t, 0x1000, 0, "/lib/l" + t + ".so", t + 2);
            }
        }
        w.finishedRound();
        Path file = w.writeFile(dir, "big-round.data");
        for (boolean stream : new boolean[] {false, true}) {
            Capture whole = readLimited(file, w, stream, Integer.MAX_VALUE);
            Capture halves = readLimited(file, w, stream, 16);
            // The records, whatever batch and round end they came with.
            whole.lines.removeIf("round"::equals);
            halves.lines.removeIf("round"::equals);
            assertEquals(whole.lines, halves.lines, stream ? "stream" : "mapped file");
            assertEquals(300 + 1 + 15, whole.lines.size());
            assertTrue(halves.batches > 5, "the round was handed on in " + halves.batches + " batches");
            assertTrue(whole.lines.get(1).contains(" t=0 ") && whole.lines.get(2).contains(" t=1 "), whole.lines.get(1));
        }
    }

    private static Capture readLimited(Path file, PerfDataWriter w, boolean stream, int records)
            throws PerfDataException {
        Capture c = new Capture();
        try (PerfDataReader r = stream ? PerfDataReader.open(new ByteArrayInputStream(w.pipe()), "<pipe>")
                : PerfDataReader.open(file)) {
            r.roundLimit(records, records == Integer.MAX_VALUE ? Integer.MAX_VALUE : 2048);
            r.read(c);
        }
        return c;
    }

    @Test
    void equalTimesKeepTheirFileOrder() throws Exception {
        PerfDataWriter w = oneEvent();
        for (int i = 0; i < 5; i++) {
            w.sample(new Sample(2, 0x100 + i, 1, 7));
        }
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        for (int i = 0; i < 5; i++) {
            assertTrue(c.samples().get(i).contains("ip=0x10" + i), c.samples().toString());
        }
    }

    @Test
    void recordsWithoutATimeAreHandedOnAsTheyAreRead() throws Exception {
        Attr a = new Attr().sampleType(IP | TID).flags(0);
        PerfDataWriter w = new PerfDataWriter().attr(a).sample(a, new Sample(2, 0x2, 1, 0)).comm(1, "x", 0)
                .sample(a, new Sample(2, 0x1, 1, 0));
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        assertEquals(List.of("header", "sample ev0 mode2 ip=0x2 pid=1 t=0 cpu=0 period=100000", "comm pid=1 x",
                "sample ev0 mode2 ip=0x1 pid=1 t=0 cpu=0 period=100000"), c.lines);
    }

    @Test
    void sideBandRecordsAreDecodedWithTheirSampleIdTrailer() throws Exception {
        PerfDataWriter w = oneEvent().comm(42, "gzip", 1).fork(43, 42, 2).mmap2(2, 43, 0x7f0000, 0x2000, 0x1000,
                "/usr/lib/libz.so.1", 3).exit(43, 4);
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        assertEquals(List.of("header", "comm pid=42 gzip", "fork 43<-42", "mmap pid=43 /usr/lib/libz.so.1 @0x7f0000",
                "exit 43"), c.lines);
    }

    @Test
    void anMmap2ThatCarriesABuildIdHandsItOn() throws Exception {
        PerfDataWriter w = oneEvent();
        byte[] n = "/bin/true\0\0\0\0\0\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(64 + n.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(5).putInt(5).putLong(0x400000).putLong(0x1000).putLong(0).put((byte) 3).put(new byte[3])
                .put(new byte[] {0x0a, 0x0b, 0x0c}).put(new byte[17]).putInt(5).putInt(2).put(n);
        w.add(10, 2 | (1 << 14), PerfDataWriter.concat(b.array(), w.trailer(w.attrs.get(0), 5, 1, 0)));
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        assertEquals("mmap pid=5 /bin/true @0x400000 build-id 0a0b0c", c.lines.get(1));
    }

    @Test
    void recordTypesTheReaderDoesNotActOnAreSkippedAndCountedByName() throws Exception {
        PerfDataWriter w = oneEvent().add(5, 0, new byte[24]).add(200, 0, new byte[8]).add(69, 0, new byte[8]);
        try (PerfDataReader r = PerfDataReader.open(w.writeFile(dir, "f.data"))) {
            r.read(new Capture());
            assertEquals(1L, r.counters().get("records.skipped.THROTTLE"));
            assertEquals(1L, r.counters().get("records.skipped.type200"));
            assertEquals(1L, r.counters().get("records.skipped.ID_INDEX"));
        }
    }

    @Test
    void lostAndLostSamplesRecordsAddToTheLostCount() throws Exception {
        PerfDataWriter w = oneEvent().lost(7);
        w.add(13, 0, PerfDataWriter.concat(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(5).array(),
                w.trailer(w.attrs.get(0), 0, 0, 0)));
        try (PerfDataReader r = PerfDataReader.open(w.writeFile(dir, "f.data"))) {
            r.read(new Capture());
            assertEquals(12, r.lost());
        }
    }

    @Test
    void theDataThatFollowsAnAuxtraceRecordOutsideItsSizeIsSkipped() throws Exception {
        PerfDataWriter w = oneEvent();
        ByteBuffer aux = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putLong(16);
        w.add(71, 0, aux.array()).raw(new byte[16]).sample(new Sample(2, 0x1234, 1, 1));
        Capture c = Capture.of(w.writeFile(dir, "f.data"));
        assertEquals(1, c.samples().size());
        assertTrue(c.samples().get(0).contains("ip=0x1234"));
    }

    @Test
    void aPipeRecordingLearnsItsEventsAndFeaturesFromHeaderRecords() throws Exception {
        PerfDataWriter w = oneEvent().hostname("pipehost");
        w.comm(3, "sh", 1).sample(new Sample(2, 0x42, 3, 2)).finishedRound();
        Capture c = Capture.ofPipe(w.pipe());
        assertEquals("pipehost", c.info.features.get("hostname"));
        assertTrue(c.info.pipe);
        assertEquals(List.of("header", "round", "comm pid=3 sh",
                "sample ev0 mode2 ip=0x42 pid=3 t=2 cpu=0 period=100000"), c.lines);
    }

    @Test
    void aPipeRecordingSavedToAFileIsReadAsAStream() throws Exception {
        PerfDataWriter w = oneEvent().sample(new Sample(2, 0x42, 3, 2));
        Capture c = Capture.of(w.writePipe(dir, "p.data"));
        assertTrue(c.info.pipe);
        assertEquals(1, c.samples().size());
    }

    @Test
    void aBigEndianRecordingReadsTheSameAsALittleEndianOne() throws Exception {
        PerfDataWriter w = new PerfDataWriter(ByteOrder.BIG_ENDIAN).attr(new Attr()).hostname("ppc");
        w.comm(9, "be", 1).sample(new Sample(2, 0x10000000L, 9, 2, USER, 0x10000000L, 0x10000123L));
        Capture c = Capture.of(w.writeFile(dir, "be.data"));
        assertTrue(c.info.bigEndian);
        assertEquals("ppc", c.info.features.get("hostname"));
        assertEquals(List.of("header", "comm pid=9 be", "sample ev0 mode2 ip=0x10000000 pid=9 t=2 cpu=0 "
                + "period=100000 chain=fffffffffffffe00,10000000,10000123"), c.lines);
        Capture p = Capture.ofPipe(w.pipe());
        assertEquals(c.lines, p.lines);
    }

    @Test
    void aCompressedRecordWithoutTheCompressedFeatureIsRefusedAtItsOffset() throws Exception {
        PerfDataWriter w = oneEvent().add(81, 0, new byte[16]);
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(w.writeFile(dir, "z.data")));
        assertEquals(104 + 144, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("does not give the COMPRESSED feature"), e.getMessage());
    }

    @Test
    void aStreamMustBeInPipeMode() throws Exception {
        byte[] file = oneEvent().file();
        PerfDataException e = assertThrows(PerfDataException.class,
                () -> PerfDataReader.open(new ByteArrayInputStream(file), "<stdin>"));
        assertTrue(e.getMessage().contains("a stream must be in pipe mode"), e.getMessage());
    }

    @Test
    void contextMarkersAreRecognisedAtOrAboveContextMax() {
        assertTrue(PerfFormat.isMarker(-4095L));
        assertTrue(PerfFormat.isMarker(-1L));
        assertTrue(PerfFormat.isMarker(PerfFormat.CONTEXT_GUEST_USER));
        assertFalse(PerfFormat.isMarker(-4096L));
        assertFalse(PerfFormat.isMarker(0xffffffff81000000L));
    }
}
