package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.hyperprof.api.sample.Accounting;
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
            return new PerfImport(new SymbolResolvers(), ImportOptions.defaults(), true).run(r, null, "perf.data",
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
    void anUnknownRecordTypeIsACountedSkipNotAnError() throws Exception {
        PerfDataWriter w = recording().add(4242, 0, new byte[16]);
        PerfImport.Result r = importBytes(w.file());
        assertTrue(r.completed());
        assertEquals(1L, r.counters().get("records.skipped.type4242"));
        assertEquals(10, r.accounting().delivered());
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
