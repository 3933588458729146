package org.hyperprof.source.perf;

import java.util.Arrays;

import org.hyperprof.pipeline.AddressRanges;

/**
 * The symbol tree perf report (6.1, Debian 12's) builds for one ELF image, kept to answer what
 * perf prints where the image's symbols overlap.
 *
 * <p>perf keeps an image's symbols in a red-black tree ordered by start address (an equal start
 * goes right) and finds the symbol of an address by walking down from the root: left when the
 * address is below a node's start, right when it is at or past its end (a symbol with no size
 * covers its start only), else that node. Where symbols overlap, the answer is whichever the walk
 * meets first, so it depends on the tree's shape. They overlap around the procedure linkage
 * table: {@code dso__load_sym} inserts the symbol table's functions, data objects and labels,
 * stretches each one with no size to the next start ({@code symbols__fixup_end}), drops the
 * weaker of two symbols at one start ({@code symbols__fixup_duplicate}); only then are the PLT
 * stubs inserted, inside the range {@code _init} was stretched over. So the same shape is built
 * here, node by node, with the same balancing (the textbook red-black insertion and deletion,
 * which Linux's lib/rbtree.c implements), and every address of a stretch where symbols overlap is
 * looked up as perf looks it up.
 *
 * <p>Nodes live in primitive arrays; the tree is built once per image and dropped once its
 * {@link Overlaps} are known.
 */
final class PerfSymbolTree {

    static final int NIL = -1;
    private static final int LEFT = 0;
    private static final int RIGHT = 1;
    private static final int STB_GLOBAL = 1;
    private static final int STB_WEAK = 2;

    private long[] start = new long[64];
    private long[] end = new long[64];
    private byte[] binding = new byte[64];
    /** Name length in bytes, leading underscores, and whether it starts with "SyS"/"compat_SyS". */
    private int[] nameLength = new int[64];
    private byte[] underscores = new byte[64];
    private boolean[] sys = new boolean[64];
    /** What the node stands for, as the caller numbered it. */
    private int[] origin = new int[64];
    /** A node's two children: {@code child[2 * node + LEFT]}, {@code child[2 * node + RIGHT]}. */
    private int[] child = new int[128];
    private int[] parent = new int[64];
    private boolean[] red = new boolean[64];
    private int root = NIL;
    private int count;

    /**
     * Inserts a symbol as perf's {@code symbol__new} makes it ({@code end = start + size}, or
     * {@code start} for no size) and returns its node.
     */
    int insert(long symbolStart, long size, int symbolBinding, byte[] name, int nameFrom, int nameTo,
            int symbolOrigin) {
        int n = newNode(symbolStart, size, symbolBinding, symbolOrigin);
        int len = nameTo - nameFrom;
        nameLength[n] = len;
        int u = 0;
        while (u < len && name[nameFrom + u] == '_') {
            u++;
        }
        underscores[n] = (byte) Math.min(u, 127);
        sys[n] = startsWith(name, nameFrom, nameTo, "SyS") || startsWith(name, nameFrom, nameTo, "compat_SyS");
        link(n);
        return n;
    }

    /** {@link #insert(long, long, int, byte[], int, int, int)} for a name given as a string (PLT stubs). */
    int insert(long symbolStart, long size, int symbolBinding, String name, int symbolOrigin) {
        byte[] b = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return insert(symbolStart, size, symbolBinding, b, 0, b.length, symbolOrigin);
    }

    int size() {
        return count;
    }

