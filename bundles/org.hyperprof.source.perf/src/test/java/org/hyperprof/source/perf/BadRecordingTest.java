package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.pipeline.SymbolTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input: a truncated file, a record whose size lies, an unknown record type, a sample_type the
 * reader does not know. Each is a {@link PerfDataException} naming the file, the byte offset and
 * what was expected, or a counted skip; the books always balance.
 */
class BadRecordingTest {

    @TempDir
    Path dir;

    private static PerfDataWriter recording() {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        for (int i = 0; i < 10; i++) {
            w.sample(new Sample(2, 0x1000 + i, 1, i, -512L, 0x1000 + i, 0x2000));
        }
        return w;
    }

    private PerfImport.Result importBytes(byte[] bytes) throws Exception {
        Path f = Files.write(dir.resolve("r.data"), bytes);
        try (PerfDataReader r = PerfDataReader.open(f)) {
            return new PerfImport(new SymbolTables(), ImportOptions.defaults(), true).run(r, null, "perf.data",
                    null, false);
        }
    }

    private PerfDataException openFails(byte[] bytes) throws Exception {
        Path f = Files.write(dir.resolve("bad.data"), bytes);
        return assertThrows(PerfDataException.class, () -> PerfDataReader.open(f).close());
    }

    @Test
    void aFileCutShortOfItsDataSectionIsRefusedBeforeAnythingIsRead() throws Exception {
        byte[] whole = recording().file();
        PerfDataException e = openFails(Arrays.copyOf(whole, whole.length - 300));
        assertTrue(e.getMessage().contains("the file is truncated"), e.getMessage());
        assertEquals(40, e.offset(), "names the header's data section field");
        assertTrue(e.getMessage().contains("bad.data"), "names the file: " + e.getMessage());
    }

    @Test
    void aPipeCutInsideARecordStopsWithTheOffsetAndTheSamplesReadUntilThen() throws Exception {
        byte[] whole = recording().pipe();
        byte[] cut = Arrays.copyOf(whole, whole.length - 20);
        PerfImport.Result r = importBytes(cut);
        assertFalse(r.completed());
        PerfDataException e = r.failure();
        assertTrue(e.getMessage().contains("the recording is truncated"), e.getMessage());
        assertTrue(e.getMessage().contains("9 samples were read"), e.getMessage());
        assertTrue(e.offset() > 0 && e.offset() < cut.length, "offset " + e.offset());
        assertEquals(new Accounting(9, 9, 0, 0, 0), r.accounting(), "what was read before the cut is accounted");
        assertTrue(r.endReason().startsWith("stopped:"), r.endReason());
    }

    @Test
    void aRecordSizeBelowItsHeaderStopsTheReadAtThatRecord() throws Exception {
        PerfDataWriter w = recording();
        w.raw(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(9).putShort((short) 2).putShort((short) 4)
                .array());
        PerfImport.Result r = importBytes(w.file());
        assertFalse(r.completed());
        assertTrue(r.failure().getMessage().contains("says it is 4 bytes, less than its own 8-byte header"),
                r.failure().getMessage());
        assertTrue(r.accounting().balanced(), r.accounting().line());
    }

    @Test
    void aRecordSizeRunningPastTheDataIsTheTruncationItSignals() throws Exception {
        PerfDataWriter w = recording();
        w.raw(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(9).putShort((short) 2)
                .putShort((short) 4000).array());
        PerfImport.Result r = importBytes(w.file());
        assertTrue(r.failure().getMessage().contains("a SAMPLE record of 4000 bytes"), r.failure().getMessage());
        assertEquals(10, r.accounting().delivered());
    }

