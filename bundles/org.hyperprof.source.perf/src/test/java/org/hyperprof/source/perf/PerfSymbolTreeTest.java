package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/** perf's symbol tree: its lookups, its duplicate rule, and the answers its shape gives where symbols overlap. */
class PerfSymbolTreeTest {

    private static final int GLOBAL = 1;
    private static final int WEAK = 2;
    private static final int LOCAL = 0;

    @Test
    void whereNoSymbolsOverlapALookupFindsTheSymbolCoveringTheAddress() {
        Random random = new Random(7);
        PerfSymbolTree tree = new PerfSymbolTree();
        TreeMap<Long, long[]> truth = new TreeMap<>();
        long at = 0x1000;
        for (int i = 0; i < 5000; i++) {
            at += 1 + random.nextInt(64);
            long size = 1 + random.nextInt(48);
            tree.insert(at, size, GLOBAL, "f" + i, i);
            truth.put(at, new long[] {at + size, i});
            at += size;
        }
        for (int k = 0; k < 20000; k++) {
            long ip = 0x1000 + random.nextInt((int) (at - 0x1000 + 100));
            var e = truth.floorEntry(ip);
            int expected = e != null && ip < e.getValue()[0] ? (int) e.getValue()[1] : -1;
            int node = tree.find(ip);
            assertEquals(expected, node == PerfSymbolTree.NIL ? -1 : tree.origin(node), () -> "at " + ip);
        }
        assertNull(tree.overlaps(), "nothing overlaps");
    }

    @Test
    void ofSymbolsAtOneStartTheOneWithBytesThenNonWeakThenGlobalThenFewerUnderscoresThenLongerStays() {
        PerfSymbolTree tree = new PerfSymbolTree();
        tree.insert(0x100, 0, GLOBAL, "unsized", 1);
        tree.insert(0x100, 8, LOCAL, "sized", 2);
        tree.insert(0x200, 8, WEAK, "weak", 3);
        tree.insert(0x200, 8, LOCAL, "local", 4);
        tree.insert(0x300, 8, LOCAL, "local", 5);
        tree.insert(0x300, 8, GLOBAL, "global", 6);
        tree.insert(0x400, 8, GLOBAL, "__two", 7);
        tree.insert(0x400, 8, GLOBAL, "_one", 8);
        tree.insert(0x500, 8, GLOBAL, "short", 9);
        tree.insert(0x500, 8, GLOBAL, "longer", 10);
        tree.insert(0x600, 8, GLOBAL, "SyS_x", 11);
        tree.insert(0x600, 8, GLOBAL, "sys_x", 12);
        tree.insert(0x700, 8, GLOBAL, "first", 13);
        tree.insert(0x700, 8, GLOBAL, "other", 14);
        tree.fixupEnds();
        tree.dropDuplicates();
        int[] expected = {2, 4, 6, 8, 10, 12, 13};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], tree.origin(tree.find(0x100L * (i + 1) + 4)));
        }
    }

    /**
     * {@code _init} has no size, so perf stretches it up to {@code _start} before it adds the PLT
     * stubs inside that stretch; then the walk from the root decides. Inserted after {@code _start}
     * and {@code _init}, the first stub becomes the root (two rotations): its own bytes are its,
     * the PLT header below it is {@code _init}'s, and past it the walk turns right, then left at
     * {@code _start}, and finds nothing, though {@code _init} covers the address.
     */
    @Test
    void whereAStubLiesInsideAStretchedSymbolTheTreeShapeDecides() {
        PerfSymbolTree tree = new PerfSymbolTree();
        tree.insert(0x10b0, 0x26, GLOBAL, "_start", 1);
        tree.insert(0x1000, 0, GLOBAL, "_init", 0);
        tree.fixupEnds();
        tree.dropDuplicates();
        tree.insert(0x1030, 16, GLOBAL, "strlen@plt", -2);
        assertEquals(-2, tree.origin(tree.find(0x1036)));
        assertEquals(0, tree.origin(tree.find(0x1020)), "the PLT header");
        assertEquals(PerfSymbolTree.NIL, tree.find(0x10a0), "_init covers it; the walk misses it");
        PerfSymbolTree.Overlaps o = tree.overlaps();
        assertEquals(0x1000, o.from[0]);
        assertEquals(0x10b0, o.to[o.count - 1], "the stretch ends where _init does");
        assertEquals(PerfSymbolTree.NIL, o.node[o.find(0x10a4)]);
        assertEquals(0, tree.origin(o.node[o.find(0x1000)]));
    }

    /** With {@code _init} at the root, every stub inside its stretch is {@code _init} for perf. */
    @Test
    void aStretchedSymbolAtTheRootHidesTheStubsInsideIt() {
        PerfSymbolTree tree = new PerfSymbolTree();
        tree.insert(0x800, 0x10, GLOBAL, "before", 2);
        tree.insert(0x1000, 0, GLOBAL, "_init", 0);
        tree.insert(0x10b0, 0x26, GLOBAL, "_start", 1);
        tree.fixupEnds();
        tree.dropDuplicates();
        tree.insert(0x1030, 16, GLOBAL, "strlen@plt", -2);
        tree.insert(0x1040, 16, GLOBAL, "memset@plt", -3);
        assertEquals(0, tree.origin(tree.find(0x1036)));
        assertEquals(0, tree.origin(tree.find(0x1046)));
        assertEquals(1, tree.origin(tree.find(0x10b0)));
    }
}