    private static boolean startsWith(byte[] b, int from, int to, String prefix) {
        if (to - from < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (b[from + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private int newNode(long s, long size, int b, int o) {
        if (count == start.length) {
            int c = count * 2;
            start = Arrays.copyOf(start, c);
            end = Arrays.copyOf(end, c);
            binding = Arrays.copyOf(binding, c);
            nameLength = Arrays.copyOf(nameLength, c);
            underscores = Arrays.copyOf(underscores, c);
            sys = Arrays.copyOf(sys, c);
            origin = Arrays.copyOf(origin, c);
            child = Arrays.copyOf(child, 2 * c);
            parent = Arrays.copyOf(parent, c);
            red = Arrays.copyOf(red, c);
        }
        int n = count++;
        start[n] = s;
        end[n] = size != 0 ? s + size : s;
        binding[n] = (byte) b;
        origin[n] = o;
        kid(n, LEFT, NIL);
        kid(n, RIGHT, NIL);
        parent[n] = NIL;
        red[n] = true;
        return n;
    }

    // ---------------------------------------------------------------- red-black tree

    // Each case of the balancing has a mirror image: written once, for a side and its other.
    private int kid(int n, int side) {
        return child[2 * n + side];
    }

    private void kid(int n, int side, int k) {
        child[2 * n + side] = k;
    }

    /** The side of {@code p} that {@code n} hangs on (LEFT for a NIL {@code n} under a NIL left child). */
    private int sideOf(int n, int p) {
        return n == kid(p, LEFT) ? LEFT : RIGHT;
    }

    private void link(int n) {
        int p = NIL;
        int x = root;
        int side = RIGHT;
        while (x != NIL) {
            p = x;
            side = Long.compareUnsigned(start[n], start[x]) < 0 ? LEFT : RIGHT;
            x = kid(x, side);
        }
        parent[n] = p;
        if (p == NIL) {
            root = n;
        } else {
            kid(p, side, n);
        }
        insertFixup(n);
    }

    private void insertFixup(int z) {
        while (z != root && red[parent[z]]) {
            int p = parent[z];
            int g = parent[p];
            int side = sideOf(p, g);
            int other = 1 - side;
            int u = kid(g, other);
            if (u != NIL && red[u]) {
                red[p] = false;
                red[u] = false;
                red[g] = true;
                z = g;
                continue;
            }
            if (z == kid(p, other)) {
                z = p;
                rotate(z, side);
                p = parent[z];
            }
            red[p] = false;
            red[g] = true;
            rotate(g, other);
        }
        red[root] = false;
    }

    /** Rotates {@code x} down to its {@code side}: its child on the other side takes its place. */
    private void rotate(int x, int side) {
        int other = 1 - side;
        int y = kid(x, other);
        int inner = kid(y, side);
        kid(x, other, inner);
        if (inner != NIL) {
            parent[inner] = x;
        }
        replaceChild(x, y);
        kid(y, side, x);
        parent[x] = y;
    }

    /** Puts {@code y} where {@code x} hangs from its parent (or at the root). */
    private void replaceChild(int x, int y) {
        int p = parent[x];
        if (y != NIL) {
            parent[y] = p;
        }
        if (p == NIL) {
            root = y;
        } else {
            kid(p, sideOf(x, p), y);
        }
    }

    private void erase(int z) {
        int x;
        int xParent;
        boolean removedRed;
        if (kid(z, LEFT) == NIL || kid(z, RIGHT) == NIL) {
            x = kid(z, LEFT) != NIL ? kid(z, LEFT) : kid(z, RIGHT);
            xParent = parent[z];
            removedRed = red[z];
            replaceChild(z, x);
        } else {
            // The successor takes z's place and colour; its right child takes the successor's place.
            int y = leftmost(kid(z, RIGHT));
            removedRed = red[y];
            x = kid(y, RIGHT);
            if (parent[y] == z) {
                xParent = y;
            } else {
                xParent = parent[y];
                replaceChild(y, x);
                kid(y, RIGHT, kid(z, RIGHT));
                parent[kid(y, RIGHT)] = y;
            }
            replaceChild(z, y);
            kid(y, LEFT, kid(z, LEFT));
            parent[kid(y, LEFT)] = y;
            red[y] = red[z];
        }
        if (!removedRed) {
            eraseFixup(x, xParent);
        }
    }

    private boolean isRed(int n) {
        return n != NIL && red[n];
    }

    private void eraseFixup(int x, int p) {
        while (x != root && !isRed(x)) {
            int side = sideOf(x, p);
            int other = 1 - side;
            int w = kid(p, other);
            if (isRed(w)) {
                red[w] = false;
                red[p] = true;
                rotate(p, side);
                w = kid(p, other);
            }
            if (!isRed(kid(w, LEFT)) && !isRed(kid(w, RIGHT))) {
                red[w] = true;
                x = p;
                p = parent[x];
            } else {
                if (!isRed(kid(w, other))) {
                    red[kid(w, side)] = false;
                    red[w] = true;
                    rotate(w, other);
                    w = kid(p, other);
                }
                red[w] = red[p];
                red[p] = false;
                red[kid(w, other)] = false;
                rotate(p, side);
                x = root;
            }
        }
        if (x != NIL) {
            red[x] = false;
        }
    }

    private int first() {
        return root == NIL ? NIL : leftmost(root);
    }

    private int leftmost(int n) {
        while (kid(n, LEFT) != NIL) {
            n = kid(n, LEFT);
        }
        return n;
    }

    private int next(int n) {
        if (kid(n, RIGHT) != NIL) {
            return leftmost(kid(n, RIGHT));
        }
        int p = parent[n];
        while (p != NIL && n == kid(p, RIGHT)) {
            n = p;
            p = parent[p];
        }
        return p;
    }

    // ---------------------------------------------------------------- perf's passes

    /** {@code symbols__fixup_end} for an image's own symbols: each with no size reaches to the next start. */
    void fixupEnds() {
        int prev = first();
        if (prev == NIL) {
            return;
        }
        for (int n = next(prev); n != NIL; prev = n, n = next(n)) {
            if (end[prev] == start[prev]) {
                end[prev] = start[n];
            }
        }
        if (end[prev] == start[prev]) {
            end[prev] = ((start[prev] + 4095) & ~4095L) + 4096;
        }
    }

    /** {@code symbols__fixup_duplicate}: of symbols with one start, the better by perf's ranking stays. */
    void dropDuplicates() {
        int curr = first();
        while (curr != NIL) {
            int nx = next(curr);
            if (nx == NIL) {
                break;
            }
            if (start[curr] != start[nx]) {
                curr = nx;
                continue;
            }
            if (firstIsBetter(curr, nx)) {
                erase(nx);
            } else {
                int after = next(curr);
                erase(curr);
                curr = after;
            }
        }
    }

    /** perf's {@code choose_best_symbol}: true when {@code a} stays (of equals, one not named SyS...). */
    private boolean firstIsBetter(int a, int b) {
        int c = choose(end[a] - start[a], binding[a], underscores[a], nameLength[a], end[b] - start[b], binding[b],
                underscores[b], nameLength[b]);
        return c != 0 ? c > 0 : !sys[a];
    }

    /**
     * perf's {@code choose_best_symbol} between two symbols at one start, up to its last rule (the
     * SyS prefix): the one with a size, else the one not weak, else the global one, else the one
     * with fewer leading underscores, else the longer name. Positive when the first wins, negative
     * when the second does, 0 when nothing tells them apart.
     */
    static int choose(long sizeA, int bindingA, int underscoresA, int lengthA, long sizeB, int bindingB,
            int underscoresB, int lengthB) {
        if ((sizeA != 0) != (sizeB != 0)) {
            return sizeA != 0 ? 1 : -1;
        }
        if ((bindingA == STB_WEAK) != (bindingB == STB_WEAK)) {
            return bindingB == STB_WEAK ? 1 : -1;
        }
        if ((bindingA == STB_GLOBAL) != (bindingB == STB_GLOBAL)) {
            return bindingA == STB_GLOBAL ? 1 : -1;
        }
        if (underscoresA != underscoresB) {
            return underscoresA < underscoresB ? 1 : -1;
        }
        return Integer.compare(lengthA, lengthB);
    }

    /** perf's {@code symbols__find}: the node the walk from the root stops at for {@code ip}, or NIL. */
    int find(long ip) {
        int n = root;
        while (n != NIL) {
            if (Long.compareUnsigned(ip, start[n]) < 0) {
                n = kid(n, LEFT);
            } else if (Long.compareUnsigned(ip, end[n]) > 0 || (ip == end[n] && ip != start[n])) {
                n = kid(n, RIGHT);
            } else {
                return n;
            }
        }
        return NIL;
    }

    long start(int node) {
        return start[node];
    }

    int origin(int node) {
        return origin[node];
    }

    // ---------------------------------------------------------------- overlaps

    /**
     * The stretches where two or more symbols cover an address, cut where any of their bounds lies,
     * each with the node perf's walk finds there (NIL: none, perf prints the address); null when
     * no symbols overlap.
     */
    Overlaps overlaps() {
        int n = count;
        if (n < 2) {
            return null;
        }
        // Symbols in start order, each covering [start, coverEnd): no size covers its start only.
        int[] order = new int[n];
        int k = 0;
        for (int x = first(); x != NIL; x = next(x)) {
            order[k++] = x;
        }
        // A cluster of m symbols has at most 2m + 1 bounds, so at most 2m ranges.
        Overlaps out = new Overlaps(2 * n);
        int i = 0;
        while (i < k) {
            int a = order[i];
            long clusterEnd = coverEnd(a);
            int j = i + 1;
            while (j < k && Long.compareUnsigned(start[order[j]], clusterEnd) < 0) {
                long e = coverEnd(order[j]);
                if (Long.compareUnsigned(e, clusterEnd) > 0) {
                    clusterEnd = e;
                }
                j++;
            }
            if (j - i > 1) {
                cluster(order, i, j, clusterEnd, out);
            }
            i = j;
        }
        return out.count == 0 ? null : out.trim();
    }

    private long coverEnd(int x) {
        return end[x] == start[x] ? start[x] + 1 : end[x];
    }

    private void cluster(int[] order, int from, int to, long clusterEnd, Overlaps out) {
        long[] bounds = new long[2 * (to - from) + 1];
        int b = 0;
        for (int i = from; i < to; i++) {
            int x = order[i];
            bounds[b++] = start[x];
            bounds[b++] = coverEnd(x);
        }
        bounds[b++] = clusterEnd;
        long[] sorted = Arrays.copyOf(bounds, b);
        // Addresses are unsigned; the flip keeps signed order equal to unsigned order.
        for (int i = 0; i < b; i++) {
            sorted[i] ^= Long.MIN_VALUE;
        }
        Arrays.sort(sorted);
        long clusterStart = start[order[from]];
        long prev = Long.MIN_VALUE;
        boolean any = false;
        for (int i = 0; i < b; i++) {
            long v = sorted[i] ^ Long.MIN_VALUE;
            if (any && v == prev) {
                continue;
            }
            if (any && Long.compareUnsigned(prev, clusterStart) >= 0
                    && Long.compareUnsigned(v, clusterEnd) <= 0) {
                out.add(prev, v, find(prev));
            }
            prev = v;
            any = true;
        }
    }

    /**
     * Sorted, disjoint {@code [from, to)} ranges of one image and the tree node perf's lookup finds
     * in each (NIL for none); adjacent ranges with the same node are merged.
     */
    static final class Overlaps {
        long[] from;
        long[] to;
        int[] node;
        int count;

        /** With room for every range there can be. */
        Overlaps(int capacity) {
            from = new long[capacity];
            to = new long[capacity];
            node = new int[capacity];
        }

        void add(long f, long t, int n) {
            if (count > 0 && to[count - 1] == f && node[count - 1] == n) {
                to[count - 1] = t;
                return;
            }
            from[count] = f;
            to[count] = t;
            node[count] = n;
            count++;
        }

        Overlaps trim() {
            from = Arrays.copyOf(from, count);
            to = Arrays.copyOf(to, count);
            node = Arrays.copyOf(node, count);
            return this;
        }

        /** The range holding {@code address}, or -1. */
        int find(long address) {
            return AddressRanges.holding(from, to, count, address);
        }
    }
}
