package org.hyperprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * Symbols are grouped by address in ascending unsigned order, symbols of one address in table
 * order (the first of equals wins perf's ties): the radix sort must give exactly what a stable
 * comparison sort gives, for an image's small addresses, a kernel's high ones, random 64-bit
 * values and many equal ones.
 */
class SymbolOrderTest {

    private static int[] stableSort(long[] addr, int n) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(addr[x], addr[y]));
        return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
    }

    @Test
    void symbolsAreOrderedByUnsignedAddressAndEqualAddressesKeepTableOrder() {
        Random random = new Random(20261122);
        for (int round = 0; round < 5000; round++) {
            int n = random.nextInt(400);
            long[] addr = new long[n + random.nextInt(3)]; // the arrays may be longer than the symbols
            int kind = round % 4;
            for (int i = 0; i < addr.length; i++) {
                addr[i] = switch (kind) {
                    case 0 -> 0x1000 + random.nextInt(0x200000);
                    case 1 -> 0xffffffff81000000L + ((long) random.nextInt(1 << 20) << 4);
                    case 2 -> random.nextLong();
                    default -> random.nextBoolean() ? -1L - random.nextInt(4) : random.nextInt(4);
                };
            }
            int[] expected = stableSort(addr, n);
            assertArrayEquals(expected, ElfSymbols.sortedByAddress(addr, n), "round " + round + " of kind " + kind);
        }
    }

    @Test
    void anOrderedTableIsKeptAsItIs() {
        long[] addr = {0x10, 0x10, 0x20, 0x30};
        assertArrayEquals(new int[] {0, 1, 2, 3}, ElfSymbols.sortedByAddress(addr, 4));
    }
}
