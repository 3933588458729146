package org.hyperprof.report.opreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LongPairIdsTest {

    @Test
    void aPairKeepsTheIdItWasFirstGivenAndIdsAreDense() {
        LongPairIds ids = new LongPairIds(2, 100);
        assertEquals(0, ids.id(7, -1));
        assertEquals(1, ids.id(-1, 7), "the order of the pair matters");
        assertEquals(0, ids.id(7, -1));
        assertEquals(2, ids.size());
        assertEquals(-1, ids.first(1));
        assertEquals(7, ids.second(1));
    }

    @Test
    void growingKeepsEveryIdEvenForPairsThatDifferOnlyInTheirHighBits() {
        LongPairIds ids = new LongPairIds(2, 1 << 20);
        for (int i = 0; i < 5000; i++) {
            assertEquals(i, ids.id((long) i << 48, 0xffff800000000000L + ((long) i << 40)));
        }
        for (int i = 0; i < 5000; i++) {
            assertEquals(i, ids.id((long) i << 48, 0xffff800000000000L + ((long) i << 40)), "pair " + i);
        }
    }

    @Test
    void pastTheLimitANewPairGetsFullWhileKnownPairsKeepTheirIds() {
        LongPairIds ids = new LongPairIds(2, 2);
        ids.id(1, 1);
        assertFalse(ids.full());
        ids.id(2, 2);
        assertTrue(ids.full());
        assertEquals(LongPairIds.FULL, ids.id(3, 3));
        assertEquals(1, ids.id(2, 2));
        assertEquals(2, ids.size());
    }

    @Test
    void aCopyIsIndependentOfTheOriginal() {
        LongPairIds ids = new LongPairIds(2, 100);
        ids.id(5, 6);
        LongPairIds copy = ids.copy();
        ids.id(7, 8);
        assertEquals(1, copy.size());
        assertEquals(0, copy.id(5, 6));
        assertEquals(1, copy.id(9, 9), "the copy hands out its own next id");
        assertEquals(1, ids.id(7, 8));
    }

    @Test
    void aLimitBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LongPairIds(2, 0));
    }
}
