package org.hyperprof.report.kit;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * What a report keeps of one session, around its own counts: the session, its counters by
 * Xenoprof's event number, the check of each sample against the session (domain, vCPU, counter,
 * mode, and the frame against the dictionary), the books of batches and samples taken or rejected,
 * and the summary once the session ends. A report's aggregate counts the samples that check out in
 * {@link #count}.
 *
 * <p>Batches arrive on the consumer's delivery thread while reports may be made from the shell at
 * any time, so every method synchronizes on the aggregate (a subclass's snapshot too, so that it
 * is a consistent copy). Per sample, the check reads primitive arrays and allocates nothing; only a
 * first rejection makes its reason.
 */
public abstract class ReportAggregate {

    /** Domain ids are Xen's {@code domid_t}: 16 bits (the idle domain is 0x7FFF). */
    public static final int MAX_DOMID = 0xFFFF;

    /** Xenoprof carries the counter index in a byte-sized {@code event} field. */
    public static final int MAX_COUNTERS = 0x100;

    protected final SessionInfo info;
    protected final int counterCount;
    /** Counter number (Xenoprof's event field) to position in the session's counter list. */
    protected final int[] counterSlots;

    /** The image of each symbol the dictionary has named, to check every frame against. */
    protected final SymbolImages symbols = new SymbolImages();

    protected final Rejections rejections = new Rejections();
    /** Batches and samples taken so far (rejected samples not among them). */
    protected long batches;
    protected long samples;
    private SessionSummary summary;

    /**
     * @param minCounters the fewest counters the report can do with (0 or 1)
     * @throws IllegalArgumentException when the session has fewer, or more than {@value #MAX_COUNTERS}
     */
    protected ReportAggregate(SessionInfo info, int minCounters) {
        int counters = info.counters().size();
        if (counters < minCounters || counters > MAX_COUNTERS) {
            throw new IllegalArgumentException("session " + info.sessionId() + " has " + counters + " counters; this"
                    + " report takes " + (minCounters > 0 ? "at least " + minCounters + " and " : "") + "at most "
                    + MAX_COUNTERS + " (Xenoprof's event field is a byte)");
        }
        this.info = info;
        this.counterCount = counters;
        this.counterSlots = info.counterSlots();
    }

    /**
     * Counts a batch: what the dictionary named since the last batch is learned first, and the
     * batch counts as rejected when any of its samples was.
     */
    public final synchronized void accept(SampleBatch batch) {
        SessionDictionary dictionary = info.dictionary();
        int imageCount = dictionary.imageCount();
        symbols.learn(dictionary);
        long rejectedBefore = rejections.samples();
        count(batch, imageCount);
        batches++;
        rejections.batchDone(rejectedBefore);
    }

    /**
     * Counts each sample of {@code batch} that {@link #fits}, and {@link #reject}s the others (the
     * rest of the batch still counts); adds the taken ones to {@link #samples}. Called under the
     * aggregate's lock.
     *
     * @param imageCount the images of the session's dictionary
     */
    protected abstract void count(SampleBatch batch, int imageCount);

    public final synchronized void end(SessionSummary ended) {
        this.summary = ended;
    }

    /** The session's summary, or null while it runs. */
    protected final synchronized SessionSummary summary() {
        return summary;
    }

    /** The position of sample {@code i}'s counter in the session's counter list (out of range: not one of them). */
    protected final int counterSlot(SampleBatch batch, int i) {
        return counterSlots[batch.counter[i] & 0xFF];
    }

    /**
     * Whether sample {@code i} checks out: a 16-bit domain, a vCPU and a mode that are not negative,
     * one of the session's counters, and a frame (image, symbol) the dictionary holds together.
     */
    protected final boolean fits(SampleBatch batch, int i, int imageCount) {
        int d = batch.domain[i];
        int c = counterSlot(batch, i);
        return d >= 0 && d <= MAX_DOMID && batch.vcpu[i] >= 0 && c >= 0 && c < counterCount && batch.mode[i] >= 0
                && symbols.holds(batch.image[i], batch.symbol[i], imageCount);
    }

    /** Counts sample {@code i}, which does not {@link #fits fit}, as rejected, with why when it is the first. */
    protected final void reject(SampleBatch batch, int i, int imageCount) {
        if (rejections.count()) {
            rejections.first(batches + 1, i, misfit(batch, i, imageCount));
        }
    }

    /** Counts sample {@code i} as rejected for a report's own reason. */
    protected final void reject(int i, String why) {
        if (rejections.count()) {
            rejections.first(batches + 1, i, why);
        }
    }

    /** Where a sample of the batch being counted is, for a report's first-problem notes: {@code batch 3 sample 7: why}. */
    protected final String at(int i, String why) {
        return "batch " + (batches + 1) + " sample " + i + ": " + why;
    }

    /** Why sample {@code i} does not {@link #fits fit}, in the order {@link #fits} checks. */
    private String misfit(SampleBatch batch, int i, int imageCount) {
        int d = batch.domain[i];
        int c = counterSlot(batch, i);
        if (d < 0 || d > MAX_DOMID) {
            return "domain " + d + " is not a 16-bit domain id";
        }
        if (batch.vcpu[i] < 0) {
            return "vcpu " + batch.vcpu[i] + " is negative (vCPU ids count from 0)";
        }
        if (c < 0 || c >= counterCount) {
            return "counter " + batch.counter[i] + " is not one of the session's " + counterCount + " counters "
                    + info.counters().stream().map(k -> String.valueOf(k.counter())).toList();
        }
        if (batch.mode[i] < 0) {
            return "mode " + batch.mode[i] + " is negative (Xenoprof modes are 0 user, 1 kernel, 2 xen)";
        }
        return symbols.misfit(batch.image[i], batch.symbol[i], imageCount);
    }
}