    @Test
    void aCallchainLongerThanItsRecordMakesThatSampleInvalidAndTheReadGoesOn() throws Exception {
        PerfDataWriter w = recording();
        Sample liar = new Sample(2, 0x1000, 1, 100, -512L, 0x1000);
        liar.chainNrOverride = 1000;
        w.sample(liar).sample(new Sample(2, 0x1000, 1, 101));
        PerfImport.Result r = importBytes(w.file());
        assertTrue(r.completed(), r.endReason());
        assertEquals(new Accounting(12, 11, 0, 0, 1), r.accounting());
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("a callchain of 1000 entries")), r.notes().toString());
    }

    @Test
    void anMmapWithoutANulTerminatedNameIsCountedInvalid() throws Exception {
        PerfDataWriter w = recording();
        ByteBuffer b = ByteBuffer.allocate(32 + 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(1).putInt(1).putLong(0x400000).putLong(0x1000).putLong(0).put("abcdefgh".getBytes());
        w.add(1, 2, b.array());
        PerfImport.Result r = importBytes(w.file());
        assertEquals(1L, r.counters().get("records.invalid"));
        assertTrue(r.accounting().balanced());
    }

    @Test
    void aRecordOfATypePerfDoesNotDefineIsACountedSkipAndANoteNamingItsTypeAndPlace() throws Exception {
        PerfDataWriter w = recording().add(4242, 0, new byte[16]);
        PerfImport.Result r = importBytes(w.file());
        assertTrue(r.completed());
        assertEquals(1L, r.counters().get("records.skipped.type4242"));
        assertEquals(10, r.accounting().delivered());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("type 4242 at byte")
                && n.contains("perf 6.1 does not define")), r.notes().toString());
    }

    /** Where the data section starts in a file {@link PerfDataWriter#file} wrote. */
    private static int dataOffset(byte[] file) {
        return (int) ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong(40);
    }

    /**
     * The case: one MMAP2 record whose size lies (65535 there). The reading lands inside a
     * later record and goes on from there: here it lands on a callchain entry whose bytes read as
     * a record of a type perf does not define, skips it and reads on, a thousand samples fewer.
     * That must not end as a clean import.
     */
    @Test
    void aMappingWhoseSizeLiesMakesTheRestMisreadAndTheImportSaysSo() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.comm(1, "p", 0).mmap2(2, 1, 0x400000, 0x10000, 0, "/bin/p", 0);
        // The chain's last entry reads as a record header: type 0x4242, size 8.
        long header = 0x4242L | (8L << 48);
        for (int i = 0; i < 1100; i++) {
            w.sample(new Sample(2, 0x400000 + i, 1, 10 + i, -512L, header));
        }
        byte[] b = w.file();
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int mmap2 = dataOffset(b) + Short.toUnsignedInt(bb.getShort(dataOffset(b) + 6));
        assertEquals(10, bb.getInt(mmap2), "the record after the COMM is the MMAP2");
        int size = Short.toUnsignedInt(bb.getShort(mmap2 + 6));
        int sample = Short.toUnsignedInt(bb.getShort(mmap2 + size + 6));
        bb.putShort(mmap2 + 6, (short) (size + 1000 * sample + sample - 8));
        PerfImport.Result r = importBytes(b);
        assertTrue(r.completed(), r.endReason());
        assertEquals(99, r.accounting().delivered());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("type 16962 at byte")
                && n.contains("corrupt from there on") && n.contains("99 SAMPLE records were read after")),
                r.notes().toString());
    }

    @Test
    void attrsAtOffsetZeroOverlapTheFileHeaderAndAreRefusedAsPerfRefusesThem() throws Exception {
        byte[] b = recording().file();
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(24, 0);
        PerfDataException e = openFails(b);
        assertEquals(24, e.offset(), "names the header's attrs field");
        assertTrue(e.getMessage().contains("inside the 104-byte file header"), e.getMessage());
    }

    @Test
    void anAttrWhoseSizeDisagreesWithTheHeadersAttrSizeIsRefused() throws Exception {
        byte[] b = recording().file();
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        bb.putInt((int) bb.getLong(24) + 4, 120);
        PerfDataException e = openFails(b);
        assertTrue(e.getMessage().contains("attr 0 says it is 120 bytes"), e.getMessage());
    }

    /**
     * What an interrupted perf record leaves: the header's data size still 0, its records to the
     * end of the file, no feature table. perf report refuses it; the import reads the records and
     * says why it read them so.
     */
    @Test
    void aRecordingWhoseDataSizeIsZeroIsReadToItsEndAndTheNotesSayPerfRefusesIt() throws Exception {
        PerfDataWriter w = recording().hostname("h");
        byte[] whole = w.file();
        int dataEnd = whole.length - 16 - w.string("h").length;
        byte[] b = Arrays.copyOf(whole, dataEnd);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(48, 0);
        PerfImport.Result r = importBytes(b);
        assertEquals(10, r.accounting().delivered());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("data size is 0")
                && n.contains("perf report refuses")), r.notes().toString());
    }

    @Test
    void aRecordingWhoseDataSizeIsZeroAndThatEndsThereIsRefusedWithWhatToDo() throws Exception {
        byte[] whole = recording().file();
        byte[] b = Arrays.copyOf(whole, dataOffset(whole));
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(48, 0);
        PerfDataException e = openFails(b);
        assertEquals(48, e.offset());
        assertTrue(e.getMessage().contains("holds no record") && e.getMessage().contains("record again"),
                e.getMessage());
    }

    @Test
    void aPipeRecordingHoldingOnlyItsHeaderStopsSayingSo() throws Exception {
        byte[] b = Arrays.copyOf(recording().pipe(), 16);
        PerfImport.Result r = importBytes(b);
        assertFalse(r.completed());
        assertEquals(16, r.failure().offset());
        assertTrue(r.failure().getMessage().contains("holds only its 16-byte header"), r.failure().getMessage());
    }

    @Test
    void anImportThatDeliversNothingSaysWhy() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr()).comm(1, "idle", 0);
        PerfImport.Result r = importBytes(w.file());
        assertTrue(r.completed());
        assertEquals(0, r.accounting().delivered());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("no sample was delivered")
                && n.contains("no SAMPLE record")), r.notes().toString());
    }

    @Test
    void aPipeFeatureRecordPerfStopsAtIsNoted() throws Exception {
        // CPU_TOPOLOGY that says it lists 1000 core strings in 8 bytes: perf's reader fails on it.
        PerfDataWriter w = recording().feature(13, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(1000).putInt(0).array());
        PerfImport.Result r = importBytes(w.pipe());
        assertEquals(10, r.accounting().delivered());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("feature CPU_TOPOLOGY")
                && n.contains("perf report stops")), r.notes().toString());
    }

    @Test
    void anIdIndexNamingAnIdNoEventListsIsNotedAsPerfRefusesIt() throws Exception {
        PerfDataWriter w = recording().add(69, 0, ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putLong(1)
                .putLong(777).putLong(0).putLong(0).putLong(1).array());
        PerfImport.Result r = importBytes(w.file());
        assertEquals(10, r.accounting().delivered());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("ID_INDEX") && n.contains("sample id 777")),
                r.notes().toString());
    }

    // ---------------------------------------------------------------- what is given as the recording

    /** Makes a named pipe with mkfifo, or returns null where there is none. */
    private Path fifo(String name) throws Exception {
        Path f = dir.resolve(name);
        try {
            Process p = new ProcessBuilder("mkfifo", f.toString()).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0 ? f : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    @Test
    void aNamedPipeIsRefusedWithoutWaitingForAWriter() throws Exception {
        Path f = fifo("recording.fifo");
        org.junit.jupiter.api.Assumptions.assumeTrue(f != null, "mkfifo is not installed");
        // A hang guard only: the refusal comes before anything is opened.
        PerfDataException e = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> assertThrows(PerfDataException.class, () -> PerfDataReader.open(f)));
        assertTrue(e.getMessage().contains("named pipe (FIFO)") && e.getMessage().contains("hp:record"),
                e.getMessage());
    }

    @Test
    void aDeviceAndADirectoryAreRefusedAsNotFiles() throws Exception {
        Path zero = Path.of("/dev/zero");
        if (Files.exists(zero)) {
            PerfDataException e = assertThrows(PerfDataException.class, () -> PerfDataReader.open(zero));
            assertTrue(e.getMessage().contains("is a character device"), e.getMessage());
        }
        PerfDataException e = assertThrows(PerfDataException.class, () -> PerfDataReader.open(dir));
        assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
    }

    /** A recording of {@code events} events each listing {@code ids} sample ids: a header of 8 bytes each. */
    private static PerfDataWriter manyIds(int events, int ids) {
        PerfDataWriter w = new PerfDataWriter();
        Attr first = null;
        for (int e = 0; e < events; e++) {
            long[] idList = new long[ids];
            for (int i = 0; i < ids; i++) {
                idList[i] = (long) e * ids + i + 1;
            }
            Attr a = new Attr().sampleType(PerfDataWriter.IDENTIFIER | PerfDataWriter.IP | PerfDataWriter.TID
                    | PerfDataWriter.TIME).ids(idList);
            w.attr(a);
            first = first == null ? a : first;
        }
        Sample s = new Sample(2, 0x1000, 1, 1);
        s.identifier = 1;
        return w.sample(first, s);
    }

    @Test
    void theHeaderHeldInMemoryIsBoundedAndTheBoundCanBeRaised() throws Exception {
        byte[] b = manyIds(1, 1 << 17).file(); // 1 MiB of ids
        Path f = Files.write(dir.resolve("ids.data"), b);
        PerfDataException e = assertThrows(PerfDataException.class, () -> PerfDataReader.open(f, 512 << 10));
        assertTrue(e.getMessage().contains("--max-header-mb"), e.getMessage());
        try (PerfDataReader r = PerfDataReader.open(f, 2 << 20)) {
            PerfImport.Result res = new PerfImport(new SymbolTables(), ImportOptions.defaults(), false).run(r,
                    null, "perf.data", null, false);
            assertEquals(1, res.accounting().delivered());
        }
        // A stream's header records count too.
        e = assertThrows(PerfDataException.class, () -> {
            // 16 HEADER_ATTR records of 56 KB (a record holds at most 64 KB)
            try (PerfDataReader r = PerfDataReader.open(new ByteArrayInputStream(manyIds(16, 7000).pipe()), "<pipe>",
                    512 << 10)) {
                r.read(new Capture());
            }
        });
        assertTrue(e.getMessage().contains("HEADER_ATTR") && e.getMessage().contains("--max-header-mb"),
                e.getMessage());
    }

    @Test
    void samplesOfAnEventWithAnUnknownSampleTypeAreDroppedAndTheBooksBalance() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | (1L << 40));
        PerfDataWriter w = new PerfDataWriter().attr(a).sample(a, new Sample(2, 1, 1, 1))
                .sample(a, new Sample(2, 2, 1, 2));
        PerfImport.Result r = importBytes(w.file());
        assertEquals(new Accounting(2, 0, 0, 2, 0), r.accounting());
        assertTrue(r.accounting().balanced());
    }

    // ---------------------------------------------------------------- the fields after the callchain

    /** A sample with a callchain and, after it, the u64s {@code after}. */
    private static Sample withAfterCallchain(long time, long... after) {
        Sample s = new Sample(2, 0x1000 + time, 1, time, -512L, 0x1000 + time, 0x2000);
        s.afterCallchain = after;
        return s;
    }

    private PerfImport.Result importSamples(Attr a, Sample... samples) throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(a).comm(1, "t", 0).mmap2(2, 1, 0x1000, 0x2000, 0, "/t", 0);
        for (Sample s : samples) {
            w.sample(a, s);
        }
        return importBytes(w.file());
    }

    @Test
    void aWeightTheSampleTypeAnnouncesButTheRecordLacksMakesTheSampleInvalidAndTheNoteNamesIt() throws Exception {
        // The campaign's case: a bit flipped in the attr sets WEIGHT, which perf checks the record for
        // and refuses the sample (Can't parse sample); the records end after their callchains.
        Attr a = new Attr().sampleType(IP | TID | TIME | CALLCHAIN | WEIGHT);
        PerfImport.Result r = importSamples(a, withAfterCallchain(1, 40), withAfterCallchain(2),
                withAfterCallchain(3, 41), withAfterCallchain(4));
        assertTrue(r.completed(), r.endReason());
        assertEquals(new Accounting(4, 2, 0, 0, 2), r.accounting());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("too short for its WEIGHT (8 bytes)")),
                r.recordingNotes().toString());
    }

    @Test
    void aBranchStackWhoseEntriesOverrunTheRecordMakesTheSampleInvalid() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | CALLCHAIN | BRANCH_STACK);
        PerfImport.Result r = importSamples(a, withAfterCallchain(1, 1, 0x10, 0x20, 0),
                withAfterCallchain(2, 1000, 0x10, 0x20, 0), withAfterCallchain(3, 0));
        assertEquals(new Accounting(3, 2, 0, 0, 1), r.accounting());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("too short for a branch stack of 1000"
                + " entries (24000 bytes)")), r.recordingNotes().toString());
    }

    @Test
    void aBranchStackOfAnEventAskingForItsHardwareIndexHoldsItBeforeTheEntries() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | CALLCHAIN | BRANCH_STACK);
        a.branchSampleType = BRANCH_HW_INDEX;
        PerfImport.Result r = importSamples(a, withAfterCallchain(1, 1, 7, 0x10, 0x20, 0),
                withAfterCallchain(2, 1, 0x10, 0x20, 0));
        assertEquals(new Accounting(2, 1, 0, 0, 1), r.accounting(), "the second lacks its hw_idx");
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("a branch stack of 1 entries and its hw_idx"
                + " (32 bytes)")), r.recordingNotes().toString());
    }

    @Test
    void aSampleHoldingEveryFieldItsSampleTypeAnnouncesIsCountedWithNoNoteButItsUserStacks() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | CALLCHAIN | RAW | BRANCH_STACK | REGS_USER | STACK_USER
                | WEIGHT | DATA_SRC | PHYS_ADDR | AUX);
        a.regsUser = 0b1011; // three registers
        long raw = 4 | 0xabcdL << 32; // a u32 size of 4, then the 4 bytes of data
        PerfImport.Result r = importSamples(a,
                withAfterCallchain(1, raw, 1, 0x10, 0x20, 0, 2, 11, 12, 13, 16, 0, 0, 8, 100, 0x81, 0x7000, 8, 0),
                // No registers (ABI NONE), no user stack (size 0, and then no dyn_size), no AUX data.
                withAfterCallchain(2, raw, 0, 0, 0, 100, 0x81, 0x7000, 0));
        assertTrue(r.completed(), r.endReason());
        assertEquals(new Accounting(2, 2, 0, 0, 0), r.accounting());
        // The first sample's 8 bytes of user stack in use are a stack the import does not unwind.
        assertEquals(1, r.recordingNotes().size(), r.recordingNotes().toString());
        assertTrue(r.recordingNotes().get(0).startsWith("1 user stack was not unwound"), r.recordingNotes().get(0));
        assertEquals(1L, r.counters().get("samples.user-stacks"));
    }

    @Test
    void aUserStackSayingMoreOfItIsInUseThanItHoldsIsInvalidAsPerfRefusesIt() throws Exception {
        Attr a = new Attr().sampleType(IP | TID | TIME | CALLCHAIN | STACK_USER);
        PerfImport.Result r = importSamples(a, withAfterCallchain(1, 8, 0, 8), withAfterCallchain(2, 8, 0, 9));
        assertEquals(new Accounting(2, 1, 0, 0, 1), r.accounting());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("a user stack of 8 bytes of which it says 9"
                + " are in use") && n.contains("perf report refuses it")), r.recordingNotes().toString());
    }

    @Test
    void aPhysicalAddressPastTheRecordIsReadOnByPerfSoTheSampleCountsWithANote() throws Exception {
        // perf reads PHYS_ADDR without checking that the record holds it; an AUX after it is checked.
        Attr phys = new Attr().sampleType(IP | TID | TIME | CALLCHAIN | PHYS_ADDR);
        PerfImport.Result r = importSamples(phys, withAfterCallchain(1, 0x7000), withAfterCallchain(2));
        assertEquals(new Accounting(2, 2, 0, 0, 0), r.accounting());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("ends before its PHYS_ADDR")),
                r.recordingNotes().toString());
        Attr physAux = new Attr().sampleType(IP | TID | TIME | CALLCHAIN | PHYS_ADDR | AUX);
        r = importSamples(physAux, withAfterCallchain(1, 0x7000, 0), withAfterCallchain(2));
        assertEquals(new Accounting(2, 1, 0, 0, 1), r.accounting());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("too short for its AUX size")),
                r.recordingNotes().toString());
    }

    @Test
    void notAPerfFileSaysWhatMagicWasExpected() throws Exception {
        PerfDataException e = openFails("this is not perf data at all".getBytes());
        assertTrue(e.getMessage().contains("expected the magic PERFILE2"), e.getMessage());
        assertEquals(0, e.offset());
    }

    @Test
    void theOldVersionOneFormatIsNamed() throws Exception {
        byte[] b = new byte[104];
        System.arraycopy("PERFFILE".getBytes(), 0, b, 0, 8);
        PerfDataException e = openFails(b);
        assertTrue(e.getMessage().contains("version-1"), e.getMessage());
    }

    @Test
    void anEmptyFileIsRefused() throws Exception {
        PerfDataException e = openFails(new byte[0]);
        assertTrue(e.getMessage().contains("less than the 16-byte perf.data header"), e.getMessage());
    }

    @Test
    void aHeaderSizeThatIsNeitherFileNorPipeIsRefused() throws Exception {
        byte[] b = recording().file();
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(8, 77);
        PerfDataException e = openFails(b);
        assertEquals(8, e.offset());
        assertTrue(e.getMessage().contains("header size 77"), e.getMessage());
    }

    @Test
    void anAttrsSectionOutsideTheFileIsRefused() throws Exception {
        byte[] b = recording().file();
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(24, 1L << 40);
        PerfDataException e = openFails(b);
        assertTrue(e.getMessage().contains("the attrs section"), e.getMessage());
    }

    @Test
    void aFeatureSectionOutsideTheFileIsANoteAndTheSamplesStillCount() throws Exception {
        PerfDataWriter w = recording().hostname("h");
        byte[] b = w.file();
        // The feature table follows the data; its one entry's offset is made to point past the end.
        int table = b.length - 16 - w.string("h").length;
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(table, 1L << 40);
        PerfImport.Result r = importBytes(b);
        assertTrue(r.completed());
        assertNull(r.machine().get("hostname"));
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("feature HOSTNAME")), r.notes().toString());
        assertEquals(10, r.accounting().delivered());
    }

    @Test
    void aRecordingWhoseHeaderWasNeverFinishedIsReadToTheEndOfTheFile() throws Exception {
        byte[] b = recording().file();
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(48, 0);
        PerfImport.Result r = importBytes(b);
        assertEquals(10, r.accounting().delivered());
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("did not end properly")), r.notes().toString());
    }

    @Test
    void aStreamThatEndsBeforeItsHeaderSaysSo() {
        PerfDataException e = assertThrows(PerfDataException.class,
                () -> PerfDataReader.open(new ByteArrayInputStream(new byte[5]), "perf record"));
        assertTrue(e.getMessage().contains("the stream ended after 5 bytes"), e.getMessage());
    }

    @Test
    void aMissingFileIsNamed() {
        PerfDataException e = assertThrows(PerfDataException.class,
                () -> PerfDataReader.open(dir.resolve("nope.data")));
        assertTrue(e.getMessage().contains("no such file"), e.getMessage());
    }
}
