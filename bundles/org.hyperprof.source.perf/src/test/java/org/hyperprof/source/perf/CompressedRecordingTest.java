package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * perf record -z recordings, written here so that where the zstd stream's blocks, the
 * COMPRESSED records and the records inside are cut is fixed: the records inside read exactly as
 * the same records uncompressed, wherever they are cut; bad compressed data stops the read with
 * the file and the offset of its COMPRESSED record. (Real recordings made with perf record -z:
 * {@link AgreementWithPerfTest}.)
 */
class CompressedRecordingTest {

    @TempDir
    Path dir;

    /** Side-band records, rounds and samples with callchains of many lengths: records of many sizes. */
    private static PerfDataWriter recording() {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.comm(42, "gzip", 1).fork(43, 42, 2).mmap2(2, 43, 0x7f0000, 0x2000, 0x1000, "/usr/lib/libz.so.1", 3);
        for (int i = 0; i < 300; i++) {
            long[] chain = new long[1 + i % 23];
            for (int k = 0; k < chain.length; k++) {
                chain[k] = 0x7f0000 + 16L * (i + k);
            }
            // Times out of order inside a round: the reader's ordering must see them as perf's does.
            w.sample(new Sample(2, chain[0], 43, 10 + i + (i % 3 == 0 ? 2 : 0), chain));
            if (i % 50 == 49) {
                w.finishedRound();
            }
        }
        return w.exit(43, 1000);
    }

    @Test
    void recordsInsideCompressedRecordsReadAsTheSameRecordsUncompressedWhereverTheyAreCut() throws Exception {
        List<String> plain = Capture.of(recording().writeFile(dir, "plain.data")).lines;
        assertTrue(plain.size() > 300, plain.toString());
        int[][] cuts = {{65536, 60000}, {4096, 1000}, {100, 37}, {7, 5}, {1, 1}};
        for (int[] cut : cuts) {
            for (boolean type2 : new boolean[] {false, true}) {
                PerfDataWriter z = recording().compressed(cut[0], cut[1], type2);
                String what = "blocks of " + cut[0] + " bytes in COMPRESSED" + (type2 ? "2" : "") + " records of "
                        + cut[1];
                assertEquals(plain, Capture.of(z.writeFile(dir, "z.data")).lines, what);
                assertEquals(plain, Capture.ofPipe(z.pipe()).lines, what + ", pipe form");
            }
        }
    }

    @Test
    void recordsCutByACompressedRecordsEndAreCounted() throws Exception {
        try (PerfDataReader r = PerfDataReader.open(recording().compressed(4096, 1000, false).writeFile(dir,
                "z.data"))) {
            r.read(new Capture());
            assertTrue(r.counters().get("records.compressed.cut") > 0, r.counters().toString());
            assertEquals(300L, r.counters().get("records.SAMPLE"));
            assertTrue(r.notes().isEmpty(), r.notes().toString());
        }
    }

    /** Where each record of the file's data section starts. */
    private static List<Integer> recordOffsets(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int start = (int) b.getLong(40);
        int end = start + (int) b.getLong(48);
        List<Integer> at = new ArrayList<>();
        for (int p = start; p < end; p += Short.toUnsignedInt(b.getShort(p + 6))) {
            at.add(p);
        }
        return at;
    }

