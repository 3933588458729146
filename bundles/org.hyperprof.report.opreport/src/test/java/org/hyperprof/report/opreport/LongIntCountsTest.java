package org.hyperprof.report.opreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class LongIntCountsTest {

    @Test
    void aKeyNeverAddedCountsZeroAndAddsAccumulate() {
        LongIntCounts counts = new LongIntCounts(4);
        assertEquals(0, counts.get(42));
        counts.add(42, 1);
        counts.add(42, 2);
        assertEquals(3, counts.get(42));
        assertEquals(1, counts.size());
    }

    @Test
    void keyZeroIsAnOrdinaryKey() {
        LongIntCounts counts = new LongIntCounts(4);
        counts.add(0, 5);
        assertEquals(5, counts.get(0));
        assertEquals(1, counts.size());
    }

    @Test
    void growingKeepsEveryCountEvenForKeysThatDifferOnlyInTheirHighBits() {
        LongIntCounts counts = new LongIntCounts(2);
        for (int domain = 0; domain < 3000; domain++) {
            long key = SessionAggregate.key(domain, domain % 4, 7);
            counts.add(key, domain + 1);
            counts.add(key, 1);
        }
        assertEquals(3000, counts.size());
        for (int domain = 0; domain < 3000; domain++) {
            assertEquals(domain + 2, counts.get(SessionAggregate.key(domain, domain % 4, 7)), "domain " + domain);
        }
    }

    @Test
    void forEachVisitsEveryKeyOnceWithItsCount() {
        LongIntCounts counts = new LongIntCounts(4);
        for (long k = 0; k < 100; k++) {
            counts.add(k * 1_000_003L, (int) k);
        }
        Map<Long, Integer> seen = new HashMap<>();
        counts.forEach((key, count) -> assertEquals(null, seen.put(key, count), "visited twice: " + key));
        assertEquals(100, seen.size());
        for (long k = 0; k < 100; k++) {
            assertEquals((int) k, seen.get(k * 1_000_003L));
        }
    }

    @Test
    void aCopyDoesNotSeeLaterAdds() {
        LongIntCounts counts = new LongIntCounts(4);
        counts.add(1, 1);
        LongIntCounts copy = counts.copy();
        counts.add(1, 1);
        counts.add(2, 1);
        assertEquals(1, copy.get(1));
        assertEquals(0, copy.get(2));
        assertEquals(1, copy.size());
    }

    @Test
    void negativeKeysAreRefusedBecauseTheyMarkFreeSlots() {
        LongIntCounts counts = new LongIntCounts(4);
        assertThrows(IllegalArgumentException.class, () -> counts.add(-1, 1));
    }
}
