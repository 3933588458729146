package org.hyperprof.report.pprof;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.kit.Rejections;
import org.hyperprof.report.kit.SymbolImages;

/**
 * What the pprof consumer keeps of one session: its locations (distinct PCs with image and symbol),
 * its sample counts per (domain, vCPU, mode, call stack) and counter, what it rejected, and the
 * summary once the session ends.
 *
 * <p>Batches arrive on the consumer's delivery thread while files may be written from the shell at
 * any time; every method synchronizes on this object, and a file is built from a
 * {@link #snapshot()} copy, so writing never holds up aggregation for longer than a few array
 * copies.
 */
final class SessionStacks {

    /** Domain ids are Xen's {@code domid_t}: 16 bits (the idle domain is 0x7FFF). */
    static final int MAX_DOMID = 0xFFFF;

    /** Xenoprof carries the counter index in a byte-sized {@code event} field. */
    static final int MAX_COUNTERS = 0x100;

    /** Callers kept per sample; deeper chains are cut there (and counted). */
    static final int MAX_CALLERS = 256;

    /** The Xenoprof mode of hypervisor samples; Xen counts any mode above it as hypervisor too. */
    static final int MODE_XEN = 2;

    final SessionInfo info;
    private final long startedMillis;
    private final int counterCount;
    /** Counter number (Xenoprof's event field) to position in the session's counter list. */
    private final int[] counterSlots;
    private final LocationTable locations;
    private final StackTable stacks;

    /** The stack key being built for the current sample: reused, grown only for a deeper chain. */
    private final int[] key = new int[StackTable.HEADER + 1 + MAX_CALLERS];

    /** The image of each symbol the dictionary has named, to check every frame against. */
    private final SymbolImages symbols = new SymbolImages();

    private long batches;
    private long samples;
    private final Rejections rejections = new Rejections();
    private long cutChains;
    private String firstCutChain;
    private SessionSummary summary;

    SessionStacks(SessionInfo info, long startedMillis, int exactLocationLimit, int stackLimit) {
        if (info.counters().isEmpty() || info.counters().size() > MAX_COUNTERS) {
            throw new IllegalArgumentException("session " + info.sessionId() + " has " + info.counters().size()
                    + " counters; a profile needs 1 to " + MAX_COUNTERS + " (Xenoprof's event field is a byte)");
        }
        this.info = info;
        this.startedMillis = startedMillis;
        this.counterCount = info.counters().size();
        this.counterSlots = info.counterSlots();
        this.locations = new LocationTable(exactLocationLimit);
        this.stacks = new StackTable(counterCount, stackLimit);
    }

    long sessionId() {
        return info.sessionId();
    }

    /**
     * Counts a batch. A sample whose ids fall outside the dictionary (or whose symbol belongs to
     * another image) is rejected and counted, never aggregated; the rest of the batch still counts.
     * A caller entry that is invalid cuts the chain there: the sample counts with the callers
     * before it.
     */
    synchronized void accept(SampleBatch batch) {
        SessionDictionary dictionary = info.dictionary();
        int imageCount = dictionary.imageCount();
        symbols.learn(dictionary);
        long rejectedBefore = rejections.samples();
        int[] k = key;
        for (int i = 0; i < batch.size; i++) {
            int d = batch.domain[i];
            int c = counterSlots[batch.counter[i] & 0xFF];
            int v = batch.vcpu[i];
            int m = batch.mode[i];
            int img = batch.image[i];
            int sym = batch.symbol[i];
            if (d < 0 || d > MAX_DOMID || c < 0 || c >= counterCount || v < 0 || m < 0
                    || !symbols.holds(img, sym, imageCount)) {
                reject(batch, i, imageCount);
                continue;
            }
            k[0] = d;
            k[1] = v;
            k[2] = Math.min(m, MODE_XEN);
            k[3] = locations.intern(img, function(sym), batch.pc[i]);
            int length = StackTable.HEADER + 1;
            int from = batch.chainStart[i];
            int to = batch.chainStart[i + 1];
            if (to > from) {
                length = appendCallers(batch, i, from, to, imageCount, length);
            }
            stacks.count(k, length, c);
            samples++;
        }
        batches++;
        rejections.batchDone(rejectedBefore);
    }