    @Test
    void aStreamThatIsNotZstdIsRefusedAtItsCompressedRecord() throws Exception {
        byte[] file = recording().compressed(4096, 1000, false).file();
        int first = recordOffsets(file).get(0);
        file[first + 8] ^= 0x40; // the frame's magic number
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(Files.write(dir.resolve("z.data"),
                file)));
        assertEquals(first, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("z.data") && e.getMessage().contains("COMPRESSED record")
                && e.getMessage().contains("cannot be decoded"), e.getMessage());
    }

    @Test
    void aBlockOfAReservedTypeIsRefusedAtTheCompressedRecordThatCompletesIt() throws Exception {
        // 1000-byte blocks, 1000 bytes to a COMPRESSED record: the second block's header is at byte 1009
        // of the stream (6 of frame header, 3 of block header, 1000 of block), the 9th of the second record's data.
        byte[] file = recording().compressed(1000, 1000, false).file();
        int second = recordOffsets(file).get(1);
        file[second + 8 + 9] |= 0x06; // block type 3: reserved
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(Files.write(dir.resolve("z.data"),
                file)));
        assertEquals(second, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("cannot be decoded"), e.getMessage());
    }

    @Test
    void aRecordOfLessThanItsHeaderInsideIsRefusedAtItsCompressedRecord() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.comm(42, "gzip", 1).raw(new byte[] {1, 0, 0, 0, 0, 0, 4, 0}).comm(43, "zcat", 2);
        byte[] file = w.compressed(4096, 1000, false).file();
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(Files.write(dir.resolve("z.data"),
                file)));
        assertEquals((long) recordOffsets(file).get(0), e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("decompressed from the COMPRESSED record at byte"), e.getMessage());
    }

    @Test
    void aCompressedRecordsDataSizeLargerThanItIsRefusedAtIt() throws Exception {
        byte[] file = recording().compressed(4096, 1000, true).file();
        int second = recordOffsets(file).get(1);
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putLong(second + 8, 5000);
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(Files.write(dir.resolve("z.data"),
                file)));
        assertEquals(second, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("data size is 5000"), e.getMessage());
    }

    @Test
    void compressedDataThatEndsInsideARecordIsNotedAndTheWholeRecordsBeforeAreRead() throws Exception {
        // The stream in COMPRESSED records of 777 bytes, the last one dropped: a sample is cut.
        PerfDataWriter w = recording().compressed(1000, 777, false);
        byte[] data = w.data.toByteArray();
        w.data.reset();
        w.data.write(data, 0, recordStarts(data).get(recordStarts(data).size() - 1));
        try (PerfDataReader r = PerfDataReader.open(w.writeFile(dir, "cut.data"))) {
            Capture c = new Capture();
            r.read(c);
            assertTrue(c.samples().size() > 250 && c.samples().size() < 300, c.samples().size() + " samples");
            assertTrue(r.notes().stream().anyMatch(n -> n.contains("the compressed records end inside a record")),
                    r.notes().toString());
        }
    }

    /** Where each record of a data section's bytes starts. */
    private static List<Integer> recordStarts(byte[] data) {
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        List<Integer> at = new ArrayList<>();
        for (int p = 0; p < data.length; p += Short.toUnsignedInt(b.getShort(p + 6))) {
            at.add(p);
        }
        return at;
    }

    @Test
    void aPieceThatDecompressesToMoreThanTheFeaturesMmapLenIsRefusedAsPerfRefusesIt() throws Exception {
        PerfDataWriter z = recording().compressed(4096, 3000, false);
        z.feature(FEATURE_COMPRESSED, ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN).putInt(1).putInt(1)
                .putInt(1).putInt(1).putInt(2048).array());
        byte[] file = z.file();
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(Files.write(dir.resolve("z.data"),
                file)));
        // The first piece holds most of the first 4096-byte block; the second completes it.
        assertEquals((long) recordOffsets(file).get(1), e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("more than the 2048 the COMPRESSED feature's mmap_len gives"),
                e.getMessage());
    }

    @Test
    void theCompressedFeatureIsRead() throws Exception {
        assertEquals("zstd, level 1, ratio 1", Capture.of(recording().compressed(4096, 1000, false).writeFile(dir,
                "z.data")).info.features.get("compressed"));
    }

    @Test
    void aStreamWithoutTheCompressedFeatureIsRefusedAtItsFirstCompressedRecord() throws Exception {
        PerfDataWriter z = recording().compressed(4096, 1000, false);
        z.features.remove(FEATURE_COMPRESSED);
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.ofPipe(z.pipe()));
        // After the 16-byte header and the HEADER_ATTR record (its header and a 128-byte attr).
        assertEquals(16 + 8 + 128, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("does not give the COMPRESSED feature"), e.getMessage());
    }

    @Test
    void aCompressedRecordInAFileWhoseHeaderDoesNotListTheFeatureIsRefused() throws Exception {
        PerfDataWriter z = recording().compressed(4096, 1000, false);
        z.features.remove(FEATURE_COMPRESSED);
        byte[] file = z.file();
        PerfDataException e = assertThrows(PerfDataException.class, () -> Capture.of(Files.write(dir.resolve("z.data"),
                file)));
        assertEquals((long) recordOffsets(file).get(0), e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("does not give the COMPRESSED feature"), e.getMessage());
    }
}
