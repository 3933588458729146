package org.hyperprof.report.flamegraph;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.kit.Rejections;
import org.hyperprof.report.kit.SymbolImages;

/**
 * What the flame graph keeps of one session: every distinct stack (domain, vCPU, callers, sampled
 * function) interned in a {@link StackTrie}, and per counter the number of samples that ended at
 * each stack, plus the batches and samples it took or rejected and the summary once the session
 * ended.
 *
 * <p>Per sample: one check of its ids, one trie lookup per frame, one increment of a primitive
 * array; nothing is allocated unless the stack is new. Batches arrive on the consumer's delivery
 * thread while reports may be written from the shell, so every method synchronizes on this object
 * and a report works from a {@link #snapshot()} copy.
 */
final class StackAggregate {

    /** Domain ids are Xen's {@code domid_t}: 16 bits (the idle domain is 0x7FFF). */
    static final int MAX_DOMID = 0xFFFF;

    /** Xenoprof carries the counter index in a byte-sized {@code event} field. */
    static final int MAX_COUNTERS = 0x100;

    final SessionInfo info;
    private final int counterCount;
    /** Counter number (Xenoprof's event field) to position in the session's counter list. */
    private final int[] counterSlots;
    private final StackTrie trie = new StackTrie();

    /** Samples that ended at each trie node, per counter; a counter's array is made at its first sample. */
    private final long[][] selfSamples;

    /** The image of each symbol the dictionary has named, to check every frame against. */
    private final SymbolImages symbols = new SymbolImages();

    private long batches;
    private long samples;
    private final Rejections rejections = new Rejections();
    private SessionSummary summary;

    StackAggregate(SessionInfo info) {
        if (info.counters().size() > MAX_COUNTERS) {
            throw new IllegalArgumentException("session " + info.sessionId() + " has " + info.counters().size()
                    + " counters; Xenoprof's event field holds at most " + MAX_COUNTERS);
        }
        this.info = info;
        this.counterCount = info.counters().size();
        this.counterSlots = info.counterSlots();
        this.selfSamples = new long[counterCount][];
    }

    long sessionId() {
        return info.sessionId();
    }

    /**
     * Counts a batch. A sample whose ids fall outside the dictionary, whose symbol belongs to
     * another image, or whose call chain lies outside the batch's arrays is rejected and counted,
     * never aggregated; the rest of the batch still counts.
     */
    synchronized void accept(SampleBatch batch) {
        SessionDictionary dictionary = info.dictionary();
        int imageCount = dictionary.imageCount();
        symbols.learn(dictionary);
        for (int i = 0; i < batch.size; i++) {
            String problem = check(batch, i, imageCount);
            if (problem != null) {
                reject(i, problem);
                continue;
            }
            int node = trie.child(StackTrie.ROOT, batch.domain[i]);
            node = trie.child(node, batch.vcpu[i]);
            // The chain lists callers innermost first; a flame graph stacks them outermost first.
            for (int c = batch.chainStart[i + 1] - 1; c >= batch.chainStart[i]; c--) {
                node = trie.child(node, StackTrie.codeFrame(batch.chainSymbol[c], batch.chainImage[c]));
            }
            node = trie.child(node, StackTrie.codeFrame(batch.symbol[i], batch.image[i]));
            countsOf(counterSlots[batch.counter[i] & 0xFF], node)[node]++;
            samples++;
        }
        batches++;
    }

    synchronized void end(SessionSummary ended) {
        this.summary = ended;
    }

    /** A consistent copy of everything counted so far. */
    synchronized Snapshot snapshot() {
        long[][] counts = new long[counterCount][];
        for (int c = 0; c < counterCount; c++) {
            counts[c] = selfSamples[c] == null ? new long[trie.size()] : Arrays.copyOf(selfSamples[c], trie.size());
        }
        Rejections.Books rejected = rejections.books();
        return new Snapshot(info, trie.copy(), counts, batches, samples, rejected.samples(),
                rejected.first(), summary);
    }

    private long[] countsOf(int counter, int node) {
        long[] counts = selfSamples[counter];
        if (counts == null || node >= counts.length) {
            counts = counts == null ? new long[Math.max(256, trie.size())]
                    : Arrays.copyOf(counts, Math.max(counts.length * 2, node + 1));
            selfSamples[counter] = counts;
        }
        return counts;
    }

    /** Why sample {@code i} cannot be aggregated, or null when it can. Allocates only for a bad sample. */
    private String check(SampleBatch batch, int i, int imageCount) {
        int d = batch.domain[i];
        if (d < 0 || d > MAX_DOMID) {
            return "domain " + d + " is not a 16-bit domain id";
        }
        if (batch.vcpu[i] < 0) {
            return "vCPU " + batch.vcpu[i] + " is negative";
        }
        int c = counterSlots[batch.counter[i] & 0xFF];
        if (c < 0 || c >= counterCount) {
            return "counter " + batch.counter[i] + " is not one of the session's " + counterCount + " counters";
        }
        if (batch.mode[i] < 0) {
            return "mode " + batch.mode[i] + " is negative (Xenoprof modes are 0 user, 1 kernel, 2 xen)";
        }
        String frame = symbols.misfit(batch.image[i], batch.symbol[i], imageCount);
        if (frame != null) {
            return "the sampled " + frame;
        }
        int from = batch.chainStart[i];
        int to = batch.chainStart[i + 1];
        int entries = Math.min(batch.chainImage.length, batch.chainSymbol.length);
        if (from < 0 || to < from || to > entries) {
            return "its call chain runs from entry " + from + " to " + to + ", outside the batch's " + entries
                    + " chain entries";
        }
        for (int e = from; e < to; e++) {
            String caller = symbols.misfit(batch.chainImage[e], batch.chainSymbol[e], imageCount);
            if (caller != null) {
                return "caller " + (e - from) + "'s " + caller;
            }
        }
        return null;
    }



    private void reject(int i, String why) {
        if (rejections.count()) {
            rejections.first(batches + 1, i, why);
        }
    }

    /**
     * An immutable copy of a session's stacks, for rendering off the delivery thread.
     *
     * @param selfSamples per counter, the samples that ended at each node of {@code trie}
     */
    record Snapshot(SessionInfo info, StackTrie trie, long[][] selfSamples, long batches, long samples,
            long rejectedSamples, String firstRejection, SessionSummary summary) {
    }
}
