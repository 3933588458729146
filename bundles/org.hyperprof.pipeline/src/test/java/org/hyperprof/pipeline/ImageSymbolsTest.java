package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.symbols.SymbolTable;
import org.junit.jupiter.api.Test;

/** An address resolves to the symbol covering it, whatever the cache held before; each symbol is interned once. */
class ImageSymbolsTest {
    private final Dictionary dictionary = new Dictionary();
    private final int image = dictionary.addImage("app", ImageKind.USER, 0);
    private final SymbolTable table = new SymbolTable("app", new long[] {0x1000, 0x2000}, new long[] {0x100, 0x10},
            new String[] {"main", "work"}, new String[2]);
    private final ImageSymbols symbols = new ImageSymbols(dictionary, image, table);

    private String name(int id) {
        return dictionary.symbolName(id);
    }

    @Test
    void anAddressResolvesToTheSymbolCoveringIt() {
        assertEquals("main", name(symbols.symbol(0x1000)));
        assertEquals("main", name(symbols.symbol(0x10ff)));
        assertEquals("work", name(symbols.symbol(0x200f)));
        assertEquals(SessionDictionary.NO_SYMBOL, symbols.symbol(0x2010), "past work's end");
        assertEquals(SessionDictionary.NO_SYMBOL, symbols.symbol(0x0fff), "before main");
    }

    @Test
    void eachSymbolIsInternedOnceAndBelongsToTheImage() {
        int a = symbols.symbol(0x1004);
        int b = symbols.symbol(0x1008);
        assertEquals(a, b);
        assertEquals(1, dictionary.symbolCount());
        assertEquals(image, dictionary.symbolImage(a));
    }

    @Test
    void everyAddressMetKeepsItsAnswerAsTheTableOfAddressesGrows() {
        // 20,000 addresses, inside and outside the two symbols and above them: the table grows
        // several times, and each address still answers as the symbol table does.
        for (int round = 0; round < 2; round++) {
            for (long i = 0; i < 20_000; i++) {
                long address = (i % 3 == 0 ? 0x1000 : i % 3 == 1 ? 0x2000 : 0x3000) + (i % 0x200) + (i << 16);
                int expected = table.lookup(address) < 0 ? SessionDictionary.NO_SYMBOL
                        : symbols.symbol(table.start(table.lookup(address)));
                assertEquals(expected, symbols.symbol(address), "address 0x" + Long.toHexString(address));
            }
        }
        assertEquals(SessionDictionary.NO_SYMBOL, symbols.symbol(Long.MIN_VALUE), "the empty slot's mark is no address");
        assertEquals("main", name(symbols.symbol(0x1000)));
    }

    @Test
    void anAddressBeyondTheReachOfTheTableOfAddressesIsLookedUpEachTime() {
        // Slots hold offsets of up to 4 GiB from the first symbol; a symbol further away (a kernel
        // module far above the kernel) and addresses before the first still answer as the table does.
        SymbolTable far = new SymbolTable("far", new long[] {0x1000, 0x1_0000_2000L, 0xffff_ffff_c000_0000L},
                new long[] {0x100, 0x100, 0x100}, new String[] {"near", "beyond", "module"}, new String[3]);
        ImageSymbols farSymbols = new ImageSymbols(dictionary, image, far);
        for (int round = 0; round < 2; round++) {
            assertEquals("near", name(farSymbols.symbol(0x1010)));
            assertEquals("beyond", name(farSymbols.symbol(0x1_0000_2010L)));
            assertEquals("module", name(farSymbols.symbol(0xffff_ffff_c000_0010L)));
            assertEquals(SessionDictionary.NO_SYMBOL, farSymbols.symbol(0x0fff), "before the first symbol");
            assertEquals(SessionDictionary.NO_SYMBOL, farSymbols.symbol(0x1000 + 0xffff_ffffL), "the offset no slot holds");
        }
    }

    @Test
    void aRunOfAddressesResolvesAsEachAloneDoes() {
        // Met before and not, outside every symbol, beyond the table of addresses' reach.
        long[] addresses = {0x1004, 0x1004, 0x2008, 0x1800, 0x0fff, 0x1_0000_2000L, 0x10ff, 0x2010};
        int[] ids = new int[addresses.length + 2];
        symbols.symbol(0x10ff);
        symbols.symbols(addresses, 1, addresses.length - 1, ids, 2);
        for (int k = 1; k < addresses.length; k++) {
            assertEquals(symbols.symbol(addresses[k]), ids[k + 1], "address 0x" + Long.toHexString(addresses[k]));
        }
        assertEquals(0, ids[0] | ids[1], "nothing written before the run's place");
        assertEquals("work", name(ids[3]));
    }
}
