package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.hyperprof.api.symbols.SymbolTable;
import org.junit.jupiter.api.Test;

/** The memo of a table's lookups answers every address as the table's own lookup does. */
class SymbolMemoTest {

    @Test
    void answersAsTheTableDoesAcrossGapsOverlapsAndNeighboursInOneBlock() {
        // Symbols of 16 to 400 bytes, some reaching past the next one's start, some followed by a
        // gap, the last reaching the top of the address space.
        Random random = new Random(11);
        int n = 5_000;
        long[] starts = new long[n];
        long[] sizes = new long[n];
        String[] names = new String[n];
        long at = 0xffff_ffff_8100_0000L;
        for (int i = 0; i < n; i++) {
            starts[i] = at;
            sizes[i] = 16 + random.nextInt(400);
            names[i] = "f" + i;
            at += switch (i % 3) {
                case 0 -> sizes[i] / 2; // the next symbol starts inside this one
                case 1 -> sizes[i];
                default -> sizes[i] + 1 + random.nextInt(64); // a gap before the next
            };
        }
        sizes[n - 1] = -starts[n - 1]; // to the last address of all
        SymbolTable table = new SymbolTable("[kernel.kallsyms]", starts, sizes, names, new String[n]);
        SymbolMemo memo = new SymbolMemo(table);
        long span = at - starts[0];
        for (int k = 0; k < 400_000; k++) {
            // Addresses near the table, many of them met again or near one met before.
            long address = k % 2 == 0 ? starts[0] - 64 + (long) (random.nextDouble() * (span + 128))
                    : starts[random.nextInt(n)] + random.nextInt(512) - 8;
            assertEquals(table.lookup(address), memo.lookup(address), () -> "address 0x" + Long.toHexString(address));
        }
        assertEquals(table.lookup(-1L), memo.lookup(-1L), "the last address of all");
        assertEquals(n - 1, memo.lookup(-1L));
    }
}
