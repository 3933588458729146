package org.hyperprof.report.pprof;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.kit.Rejections;
import org.hyperprof.report.kit.ReportAggregate;

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
final class SessionStacks extends ReportAggregate {

    /** Callers kept per sample; deeper chains are cut there (and counted). */
    static final int MAX_CALLERS = 256;

    /** The Xenoprof mode of hypervisor samples; Xen counts any mode above it as hypervisor too. */
    static final int MODE_XEN = 2;

    private final long startedMillis;
    private final LocationTable locations;
    private final StackTable stacks;

    /** The stack key being built for the current sample: reused, grown only for a deeper chain. */
    private final int[] key = new int[StackTable.HEADER + 1 + MAX_CALLERS];

    private long cutChains;
    private String firstCutChain;
    /** The first and last sample time seen (nanoseconds of the source's clock), or UNKNOWN. */
    private long firstTime = SampleBatch.UNKNOWN;
    private long lastTime = SampleBatch.UNKNOWN;

    SessionStacks(SessionInfo info, long startedMillis, int exactLocationLimit, int stackLimit) {
        super(info, 1);
        this.startedMillis = startedMillis;
        this.locations = new LocationTable(exactLocationLimit);
        this.stacks = new StackTable(counterCount, stackLimit);
    }

    /** A caller entry that is invalid cuts the chain there: the sample counts with the callers before it. */
    @Override
    protected void count(SampleBatch batch, int imageCount) {
        int[] k = key;
        for (int i = 0; i < batch.size; i++) {
            if (!fits(batch, i, imageCount)) {
                reject(batch, i, imageCount);
                continue;
            }
            k[0] = batch.domain[i];
            k[1] = batch.vcpu[i];
            k[2] = Math.min(batch.mode[i], MODE_XEN);
            // A source that names threads (an import) splits its samples by thread; others do not.
            int comm = batch.comm[i];
            k[3] = comm == SampleBatch.UNKNOWN ? SampleBatch.UNKNOWN : batch.pid[i];
            k[4] = comm == SampleBatch.UNKNOWN ? SampleBatch.UNKNOWN : batch.tid[i];
            k[5] = comm;
            k[StackTable.HEADER] = locations.intern(batch.image[i], function(batch.symbol[i]), batch.pc[i]);
            int length = StackTable.HEADER + 1;
            int from = batch.chainStart[i];
            int to = batch.chainStart[i + 1];
            if (to > from) {
                length = appendCallers(batch, i, from, to, imageCount, length);
            }
            stacks.count(k, length, counterSlot(batch, i), batch.weight[i]);
            long t = batch.time[i];
            if (t != SampleBatch.UNKNOWN) {
                firstTime = firstTime == SampleBatch.UNKNOWN ? t : Math.min(firstTime, t);
                lastTime = Math.max(lastTime, t);
            }
            samples++;
        }
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

    /** A consistent copy of everything counted so far. */
    synchronized Snapshot snapshot() {
        Rejections.Books rejected = rejections.books();
        return new Snapshot(info, startedMillis, locations.copy(), stacks.copy(), batches, samples,
                rejected.samples(), rejected.batches(), rejected.first(), cutChains, firstCutChain, locations.folded(),
                stacks.cutSamples(), firstTime, lastTime, summary());
    }


    private void cutChain(SampleBatch batch, int i, String why) {
        cutChains++;
        if (firstCutChain == null) {
            firstCutChain = at(i, why);
        }
    }

    /**
     * An immutable copy of a session's counts, for writing a file off the delivery thread.
     *
     * @param foldedPcs   sample PCs counted at their function's location because the location table was full
     * @param cutStacks   samples counted under their leaf alone because the stack table was full
     * @param cutChains   samples whose call chain was cut at an invalid or too-deep caller
     * @param firstTime   the earliest sample time, or {@link SampleBatch#UNKNOWN} when no sample had one
     * @param lastTime    the latest sample time, or {@link SampleBatch#UNKNOWN}
     */
    record Snapshot(SessionInfo info, long startedMillis, LocationTable locations, StackTable stacks, long batches,
            long samples, long rejectedSamples, long rejectedBatches, String firstRejection, long cutChains,
            String firstCutChain, long foldedPcs, long cutStacks, long firstTime, long lastTime,
            SessionSummary summary) {
    }
}
