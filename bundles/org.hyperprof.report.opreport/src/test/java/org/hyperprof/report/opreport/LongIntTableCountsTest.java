package org.hyperprof.report.opreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;

import org.hyperprof.report.kit.LongIntTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The kit's table as opreport counts in it: packed (context, counter, id) keys. */
class LongIntTableCountsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"a key never added counts zero and adds accumulate, 42", "key zero is an ordinary key, 0"})
    void aKeyNeverAddedCountsZeroAndAddsAccumulate(String rule, long key) {
        LongIntTable counts = new LongIntTable(4);
        assertEquals(0, counts.get(key, 0));
        counts.add(key, 1);
        counts.add(key, 2);
        assertEquals(3, counts.get(key, 0));
        assertEquals(1, counts.size());
    }

    @Test
    void growingKeepsEveryCountEvenForKeysThatDifferOnlyInTheirHighBits() {
        LongIntTable counts = new LongIntTable(2);
        for (int domain = 0; domain < 3000; domain++) {
            long key = SessionAggregate.key(domain, domain % 4, 7);
            counts.add(key, domain + 1);
            counts.add(key, 1);
        }
        assertEquals(3000, counts.size());
        for (int domain = 0; domain < 3000; domain++) {
            assertEquals(domain + 2, counts.get(SessionAggregate.key(domain, domain % 4, 7), 0), "domain " + domain);
        }
    }

    @Test
    void forEachVisitsEveryKeyOnceWithItsCount() {
        LongIntTable counts = new LongIntTable(4);
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
        LongIntTable counts = new LongIntTable(4);
        counts.add(1, 1);
        LongIntTable copy = counts.copy();
        counts.add(1, 1);
        counts.add(2, 1);
        assertEquals(1, copy.get(1, 0));
        assertEquals(0, copy.get(2, 0));
        assertEquals(1, copy.size());
    }

    @Test
    void negativeKeysAreRefusedBecauseTheyMarkFreeSlots() {
        LongIntTable counts = new LongIntTable(4);
        assertThrows(IllegalArgumentException.class, () -> counts.add(-1, 1));
    }
}
