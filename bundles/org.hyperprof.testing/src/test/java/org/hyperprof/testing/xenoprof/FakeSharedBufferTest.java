package org.hyperprof.testing.xenoprof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The fake ring keeps Xen's producer rules, and counts and logs what a consumer does to it. */
class FakeSharedBufferTest {

    @Test
    void oneSlotStaysEmptyAndASampleFindingTheRingFullIsLostAndCounted() {
        FakeSharedBuffer b = new FakeSharedBuffer(1, 4);
        assertTrue(b.sample(0x10, 0, 1));
        assertTrue(b.sample(0x20, 1, 1));
        assertTrue(b.sample(0x30, 2, 1));
        assertFalse(b.sample(0x40, 2, 1));
        assertEquals(3, b.head());
        assertEquals(0, b.tail());
        assertEquals(List.of(1L, 1L, 1L, 1L), List.of(b.userSamples(), b.kernelSamples(), b.xenSamples(),
                b.lostSamples()));
    }

    @Test
    void copyWrapsAroundTheEndOfTheRingAndDiscardDropsWhatWasUnread() {
        FakeSharedBuffer b = new FakeSharedBuffer(0, 4);
        b.position(3);
        b.add(0x30, 1, 5);
        b.add(0x40, 2, 6);
        long[] eip = new long[2];
        byte[] mode = new byte[2];
        byte[] event = new byte[2];
        b.copy(3, 2, eip, mode, event, 0);
        assertArrayEquals(new long[] {0x30, 0x40}, eip);
        assertArrayEquals(new byte[] {1, 2}, mode);
        assertArrayEquals(new byte[] {5, 6}, event);
        assertEquals(2, b.discard());
        assertEquals(b.head(), b.tail());
    }

    @Test
    void aLoggingRingLogsEachIndexWriteUnsignedAndAPlainOneCountsTailWritesOnly() {
        FakeSharedBuffer logging = FakeSharedBuffer.logging(0, 16, 3);
        assertEquals(3, logging.head());
        assertEquals(3, logging.tail());
        logging.writeTail(-1);
        logging.writeHead(7);
        assertEquals(List.of("tail 4294967295", "head 7"), logging.writes());

        FakeSharedBuffer plain = new FakeSharedBuffer(0, 16);
        plain.writeTail(2);
        plain.head();
        assertEquals(1, plain.tailWrites);
        assertEquals(1, plain.headReads);
        assertThrows(IllegalStateException.class, plain::writes);
    }
}
