package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.testing.sample.TestBatches;
import org.junit.jupiter.api.Test;

class SampleRowsTest {
    private static final long MS = 1_000_000L;

    /** Counter 0 is the session's event 0, counter 1 its event 1; any other counter number is none (-1). */
    private static SampleRows rows() {
        int[] slots = new int[256];
        Arrays.fill(slots, -1);
        slots[0] = 0;
        slots[1] = 1;
        return new SampleRows(slots);
    }

    /** Counts a batch into the rows as the store does: taken into a chunk, the chunk folded in. */
    private static void add(SampleRows r, SampleBatch batch) {
        SampleChunk c = new SampleChunk(r);
        c.add(batch);
        r.fold(c);
    }

    /** Each row as "event domain vcpu cpu mode pid tid image symbol stack flags comm pc bucket : samples weight". */
    private static List<String> listed(SampleRows r) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < r.size(); i++) {
            StringBuilder b = new StringBuilder();
            for (int column = 0; column < SampleRows.INTS; column++) {
                b.append(r.column(i, column)).append(' ');
            }
            out.add(b.append(String.format("%x %d : %d %d", r.pc(i), r.bucket(i), r.count(i), r.weight(i))).toString());
        }
        return out;
    }

    @Test
    void samplesWithTheSameKeyAreOneRowWithTheirCountAndSummedWeight() {
        SampleRows r = rows();
        TestBatches b = new TestBatches(7);
        b.sample(0, 0, (byte) 1, 0, 0xc010, 3, 5, 100, 2 * MS, 1, 42, 43);
        b.sample(0, 0, (byte) 1, 0, 0xc010, 3, 5, 250, 9 * MS, 1, 42, 43);
        b.sample(0, 0, (byte) 1, 0, 0xc010, 3, 5, 100, 12 * MS, 1, 42, 43);
        b.sample(1, 0, (byte) 0, 1, 0x4000, 4, 6, 1, SampleBatch.UNKNOWN, SampleBatch.UNKNOWN, SampleBatch.UNKNOWN,
                SampleBatch.UNKNOWN);
        add(r, b.build());
        // 2 ms and 9 ms share the first 10 ms bucket; 12 ms is the second; no time is bucket -1.
        assertEquals(List.of("0 0 0 1 1 42 43 3 5 0 0 -1 c010 0 : 2 350", "0 0 0 1 1 42 43 3 5 0 0 -1 c010 1 : 1 100",
                "1 1 0 -1 0 -1 -1 4 6 0 0 -1 4000 -1 : 1 1"), listed(r));
        assertEquals(4, r.samples());
    }

    @Test
    void everyKeyColumnSeparatesRows() {
        SampleRows r = rows();
        TestBatches b = new TestBatches(7);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 1, 1);
        b.sample(1, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 1, 1);
        b.sample(0, 1, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 1, 1);
        b.sample(0, 0, (byte) 2, 0, 0x10, 1, 1, 1, 0, 0, 1, 1);
        b.sample(0, 0, (byte) 1, 1, 0x10, 1, 1, 1, 0, 0, 1, 1);
        b.sample(0, 0, (byte) 1, 0, 0x11, 1, 1, 1, 0, 0, 1, 1);
        b.sample(0, 0, (byte) 1, 0, 0x10, 2, 1, 1, 0, 0, 1, 1);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 2, 1, 0, 0, 1, 1);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 1, 1, 1);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 2, 1);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 1, 2);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 1, 1).flags(SampleBatch.MODE_UNKNOWN);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 1, 1).caller(0x20, 1, 3);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 10 * MS, 0, 1, 1);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1, 1, 0, 0, 1, 1);
        add(r, b.build());
        assertEquals(14, r.size());
        assertEquals(2, r.count(0));
        assertEquals(15, r.samples());
    }

    @Test
    void aCallChainIsNamedOnceAndItsFramesKeptInnermostFirst() {
        SampleRows r = rows();
        TestBatches b = new TestBatches(7);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1).caller(0x20, 1, 2).caller(0x30, 1, 3);
        b.sample(0, 0, (byte) 1, 0, 0x14, 1, 1).caller(0x20, 1, 2).caller(0x30, 1, 3);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1).caller(0x20, 1, 2);
        b.sample(0, 0, (byte) 1, 0, 0x10, 1, 1).caller(0x20, 1, 2).caller(0x30, 1, 3, (byte) SampleBatch.UNKNOWN);
        add(r, b.build());
        // A second batch reuses the names of the first: the table is the session's, not the batch's.
        TestBatches again = new TestBatches(7);
        again.sample(0, 0, (byte) 1, 0, 0x18, 1, 1).caller(0x20, 1, 2).caller(0x30, 1, 3);
        add(r, again.build());
        assertEquals(3, r.stacks().size());
        assertEquals(List.of(1, 1, 2, 3, 1), List.of(r.column(0, SampleRows.STACK), r.column(1, SampleRows.STACK),
                r.column(2, SampleRows.STACK), r.column(3, SampleRows.STACK), r.column(4, SampleRows.STACK)));
        // Each frame as "stack depth pc image symbol mode".
        List<String> frames = new ArrayList<>();
        r.stacks().forEachFrame((stack, depth, pc, image, symbol, mode) -> frames.add(
                String.format("%d %d %x %d %d %d", stack, depth, pc, image, symbol, mode)));
        assertEquals(List.of("1 0 20 1 2 1", "1 1 30 1 3 1", "2 0 20 1 2 1", "3 0 20 1 2 1", "3 1 30 1 3 -1"), frames);
    }

    @Test
    void manyDistinctKeysGrowTheRowsAndEveryOneIsFoundAgain() {
        SampleRows r = rows();
        for (int round = 0; round < 2; round++) {
            TestBatches b = new TestBatches(7);
            for (int i = 0; i < 5000; i++) {
                b.sample(i % 3, 0, (byte) 1, 0, 0x1000L + i, 1, i % 17).caller(0x2000L + i % 300, 1, 2);
            }
            add(r, b.build());
        }
        assertEquals(5000, r.size());
        assertEquals(300, r.stacks().size());
        for (int i = 0; i < r.size(); i++) {
            assertEquals(2, r.count(i));
        }
    }

    /**
     * Samples counted in several chunks (a checkpoint or a full chunk hands one to the writer) make
     * the rows, counts, weights and time span one chunk makes: a chunk is only where they wait.
     */
    @Test
    void samplesFoldedInSeveralChunksMakeTheRowsOneChunkMakes() {
        List<SampleBatch> batches = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            TestBatches b = new TestBatches(7);
            for (int i = 0; i < 700; i++) {
                b.sample(i % 2, i % 3, (byte) 1, 0, 0x1000L + i % 97, 1, i % 5, 10 + i, (k * 700L + i) * MS / 3, 1, 42,
                        43).caller(0x2000L + i % 7, 1, 2);
            }
            batches.add(b.build());
        }
        SampleRows once = rows();
        SampleChunk all = new SampleChunk(once);
        batches.forEach(all::add);
        once.fold(all);
        SampleRows inParts = rows();
        SampleChunk part = new SampleChunk(inParts);
        for (int k = 0; k < batches.size(); k++) {
            part.add(batches.get(k));
            if (k % 2 == 1) {
                inParts.fold(part);
                part = new SampleChunk(inParts);
            }
        }
        assertEquals(listed(once), listed(inParts));
        assertEquals(2800, inParts.samples());
        assertEquals(once.timeSpan(), inParts.timeSpan());
        assertEquals(2799 * MS / 3, inParts.timeSpan());
    }
}
