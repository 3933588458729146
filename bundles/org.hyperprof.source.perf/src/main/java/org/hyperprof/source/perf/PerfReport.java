package org.hyperprof.source.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * perf report's two views of a recording, built from the batches as they come, in memory bounded
 * by the distinct frames and stacks (never by the number of samples):
 * <ul>
 * <li>the flat profile ({@code perf report --no-children --sort dso,sym}): each sample counted once,
 * for the image and symbol of its own address;</li>
 * <li>the call graph: per frame its <i>children</i> total ({@code perf report --children}: the
 * samples whose stack holds the frame, each sample counted once for it however often the frame
 * recurs), and the tree of stacks below each sampled frame, callers after callees.</li>
 * </ul>
 * A frame is a symbol, or for an address with no symbol the dictionary's address symbol of its image
 * and address, as perf keys {@code [unknown]} rows: the image-relative address for a sample's own
 * frame (the batch's {@code symbol}), the run-time address for a callchain entry (its
 * {@code chainSymbol}; so that perf's children view counts a sample whose chain began with its own
 * address, {@link SampleBatch#CHAIN_FROM_PC}, under both). Percentages are of the period, as perf's
 * Overhead column.
 *
 * <p>It reads nothing but a batch's columns and the session's dictionary, as any consumer does, and
 * is bound to the pipeline as any consumer is, by its service properties ({@link #properties()}):
 * the import binds it to a dispatcher of its own and hands each batch there before the session's
 * other consumers get it, so they all see exactly the samples it counts, and its books (received +
 * missed = delivered) are a consumer's. A level letter comes from a frame's mode and whether its
 * domain is a guest (the sample's {@code domain}, a caller's image's domain).
 */
public final class PerfReport implements SampleConsumer {

    /** The report's {@value SampleConsumer#NAME}. */
    static final String NAME = "perf report";

    /**
     * A row of a report: one frame's totals. {@code level} is its letter in the children view (fixed
     * by its first sight as a sample's own frame or a callchain's), {@code selfLevel} in the flat one
     * ({@code --no-children}: by its first sight as a sample's own frame); they differ only for a
     * frame without a mapping met in two contexts, an address 0 say.
     */
    public record Row(int frame, String image, char level, char selfLevel, String symbol, long samples, long period,
            long childrenSamples, long childrenPeriod) {
    }

    private static final int ROOT = 0;
    private static final int PATH_CACHE = 256;

    private final SessionDictionary dictionary;
    private final boolean callGraph;
    /** By image id: whether the image is a guest's (level letters [g] and [u]). */
    private boolean[] guestImage = new boolean[0];
    /** By image id: whether no mapping covers its addresses (perf then keeps the letter before). */
    private boolean[] unmappedImage = new boolean[0];
    private int imagesKnown;

    private long samples;
    private long period;

    // Per frame, eight longs side by side (one cache line): self samples and period, children
    // samples and period, the last sample counted in the children (a stamp), the level letter.
    private static final int STRIDE = 8;
    private static final int SELF = 0;
    private static final int SELF_PERIOD = 1;
    private static final int CHILDREN = 2;
    private static final int CHILDREN_PERIOD = 3;
    private static final int STAMP = 4;
    private static final int LEVEL = 5;
    /** The frame's node right under the root, plus one (0: none yet): the tree's first level, by frame. */
    private static final int ROOT_NODE = 6;
    /** The level letter of the frame's first sight as a sample's own (the flat view's). */
    private static final int SELF_LEVEL = 7;
    /** By symbol id. */
    private long[] sym = new long[1024 * STRIDE];
    /** By address symbol index ({@link SessionDictionary#addressIndex}). */
    private long[] unk = new long[1024 * STRIDE];

    // The stack tree: node 0 is the root; a node is (parent, frame), callers below callees. The
    // first child of a node is kept by the node, the others by (parent, frame) in the edge map. A
    // sample's period is added to its stack's last node only: a node's total, its own and its
    // subtree's, is summed when the tree is printed (treeTotals), so a sample costs one add, not
    // one per frame of its stack.
    private final LongIntMap edges = new LongIntMap(4096);
    private int nodeCount = 1;
    private int[] nodeParent = new int[4096];
    private int[] nodeFrame = new int[4096];
    /** By node, the period of the samples whose stack ends there. */
    private long[] nodeSelf = new long[4096];
    /**
     * By node, the child last looked up below it: below the first level most nodes have one
     * caller, or one that repeats, so most lookups end here instead of in {@link #edges}.
     */
    private int[] nodeHint = new int[4096];
    /** By node, its first child; the sign bit set once it has others (which {@link #edges} keeps). */
    private int[] nodeFirst = new int[4096];

    // Recently seen stacks (frame keys) and their tree paths: hot loops repeat the same stack, and
    // a repeat walks the stored path instead of looking up each edge.
    private final int[][] pathFrames = new int[PATH_CACHE][];
    private final int[] pathLeaf = new int[PATH_CACHE];
    private final int[] pathLength = new int[PATH_CACHE];
    private int[] stack = new int[256];

    private long serial;

    /**
     * @param dictionary the session's, whose symbols and address symbols the batches carry
     * @param callGraph  whether to build the children totals and the stack tree (the flat profile
     *                   is always built)
     */
    PerfReport(SessionDictionary dictionary, boolean callGraph) {
        this.dictionary = dictionary;
        this.callGraph = callGraph;
        Arrays.fill(pathLength, -1);
        for (int i = 0; i < sym.length; i += STRIDE) {
            sym[i + STAMP] = -1;
        }
        for (int i = 0; i < unk.length; i += STRIDE) {
            unk[i + STAMP] = -1;
        }
    }

    /**
     * The service properties the report is bound with: its name, and the delivery it asks for. The
     * flat profile is a tap: it counts a batch in a small part of the time the import takes to make
     * one, so a hand-off to another thread would cost about what it saves. The call graph takes
     * about as long as reading and
     * resolving: it asks for lossless delivery, its own thread behind a short queue that the import
     * waits for when it is full (the import can wait, and the report must see every sample), so the
     * two overlap on two cores.
     */
    Map<String, Object> properties() {
        return Map.of(SampleConsumer.NAME, NAME, SampleConsumer.DELIVERY, callGraph ? "lossless" : "tap");
    }

    /** Samples counted. */
    public long samples() {
        return samples;
    }

    /** Their period in all (perf's "Event count"). */
    public long period() {
        return period;
    }

    /** Nodes of the stack tree (its size: bounded by the distinct stacks). */
    public int stackNodes() {
        return nodeCount - 1;
    }

    /** Distinct frames seen (symbols and unresolved addresses). */
    public int frames() {
        int n = 0;
        for (int i = 0; i < sym.length; i += STRIDE) {
            if (sym[i + SELF] != 0 || sym[i + CHILDREN] != 0) {
                n++;
            }
        }
        for (int i = 0; i < unk.length; i += STRIDE) {
            if (unk[i + SELF] != 0 || unk[i + CHILDREN] != 0) {
                n++;
            }
        }
        return n;
    }

    /** The import made this report for its session's dictionary: nothing to learn here. */
    @Override
    public void sessionStarted(SessionInfo session) {
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
    }

    @Override
    public void samples(SampleBatch b) {
        ensureSymbols(dictionary.symbolCount());
        ensureUnknown(dictionary.addressCount());
        learnImages();
        boolean[] guest = guestImage;
        boolean[] unmapped = unmappedImage;
        int[] chainStart = b.chainStart;
        long[] periods = b.weight;
        int[] self = b.symbol;
        int[] chainSymbol = b.chainSymbol;
        int[] chainImage = b.chainImage;
        byte[] chainMode = b.chainMode;
        for (int i = 0; i < b.size; i++) {
            long p = periods[i];
            samples++;
            period += p;
            int f = self[i];
            char own = letter(b, i);
            char run = own;
            fix(f, run);
            long[] a = f >= 0 ? sym : unk;
            int at = index(f) * STRIDE;
            if (a[at + SELF_LEVEL] == 0) {
                a[at + SELF_LEVEL] = own;
            }
            a[at + SELF]++;
            a[at + SELF_PERIOD] += p;
            if (!callGraph) {
                continue;
            }
            int start = chainStart[i];
            int n = chainStart[i + 1] - start + 1;
            long stamp = ++serial;
            if (n > stack.length) {
                stack = new int[Math.max(n, stack.length * 2)];
            }
            int[] st = stack;
            int hash = 0;
            // Level letters in the order perf adds a sample's entries after its own: its callchain
            // from the outermost frame in, the sample's address as the chain's first entry last. A
            // frame with no mapping takes the letter of the entry before it (see fix). The same pass
            // counts each frame in the children totals and lays out the stack (innermost first).
            for (int c = start + n - 2; c >= start; c--) {
                int cf = chainSymbol[c];
                int img = chainImage[c];
                if (cf >= 0 || !unmapped[img]) {
                    run = letter(chainMode[c], guest[img]);
                }
                fixAndCount(cf, run, p, stamp);
                st[c - start + 1] = cf;
                hash = hash * 31 + cf;
            }
            st[0] = f;
            hash = hash * 31 + f;
            children(f, p, stamp);
            if (f < 0 && b.has(i, SampleBatch.CHAIN_FROM_PC)) {
                // perf keys the sample's own entry by its image-relative address and the same
                // address as the callchain's first entry by its run-time value: for a frame
                // without a symbol these are two rows, and the sample counts in both.
                int img = b.image[i];
                long pc = b.pc[i];
                if (!unmapped[img]) {
                    run = own;
                }
                int raw = chainFrameAt(b, start, start + n - 1, img, pc);
                if (raw != NO_FRAME) {
                    fixAndCount(raw, run, p, stamp);
                } else {
                    countRunTime(f, img, pc, run, p);
                }
            }
            addPath(st, n, hash, p);
        }
    }

    /** The images the dictionary named since the last batch: which are a guest's, which have no mapping. */
    private void learnImages() {
        int n = dictionary.imageCount();
        if (n <= imagesKnown) {
            return;
        }
        guestImage = Arrays.copyOf(guestImage, n);
        unmappedImage = Arrays.copyOf(unmappedImage, n);
        for (int img = imagesKnown; img < n; img++) {
            guestImage[img] = dictionary.imageDomain(img) != Machines.HOST_DOMAIN;
            ImageKind kind = dictionary.imageKind(img);
            unmappedImage[img] = kind == ImageKind.UNKNOWN || kind == ImageKind.HYPERVISOR;
        }
        imagesKnown = n;
    }

    /**
     * The key of a callchain entry of the sample whose entries lie from {@code from} to {@code to - 1}
     * that is the address symbol of run-time address {@code pc} in image {@code img}, or
     * {@link #NO_FRAME} when none is (the import numbers a run-time address only when a callchain
     * entry needs it, and the pair (image, address) is what an address symbol is).
     */
    private static int chainFrameAt(SampleBatch b, int from, int to, int img, long pc) {
        int[] chainSymbol = b.chainSymbol;
        int[] chainImage = b.chainImage;
        for (int c = from; c < to; c++) {
            if (chainSymbol[c] < SessionDictionary.NO_SYMBOL && chainImage[c] == img && b.chainPc[c] == pc) {
                return chainSymbol[c];
            }
        }
        return NO_FRAME;
    }

    private static final int NO_FRAME = Integer.MIN_VALUE;

    // A sample's own address without a symbol, repeated as its callchain's first entry, is also a
    // frame at its run-time address (see samples). The import does not number such an address
    // unless a callchain entry needs it (most are met as samples' own addresses only, and numbering
    // each would cost the import a dictionary entry per address), so it is counted here by
    // (image, run-time address) and named when the last batch is in (nameRunTimeFrames).
    /** By run-time address, its newest entry (entries of other images at the same address follow by {@link #RT_NEXT}). */
    private final LongIntMap runTimeEntries = new LongIntMap(1024);
    private int runTimeCount;
    // Per entry, six longs side by side: its run-time address, image, the entry of another image at
    // the same address (-1: none), samples, period and level letter (from its first sight).
    private static final int RT_STRIDE = 6;
    private static final int RT_PC = 0;
    private static final int RT_IMAGE = 1;
    private static final int RT_NEXT = 2;
    private static final int RT_SAMPLES = 3;
    private static final int RT_PERIOD = 4;
    private static final int RT_LEVEL = 5;
    private long[] runTime = new long[1024 * RT_STRIDE];
    /**
     * By address symbol index of a sample's own frame: the run-time address last counted for it, and
     * the entry it was counted in plus one, or -1 when that address is the frame's own (0: none yet). A
     * process runs the same address many times over, so most samples skip the map.
     */
    private long[] runTimeMemo = new long[2048];

    /** Counts a sample of own frame {@code f} at run-time address {@code pc} of image {@code img} in that address's frame. */
    private void countRunTime(int f, int img, long pc, char letter, long p) {
        int at = 2 * SessionDictionary.addressIndex(f);
        long[] memo = runTimeMemo;
        if (at + 1 >= memo.length) {
            memo = Arrays.copyOf(memo, Math.max(at + 2, memo.length * 2));
            runTimeMemo = memo;
        }
        int e = (int) memo[at + 1];
        if (e == 0 || memo[at] != pc) {
            e = dictionary.symbolAddress(f) == pc ? -1 : runTimeEntry(img, pc, letter) + 1;
            memo[at] = pc;
            memo[at + 1] = e;
        }
        if (e < 0) {
            // The run-time address is the image-relative one (an image mapped where its file says): one frame, counted.
            return;
        }
        int entry = (e - 1) * RT_STRIDE;
        runTime[entry + RT_SAMPLES]++;
        runTime[entry + RT_PERIOD] += p;
    }

    /** The entry of (image, run-time address), made on first sight with that sight's letter. */
    private int runTimeEntry(int img, long pc, char letter) {
        int head = runTimeEntries.get(pc);
        for (int k = head; k >= 0; k = (int) runTime[k * RT_STRIDE + RT_NEXT]) {
            if (runTime[k * RT_STRIDE + RT_IMAGE] == img) {
                return k;
            }
        }
        int k = runTimeCount++;
        int at = k * RT_STRIDE;
        if (at == runTime.length) {
            runTime = Arrays.copyOf(runTime, 2 * at);
        }
        runTime[at + RT_PC] = pc;
        runTime[at + RT_IMAGE] = img;
        runTime[at + RT_NEXT] = head;
        runTime[at + RT_LEVEL] = letter;
        runTimeEntries.put(pc, k);
        return k;
    }

    /** Names addresses of images as the session's dictionary does ({@link org.hyperprof.pipeline.Dictionary#addresses}). */
    interface AddressNamer {
        void addresses(int[] images, long[] addresses, int n, int[] ids);
    }

    /**
     * Names the run-time addresses counted on their own ({@link #countRunTime}) by {@code namer}
     * (the dictionary's address symbols, made where no callchain made them) and adds their counts to
     * those frames. Such an address lies in a mapping of a host process (elsewhere the run-time
     * address is the one the frame is keyed by), where a callchain entry's letter and a sample's own
     * are its mode's alike, so the first sight's letter is kept whichever it was. Once the last batch
     * is in, before any result is read; a second call finds nothing to do.
     */
    void nameRunTimeFrames(AddressNamer namer) {
        int n = runTimeCount;
        int[] images = new int[n];
        long[] addresses = new long[n];
        for (int k = 0; k < n; k++) {
            images[k] = (int) runTime[k * RT_STRIDE + RT_IMAGE];
            addresses[k] = runTime[k * RT_STRIDE + RT_PC];
        }
        int[] ids = new int[n];
        namer.addresses(images, addresses, n, ids);
        ensureUnknown(dictionary.addressCount());
        for (int k = 0; k < n; k++) {
            int at = SessionDictionary.addressIndex(ids[k]) * STRIDE;
            int from = k * RT_STRIDE;
            unk[at + CHILDREN] += runTime[from + RT_SAMPLES];
            unk[at + CHILDREN_PERIOD] += runTime[from + RT_PERIOD];
            if (unk[at + LEVEL] == 0) {
                unk[at + LEVEL] = runTime[from + RT_LEVEL];
            }
        }
        runTimeCount = 0;
    }

    /** A frame's index in {@link #sym} (a symbol) or {@link #unk} (an address symbol). */
    private static int index(int frame) {
        return frame >= 0 ? frame : SessionDictionary.addressIndex(frame);
    }

    /**
     * Counts one sample of the flat profile directly, without a batch (an import with no consumer
     * and no callchains): the same as {@link #batch} does for a sample of a flat report.
     *
     * @param f    the sample's own frame key
     * @param mode the sample's cpumode
     * @param p    its period
     */
    void flat(int f, int mode, long p) {
        flat(f, mode, 1, p);
    }

    /** {@link #flat(int, int, long)} of {@code n} samples of one frame and cpumode, of period {@code p} in all. */
    void flat(int f, int mode, long n, long p) {
        samples += n;
        period += p;
        long[] a;
        int at;
        if (f >= 0) {
            at = f * STRIDE;
            if (at >= sym.length) {
                ensureSymbols(dictionary.symbolCount());
            }
            a = sym;
        } else {
            at = SessionDictionary.addressIndex(f) * STRIDE;
            if (at >= unk.length) {
                ensureUnknown(dictionary.addressCount());
            }
            a = unk;
        }
        if (a[at + LEVEL] == 0) {
            a[at + LEVEL] = level(mode);
            a[at + SELF_LEVEL] = a[at + LEVEL];
        }
        a[at + SELF] += n;
        a[at + SELF_PERIOD] += p;
    }

    /** Counts a stack (frames innermost first) in the tree, through the path cache. */
    private void addPath(int[] st, int n, int hash, long p) {
        int slot = (hash ^ (hash >>> 16)) & (PATH_CACHE - 1);
        int[] frames = pathFrames[slot];
        if (pathLength[slot] == n && Arrays.equals(frames, 0, n, st, 0, n)) {
            nodeSelf[pathLeaf[slot]] += p;
            return;
        }
        if (frames == null || frames.length < n) {
            frames = new int[Math.max(n, 16)];
            pathFrames[slot] = frames;
        }
        int node = ROOT;
        for (int k = 0; k < n; k++) {
            node = node(node, st[k]);
            frames[k] = st[k];
        }
        nodeSelf[node] += p;
        pathLeaf[slot] = node;
        pathLength[slot] = n;
    }

    /** {@link #fix} and {@link #children} of one frame, on its one line of counts. */
    private void fixAndCount(int f, char letter, long p, long stamp) {
        long[] a = f >= 0 ? sym : unk;
        int at = index(f) * STRIDE;
        if (a[at + LEVEL] == 0) {
            a[at + LEVEL] = letter;
        }
        if (a[at + STAMP] != stamp) {
            a[at + STAMP] = stamp;
            a[at + CHILDREN]++;
            a[at + CHILDREN_PERIOD] += p;
        }
    }

    private void children(int f, long p, long stamp) {
        long[] a = f >= 0 ? sym : unk;
        int at = index(f) * STRIDE;
        if (a[at + STAMP] != stamp) {
            a[at + STAMP] = stamp;
            a[at + CHILDREN]++;
            a[at + CHILDREN_PERIOD] += p;
        }
    }

    /**
     * perf's level letter for a cpumode: [k] kernel, [.] user, [g] guest kernel, [u] guest user,
     * and [H] for every other (hypervisor, unknown, and the values 6 and 7 no mode has).
     */
    static char level(int cpumode) {
        return switch (cpumode) {
            case PerfFormat.CPUMODE_KERNEL -> 'k';
            case PerfFormat.CPUMODE_USER -> '.';
            case PerfFormat.CPUMODE_GUEST_KERNEL -> 'g';
            case PerfFormat.CPUMODE_GUEST_USER -> 'u';
            default -> 'H';
        };
    }

    /**
     * perf's level letter for a frame of a mode, in a guest or not: [k] kernel, [.] user, [g] guest
     * kernel, [u] guest user, and [H] for every other (hypervisor, unknown).
     */
    static char letter(int mode, boolean guest) {
        if (mode == CpuMode.KERNEL.code()) {
            return guest ? 'g' : 'k';
        }
        if (mode == CpuMode.USER.code()) {
            return guest ? 'u' : '.';
        }
        return 'H';
    }

    /** The level letter of sample {@code i}'s own frame: its mode's, in its domain ([H] for a mode perf did not know). */
    private static char letter(SampleBatch b, int i) {
        return b.has(i, SampleBatch.MODE_UNKNOWN) ? 'H' : letter(b.mode[i], b.domain[i] != Machines.HOST_DOMAIN);
    }

    /**
     * The first sight of a frame fixes its level letter. perf adds a sample's own entry, then its
     * callchain's frames from the outermost in, through one location whose level a frame in a
     * mapping sets from that mapping's context ([k] in the kernel's maps, [.] in a process's), and
     * a frame no mapping covers leaves as it was ({@code fill_callchain_info}): such a frame takes
     * the letter of the entry before it, the sample's own for the outermost.
     */
    private void fix(int f, char letter) {
        long[] a = f >= 0 ? sym : unk;
        int at = index(f) * STRIDE + LEVEL;
        if (a[at] == 0) {
            a[at] = letter;
        }
    }

    private int node(int parent, int frame) {
        if (parent == ROOT) {
            long[] a = frame >= 0 ? sym : unk;
            int at = index(frame) * STRIDE + ROOT_NODE;
            int n = (int) a[at];
            if (n == 0) {
                n = newNode(parent, frame);
                a[at] = n;
            }
            return n;
        }
        int hint = nodeHint[parent];
        if (hint != 0 && nodeFrame[hint] == frame) {
            return hint;
        }
        // Most nodes have one child: it is kept by the node (nodeFirst), and only the
        // children after it go in the edge map, so a new path below a new node never probes it.
        int first = nodeFirst[parent];
        int firstNode = first & Integer.MAX_VALUE;
        int n;
        if (firstNode == 0) {
            n = newNode(parent, frame);
            nodeFirst[parent] = n;
        } else if (nodeFrame[firstNode] == frame) {
            n = firstNode;
        } else {
            long key = ((long) parent << 32) | (frame & 0xFFFFFFFFL);
            n = first < 0 ? edges.get(key) : LongIntMap.ABSENT;
            if (n == LongIntMap.ABSENT) {
                n = newNode(parent, frame);
                edges.put(key, n);
                nodeFirst[parent] = first | Integer.MIN_VALUE;
            }
        }
        nodeHint[parent] = n;
        return n;
    }

    /** A new node of the tree (the edges below the root are kept by frame, the others in {@link #edges}). */
    private int newNode(int parent, int frame) {
        int n = nodeCount++;
        if (n == nodeParent.length) {
            int cap = n * 2;
            nodeParent = Arrays.copyOf(nodeParent, cap);
            nodeFrame = Arrays.copyOf(nodeFrame, cap);
            nodeSelf = Arrays.copyOf(nodeSelf, cap);
            nodeHint = Arrays.copyOf(nodeHint, cap);
            nodeFirst = Arrays.copyOf(nodeFirst, cap);
        }
        nodeParent[n] = parent;
        nodeFrame[n] = frame;
        return n;
    }

    private void ensureSymbols(int needed) {
        if (needed * STRIDE > sym.length) {
            sym = grown(sym, needed);
        }
    }

    private void ensureUnknown(int needed) {
        if (needed * STRIDE > unk.length) {
            unk = grown(unk, needed);
        }
    }

    /** Room for {@code needed} frames; new frames have no stamp yet (-1). */
    private static long[] grown(long[] a, int needed) {
        int old = a.length / STRIDE;
        int n = Math.max(needed, old * 2);
        long[] g = Arrays.copyOf(a, n * STRIDE);
        for (int i = old; i < n; i++) {
            g[i * STRIDE + STAMP] = -1;
        }
        return g;
    }

    // ---------------------------------------------------------------- results

    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (int f = 0; f * STRIDE < sym.length; f++) {
            int at = f * STRIDE;
            if (sym[at + SELF] > 0 || sym[at + CHILDREN] > 0) {
                int image = dictionary.symbolImage(f);
                rows.add(row(f, dictionary.imageName(image), dictionary.briefName(f), sym, at));
            }
        }
        for (int u = 0; u * STRIDE < unk.length; u++) {
            int at = u * STRIDE;
            if (unk[at + SELF] > 0 || unk[at + CHILDREN] > 0) {
                int f = SessionDictionary.addressSymbolOf(u);
                rows.add(row(f, dictionary.imageName(dictionary.symbolImage(f)), dictionary.briefName(f), unk, at));
            }
        }
        rows.sort(Comparator.comparingLong(Row::period).reversed().thenComparing(Comparator
                .comparingLong(Row::childrenPeriod).reversed()).thenComparing(Row::image)
                .thenComparing(Row::symbol));
        return rows;
    }

    private Row row(int frame, String image, String symbol, long[] a, int at) {
        char level = (char) a[at + LEVEL];
        char selfLevel = a[at + SELF_LEVEL] != 0 ? (char) a[at + SELF_LEVEL] : level;
        return new Row(frame, image, level, selfLevel, symbol, a[at + SELF], a[at + SELF_PERIOD],
                callGraph ? a[at + CHILDREN] : a[at + SELF], callGraph ? a[at + CHILDREN_PERIOD] : a[at + SELF_PERIOD]);
    }

    /** The image's name as perf report prints it (the base name of a file). */
    static String shortName(String image) {
        return Dso.shortName(image);
    }

    /**
     * Prints the flat profile as {@code perf report --stdio --no-children --sort dso,sym -n} does:
     * overhead, samples, shared object, level and symbol; rows up to {@code limit}.
     */
    public void printFlat(Appendable out, String event, int limit) {
        try {
            out.append(String.format(Locale.ROOT, "# Samples: %d  of event '%s'%n", samples, event));
            out.append(String.format(Locale.ROOT, "# Event count (approx.): %d%n#%n", period));
            out.append(String.format(Locale.ROOT, "# %8s  %12s  %-24s  %s%n", "Overhead", "Samples", "Shared Object",
                    "Symbol"));
            List<Row> rows = rows();
            rows.removeIf(r -> r.samples() == 0);
            int n = 0;
            for (Row r : rows) {
                if (n++ == limit) {
                    out.append(String.format(Locale.ROOT, "  ... %d more rows%n", rows.size() - limit));
                    break;
                }
                out.append(String.format(Locale.ROOT, "  %8s  %12d  %-24s  [%c] %s%n", percentOfTotal(r.period()),
                        r.samples(), shortName(r.image()), r.selfLevel(), r.symbol()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Prints the children view ({@code perf report --children --sort dso,sym}) and under each of
     * the first {@code trees} rows the stacks through it, callers below callees, branches below
     * 0.5% of the total left out as perf's graph does.
     */
    public void printCallGraph(Appendable out, int limit, int trees) {
        if (!callGraph) {
            throw new IllegalStateException("this report was built without the call graph");
        }
        try {
            out.append(String.format(Locale.ROOT, "# %8s  %8s  %12s  %-24s  %s%n", "Children", "Self", "Samples",
                    "Shared Object", "Symbol"));
            List<Row> rows = rows();
            rows.sort(Comparator.comparingLong(Row::childrenPeriod).reversed().thenComparing(Comparator
                    .comparingLong(Row::period).reversed()).thenComparing(Row::image).thenComparing(Row::symbol));
            long[] total = treeTotals();
            int[] firstChild = new int[nodeCount];
            int[] nextSibling = new int[nodeCount];
            Arrays.fill(firstChild, -1);
            Arrays.fill(nextSibling, -1);
            for (int n = nodeCount - 1; n >= 1; n--) {
                nextSibling[n] = firstChild[nodeParent[n]];
                firstChild[nodeParent[n]] = n;
            }
            int n = 0;
            for (Row r : rows) {
                if (n == limit) {
                    out.append(String.format(Locale.ROOT, "  ... %d more rows%n", rows.size() - limit));
                    break;
                }
                out.append(String.format(Locale.ROOT, "  %8s  %8s  %12d  %-24s  [%c] %s%n",
                        percentOfTotal(r.childrenPeriod()), percentOfTotal(r.period()), r.samples(),
                        shortName(r.image()), r.level(), r.symbol()));
                if (n < trees && r.samples() > 0) {
                    for (int c = firstChild[ROOT]; c >= 0; c = nextSibling[c]) {
                        if (nodeFrame[c] == r.frame()) {
                            tree(out, c, total, firstChild, nextSibling, "            ");
                        }
                    }
                    out.append("\n");
                }
                n++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * By node, the period of the samples whose stacks pass through it: its own and its subtree's. A
     * node is made after its parent, so one pass from the last node adds each to its parent.
     */
    private long[] treeTotals() {
        long[] total = Arrays.copyOf(nodeSelf, nodeCount);
        for (int n = nodeCount - 1; n >= 1; n--) {
            total[nodeParent[n]] += total[n];
        }
        return total;
    }

    private void tree(Appendable out, int node, long[] total, int[] firstChild, int[] nextSibling, String indent)
            throws IOException {
        List<Integer> kids = new ArrayList<>();
        for (int c = firstChild[node]; c >= 0; c = nextSibling[c]) {
            if (percent(total[c]) >= 0.5) {
                kids.add(c);
            }
        }
        kids.sort(Comparator.comparingLong((Integer c) -> total[c]).reversed());
        for (int c : kids) {
            String[] d = describe(nodeFrame[c]).split("\u0000", 2);
            out.append(String.format(Locale.ROOT, "%s|--%.2f%%--%s (%s)%n", indent, percent(total[c]), d[1],
                    shortName(d[0])));
            tree(out, c, total, firstChild, nextSibling, indent + "|    ");
        }
    }

    private String describe(int frame) {
        return dictionary.imageName(dictionary.symbolImage(frame)) + "\u0000" + dictionary.briefName(frame);
    }

    private double percent(long p) {
        return period == 0 ? 0 : 100.0 * p / period;
    }

    /**
     * A share of the total period as perf prints it: {@code 100.0 * part / total} with two
     * decimals, rounded as C's printf rounds (the exact binary value, halves to even).
     */
    public static String percentText(long part, long total) {
        double v = total == 0 ? 0 : 100.0 * part / total;
        return new java.math.BigDecimal(v).setScale(2, java.math.RoundingMode.HALF_EVEN).toPlainString() + "%";
    }

    /** {@link #percentText} of this report's total period. */
    public String percentOfTotal(long part) {
        return percentText(part, period);
    }
}
