package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.XenoprofBuffer.ADDED;
import static org.hyperprof.hypervisor.xenoprof.XenoprofBuffer.CORRUPTED;
import static org.hyperprof.hypervisor.xenoprof.XenoprofBuffer.FULL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.xenoprof.SharedBuffer;
import org.junit.jupiter.api.Test;

/** The ring of one vCPU buffer: Xen's producer rules (section 4.3 of the facts). */
class XenoprofBufferTest {

    @Test
    void freshBufferIsEmptyAndZeroed() {
        XenoprofBuffer b = new XenoprofBuffer(1, 8);
        assertEquals(0, b.head());
        assertEquals(0, b.tail());
        assertEquals(8, b.size());
        assertEquals(1, b.vcpuId());
        assertEquals(7, b.freeSlots(), "one slot always stays empty");
        for (int slot = 0; slot < 8; slot++) {
            assertEquals(0, b.eip(slot));
            assertEquals(0, b.mode(slot));
            assertEquals(0, b.event(slot));
        }
        assertEquals(0, b.lostSamples() + b.userSamples() + b.kernelSamples() + b.xenSamples());
    }

    @Test
    void freeSpaceFollowsXensFormula() {
        // (tail > head ? 0 : size) + tail - head - 1
        assertEquals(7, XenoprofBuffer.space(0, 0, 8));
        assertEquals(4, XenoprofBuffer.space(3, 0, 8));
        assertEquals(0, XenoprofBuffer.space(7, 0, 8));
        assertEquals(1, XenoprofBuffer.space(5, 7, 8));
        assertEquals(0, XenoprofBuffer.space(6, 7, 8));
    }

    @Test
    void oneSampleIsWrittenAtHeadAndHeadAdvances() {
        XenoprofBuffer b = new XenoprofBuffer(0, 8);
        assertEquals(ADDED, b.add(0xc0101234L, 1, 0));
        assertEquals(1, b.head());
        assertEquals(0, b.tail());
        assertEquals(0xc0101234L, b.eip(0));
        assertEquals(1, b.mode(0));
        assertEquals(0, b.event(0));
    }

    @Test
    void sizeMinusOneSamplesFitAndTheNextFindsTheRingFull() {
        XenoprofBuffer b = new XenoprofBuffer(0, 8);
        for (int i = 0; i < 7; i++) {
            assertEquals(ADDED, b.add(0x1000 + i, 0, 0), "sample " + i);
        }
        assertEquals(7, b.head());
        assertEquals(0, b.freeSlots());
        assertEquals(FULL, b.add(0x2000, 0, 0));
        assertEquals(7, b.head(), "a full ring is not written");
        assertEquals(0x1006, b.eip(6), "old unread samples are never overwritten");
        assertEquals(0, b.eip(7));
    }

    @Test
    void tailWrittenByTheConsumerFreesSpace() {
        XenoprofBuffer b = new XenoprofBuffer(0, 4);
        for (int i = 0; i < 3; i++) {
            b.add(i, 0, 0);
        }
        assertEquals(FULL, b.add(99, 0, 0));
        b.writeTail(2);
        assertEquals(2, b.freeSlots());
        assertEquals(ADDED, b.add(3, 0, 0));
        assertEquals(0, b.head(), "head wraps to 0 at size");
        assertEquals(ADDED, b.add(4, 0, 0));
        assertEquals(1, b.head());
        assertEquals(FULL, b.add(5, 0, 0));
    }

    @Test
    void wrapAroundKeepsOrderForTheConsumer() {
        XenoprofBuffer b = new XenoprofBuffer(0, 4);
        b.add(10, 0, 0);
        b.add(11, 1, 1);
        b.add(12, 2, 0);
        b.writeTail(3); // consumer read 10, 11, 12
        b.add(13, 0, 1);
        b.add(14, 1, 0);
        assertEquals(1, b.head());
        long[] eip = new long[2];
        byte[] mode = new byte[2];
        byte[] event = new byte[2];
        b.copy(b.tail(), 2, eip, mode, event, 0);
        assertArrayEquals(new long[] {13, 14}, eip);
        assertArrayEquals(new byte[] {0, 1}, mode);
        assertArrayEquals(new byte[] {1, 0}, event);
    }

    @Test
    void copyRejectsASlotOutsideTheRing() {
        XenoprofBuffer b = new XenoprofBuffer(2, 4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.copy(4, 1, new long[1], new byte[1], new byte[1], 0));
        assertTrue(e.getMessage().contains("[0, 4)"), e.getMessage());
    }

    @Test
    void headOrTailOutOfRangeIsCorruptedAndNothingIsWritten() {
        int[][] badPairs = {{-1, 0}, {8, 0}, {0, -1}, {0, 8}, {Integer.MIN_VALUE, 3}, {2, 1000}};
        for (int[] p : badPairs) {
            XenoprofBuffer b = new XenoprofBuffer(0, 8);
            b.writeHead(p[0]);
            b.writeTail(p[1]);
            assertEquals(CORRUPTED, b.add(0xdead, 1, 0), "head " + p[0] + " tail " + p[1]);
            assertEquals(p[0], b.head(), "head untouched");
            for (int slot = 0; slot < 8; slot++) {
                assertEquals(0, b.eip(slot), "nothing written for head " + p[0] + " tail " + p[1]);
            }
            assertEquals(0, b.lostSamples(), "corrupted is not lost");
        }
    }

