package org.hyperprof.report.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The index of a table whose entries live in its owner's arrays: every entry is found, also after it doubled. */
class EntrySlotsTest {

    /** A table of distinct longs, numbered in the order they came, as a report's table uses the index. */
    private static final class Longs {
        long[] values = new long[4];
        int size;
        final EntrySlots slots = new EntrySlots(2, e -> Hashing.mix(values[e]));

        int find(long value) {
            return find(slots, value);
        }

        int find(EntrySlots index, long value) {
            for (int slot = index.first(Hashing.mix(value)); ; slot = index.next(slot)) {
                int e = index.entry(slot);
                if (e == EntrySlots.FREE || values[e] == value) {
                    return e;
                }
            }
        }

        int intern(long value) {
            int found = find(value);
            if (found != EntrySlots.FREE) {
                return found;
            }
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size] = value;
            slots.add(size, Hashing.mix(value));
            return size++;
        }
    }

    @Test
    void everyEntryIsFoundUnderItsNumberAfterTheIndexDoubledManyTimes() {
        Longs table = new Longs();
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i, table.intern(i * 7919L - 5000));
        }
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i, table.find(i * 7919L - 5000));
        }
        assertEquals(EntrySlots.FREE, table.find(3));
    }

    @Test
    void aCopyKeepsTheEntriesItWasMadeWithAndNoLaterOnes() {
        Longs table = new Longs();
        table.intern(42);
        table.intern(43);
        EntrySlots copy = table.slots.copy(e -> Hashing.mix(table.values[e]));
        table.intern(44);
        assertEquals(1, table.find(copy, 43));
        assertEquals(EntrySlots.FREE, table.find(copy, 44));
        assertEquals(2, table.find(44));
    }

    @Test
    void slotsArePowersOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new EntrySlots(12, e -> e));
        assertThrows(IllegalArgumentException.class, () -> new EntrySlots(1, e -> e));
    }
}
