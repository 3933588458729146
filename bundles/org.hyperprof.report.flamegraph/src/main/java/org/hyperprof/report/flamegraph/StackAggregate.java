package org.hyperprof.report.flamegraph;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.kit.Rejections;
import org.hyperprof.report.kit.ReportAggregate;

/**
 * What the flame graph keeps of one session: every distinct stack (domain, vCPU, process and comm
 * where the source names threads, callers, sampled function) interned in a {@link StackTrie}, and per counter the number of samples that ended at
 * each stack, plus the batches and samples it took or rejected and the summary once the session
 * ended.
 *
 * <p>Per sample: one check of its ids, one trie lookup per frame, one increment of a primitive
 * array; nothing is allocated unless the stack is new. Batches arrive on the consumer's delivery
 * thread while reports may be written from the shell, so every method synchronizes on this object
 * and a report works from a {@link #snapshot()} copy.
 */
final class StackAggregate extends ReportAggregate {

    private final StackTrie trie = new StackTrie();

    /** Samples that ended at each trie node, per counter; a counter's array is made at its first sample. */
    private final long[][] selfSamples;

    StackAggregate(SessionInfo info) {
        super(info, 0);
        this.selfSamples = new long[counterCount][];
    }

    /**
     * A sample whose ids fall outside the dictionary, whose symbol belongs to another image, or
     * whose call chain lies outside the batch's arrays or names a frame the dictionary does not
     * hold is rejected and counted, never aggregated.
     */
    @Override
    protected void count(SampleBatch batch, int imageCount) {
        for (int i = 0; i < batch.size; i++) {
            if (!fits(batch, i, imageCount)) {
                reject(batch, i, imageCount);
                continue;
            }
            String chain = chainMisfit(batch, i, imageCount);
            if (chain != null) {
                reject(i, chain);
                continue;
            }
            int node = trie.child(StackTrie.ROOT, batch.domain[i]);
            node = trie.child(node, batch.vcpu[i]);
            // A source that names threads (an import) gets a process level; for others it is -1, -1.
            int comm = batch.comm[i];
            node = trie.child(node, comm == SampleBatch.UNKNOWN ? SampleBatch.UNKNOWN : batch.pid[i]);
            node = trie.child(node, comm);
            // The chain lists callers innermost first; a flame graph stacks them outermost first.
            for (int c = batch.chainStart[i + 1] - 1; c >= batch.chainStart[i]; c--) {
                node = trie.child(node, StackTrie.codeFrame(batch.chainSymbol[c], batch.chainImage[c]));
            }
            node = trie.child(node, StackTrie.codeFrame(batch.symbol[i], batch.image[i]));
            countsOf(counterSlot(batch, i), node)[node]++;
            samples++;
        }
    }

    /** A consistent copy of everything counted so far. */
    synchronized Snapshot snapshot() {
        long[][] counts = new long[counterCount][];
        for (int c = 0; c < counterCount; c++) {
            counts[c] = selfSamples[c] == null ? new long[trie.size()] : Arrays.copyOf(selfSamples[c], trie.size());
        }
        Rejections.Books rejected = rejections.books();
        return new Snapshot(info, trie.copy(), counts, batches, samples, rejected.samples(),
                rejected.first(), summary());
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

    /** Why sample {@code i}'s call chain cannot be stacked, or null when it can. Allocates only for a bad chain. */
    private String chainMisfit(SampleBatch batch, int i, int imageCount) {
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

    /**
     * An immutable copy of a session's stacks, for rendering off the delivery thread.
     *
     * @param selfSamples per counter, the samples that ended at each node of {@code trie}
     */
    record Snapshot(SessionInfo info, StackTrie trie, long[][] selfSamples, long batches, long samples,
            long rejectedSamples, String firstRejection, SessionSummary summary) {
    }
}
