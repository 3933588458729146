package org.hyperprof.api.symbols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** Lookup by address, and names made when first asked for. */
class SymbolTableTest {

    private static final long[] STARTS = {0x1000, 0x1100, 0x1200};
    private static final long[] SIZES = {0x80, 0x100, 0x10};

    @Test
    void anAddressFindsTheSymbolThatHoldsItAndAGapFindsNone() {
        SymbolTable t = new SymbolTable("x", STARTS, SIZES, new String[] {"a", "b", "c"}, new String[3]);
        assertEquals(0, t.lookup(0x1000));
        assertEquals(0, t.lookup(0x107f));
        assertEquals(-1, t.lookup(0x1080), "between a's end and b");
        assertEquals(1, t.lookup(0x11ff));
        assertEquals(-1, t.lookup(0xfff));
        assertEquals(-1, t.lookup(0x1210));
    }

    @Test
    void anAdoptingTableMakesEachNameOnlyWhenAskedAndThenKeepsIt() {
        AtomicInteger made = new AtomicInteger();
        String[] text = {"alpha", "beta", "gamma"};
        SymbolTable t = SymbolTable.adopting("x", STARTS.clone(), SIZES.clone(), i -> {
            made.incrementAndGet();
            return new String(text[i]);
        }, new String[3]);
        assertEquals(0, made.get(), "no name made before one is asked for");
        assertEquals(1, t.lookup(0x1150));
        assertEquals("beta", t.name(1));
        assertEquals("beta", t.name(1));
        assertEquals(1, made.get(), "a name is made once");
        assertEquals(2, t.indexOf("gamma"));
        assertEquals(-1, t.indexOf("delta"));
    }

    @Test
    void anAdoptingTableRefusesAddressesOutOfOrderNamingTheSymbol() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SymbolTable.adopting("x", new long[] {0x2000, 0x1000}, new long[] {1, 1},
                        i -> i == 0 ? "late" : "early", new String[2]));
        assertEquals("symbols of x are not strictly ascending at early (0x1000)", e.getMessage());
    }
}