    /**
     * The symbol a location is of: an address symbol (an address no symbol covers) is the image's
     * "(no symbols)" function, as {@link SessionDictionary#NO_SYMBOL} is.
     */
    private static int function(int symbol) {
        return SessionDictionary.isAddress(symbol) ? SessionDictionary.NO_SYMBOL : symbol;
    }

    private int appendCallers(SampleBatch batch, int i, int from, int to, int imageCount, int length) {
        if (from < 0 || to > batch.chainPc.length || to > batch.chainImage.length || to > batch.chainSymbol.length) {
            cutChain(batch, i, "its call chain entries " + from + ".." + (to - 1) + " lie outside the batch's "
                    + batch.chainPc.length + " chain entries");
            return length;
        }
        int[] k = key;
        for (int j = from; j < to; j++) {
            if (length == k.length) {
                cutChain(batch, i, "it has " + (to - from) + " callers; the profile keeps " + MAX_CALLERS);
                break;
            }
            int img = batch.chainImage[j];
            int sym = batch.chainSymbol[j];
            if (!symbols.holds(img, sym, imageCount)) {
                cutChain(batch, i, "caller " + (j - from) + " names image " + img + " and symbol " + sym
                        + ", which the session's dictionary does not hold together");
                break;
            }
            k[length++] = locations.intern(img, function(sym), batch.chainPc[j]);
        }
        return length;
    }

    /** Counts a batch that could not be read at all (e.g. its arrays do not hold its size). */
    synchronized void rejectBatch(String why, int size) {
        rejections.batch(why, size);
    }

    synchronized void end(SessionSummary ended) {
        this.summary = ended;
    }

    /** A consistent copy of everything counted so far. */
    synchronized Snapshot snapshot() {
        Rejections.Books rejected = rejections.books();
        return new Snapshot(info, startedMillis, locations.copy(), stacks.copy(), batches, samples,
                rejected.samples(), rejected.batches(), rejected.first(), cutChains, firstCutChain, locations.folded(), stacks.cutSamples(),
                summary);
    }


    private void cutChain(SampleBatch batch, int i, String why) {
        cutChains++;
        if (firstCutChain == null) {
            firstCutChain = "batch " + (batches + 1) + " sample " + i + ": " + why;
        }
    }

    private void reject(SampleBatch batch, int i, int imageCount) {
        if (!rejections.count()) {
            return;
        }
        int d = batch.domain[i];
        int c = counterSlots[batch.counter[i] & 0xFF];
        int img = batch.image[i];
        int sym = batch.symbol[i];
        String why;
        if (d < 0 || d > MAX_DOMID) {
            why = "domain " + d + " is not a 16-bit domain id";
        } else if (c < 0 || c >= counterCount) {
            why = "counter " + batch.counter[i] + " is not one of the session's " + counterCount + " counters";
        } else if (batch.vcpu[i] < 0) {
            why = "vcpu " + batch.vcpu[i] + " is negative";
        } else if (batch.mode[i] < 0) {
            why = "mode " + batch.mode[i] + " is negative (Xenoprof modes are 0 user, 1 kernel, 2 xen)";
        } else {
            why = symbols.misfit(img, sym, imageCount);
        }
        rejections.first(batches + 1, i, why);
    }

    /**
     * An immutable copy of a session's counts, for writing a file off the delivery thread.
     *
     * @param foldedPcs   sample PCs counted at their function's location because the location table was full
     * @param cutStacks   samples counted under their leaf alone because the stack table was full
     * @param cutChains   samples whose call chain was cut at an invalid or too-deep caller
     */
    record Snapshot(SessionInfo info, long startedMillis, LocationTable locations, StackTable stacks, long batches,
            long samples, long rejectedSamples, long rejectedBatches, String firstRejection, long cutChains,
            String firstCutChain, long foldedPcs, long cutStacks, SessionSummary summary) {
    }
}