    @Test
    void zeroSlotRingTreatsEveryAddAsCorrupted() {
        // Xen accepts max_samples 0; head 0 is then not below size 0.
        XenoprofBuffer b = new XenoprofBuffer(0, 0);
        assertEquals(CORRUPTED, b.add(1, 0, 0));
    }

    @Test
    void oneSlotRingIsAlwaysFull() {
        XenoprofBuffer b = new XenoprofBuffer(0, 1);
        assertEquals(FULL, b.add(1, 0, 0));
    }

    @Test
    void perModeCountersAndLostCountAreSeparate() {
        XenoprofBuffer b = new XenoprofBuffer(0, 8);
        b.countSampleMode(0);
        b.countSampleMode(1);
        b.countSampleMode(1);
        b.countSampleMode(2);
        b.countLost();
        b.countTraceEntryLost();
        assertEquals(1, b.userSamples());
        assertEquals(2, b.kernelSamples());
        assertEquals(1, b.xenSamples());
        assertEquals(1, b.lostSamples());
        assertEquals(1, b.traceEntriesLost(), "a lost trace entry is not a lost sample");
    }

    @Test
    void resetIndicesEmptiesTheRing() {
        XenoprofBuffer b = new XenoprofBuffer(0, 8);
        b.add(1, 0, 0);
        b.add(2, 0, 0);
        b.writeTail(1);
        b.resetIndices();
        assertEquals(0, b.head());
        assertEquals(0, b.tail());
        assertEquals(7, b.freeSlots());
    }

    @Test
    void modeAndEventReadBackAsUnsignedBytes() {
        XenoprofBuffer b = new XenoprofBuffer(0, 4);
        b.add(SharedBuffer.ESCAPE_CODE, 2, 200);
        assertEquals(2, b.mode(0));
        assertEquals(200, b.event(0));
        assertEquals(-1L, b.eip(0));
    }

    @Test
    void maxSamplesClampFollowsTheThirtyTwoPageCap() {
        assertEquals(8189, XenoprofDomain.clampMaxSamples(100000, 1));
        assertEquals(2045, XenoprofDomain.clampMaxSamples(100000, 4));
        assertEquals(1021, XenoprofDomain.clampMaxSamples(100000, 8));
        assertEquals(16, XenoprofDomain.clampMaxSamples(16, 8), "small requests are kept");
        assertEquals(2045, XenoprofDomain.clampMaxSamples(-5, 4), "compared unsigned: negative means huge");
    }

    @Test
    void bufsizeIsHeaderWithOneEntryPlusTheOtherEntries() {
        assertEquals(304, XenoprofBuffer.bufferBytes(16), "the Linux driver's 16 samples take 304 bytes");
        assertEquals(64, XenoprofBuffer.bufferBytes(1));
        assertEquals(32 * 4096, XenoprofBuffer.bufferBytes(8189), "one vCPU's clamped buffer fills the 32 pages");
        assertEquals(32 * 4096 / 4, XenoprofBuffer.bufferBytes(2045), "four vCPUs each get a quarter");
    }
    @Test
    void aBlockIsWrittenWholeInOrderAcrossTheWrapAndHeadIsPublishedOnce() {
        XenoprofBuffer b = new XenoprofBuffer(0, 8);
        b.writeHead(5);
        b.writeTail(5);
        long[] block = {14, 0x7f00, 0x7f00, 0, 1, 2, 3};
        assertEquals(ADDED, b.addBlock(block, 7, 1, 0));
        assertEquals(4, b.head(), "5 + 7 wraps to 4");
        for (int i = 0; i < 7; i++) {
            int slot = (5 + i) % 8;
            assertEquals(block[i], b.eip(slot), "entry " + i);
            assertEquals(1, b.mode(slot));
            assertEquals(0, b.event(slot));
        }
    }

    @Test
    void aBlockLargerThanTheFreeSpaceWritesNothing() {
        XenoprofBuffer b = new XenoprofBuffer(0, 8);
        b.add(0x1000, 0, 0);
        b.add(0x1001, 0, 0); // 5 free
        assertEquals(FULL, b.addBlock(new long[] {13, 1, 2, 3, 4, 5}, 6, 0, 0));
        assertEquals(2, b.head());
        assertEquals(0, b.eip(2));
        assertEquals(ADDED, b.addBlock(new long[] {13, 1, 2, 3, 4}, 5, 0, 0), "exactly the free space fits");
        assertEquals(0, b.freeSlots());
    }

    @Test
    void aBlockThroughCorruptedIndicesWritesNothing() {
        XenoprofBuffer b = new XenoprofBuffer(0, 8);
        b.writeTail(9);
        assertEquals(CORRUPTED, b.addBlock(new long[] {14, 1}, 2, 0, 0));
        assertEquals(0, b.head());
        assertEquals(0, b.eip(0));
    }
}
