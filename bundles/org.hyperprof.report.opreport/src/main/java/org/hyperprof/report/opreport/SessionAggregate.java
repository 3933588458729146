package org.hyperprof.report.opreport;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * What opreport keeps of one session: sample counts per (domain, counter, image) and per
 * (domain, counter, symbol), the batches and samples it took or rejected, and the summary once the
 * session ends.
 *
 * <p>Batches arrive on the consumer's delivery thread while reports may be rendered from the shell;
 * every method synchronizes on this object, and a report works from a {@link #snapshot()} copy so
 * that rendering never holds up aggregation for longer than two array copies.
 */
final class SessionAggregate {

    /** Domain ids are Xen's {@code domid_t}: 16 bits (the idle domain is 0x7FFF). */
    static final int MAX_DOMID = 0xFFFF;

    /** Xenoprof carries the counter index in a byte-sized {@code event} field. */
    static final int MAX_COUNTERS = 0x100;

    final SessionInfo info;
    private final int counterCount;
    private final LongIntCounts imageSamples = new LongIntCounts(64);
    private final LongIntCounts symbolSamples = new LongIntCounts(1024);

    /**
     * The image each symbol belongs to, copied from the dictionary as new symbol ids appear: the
     * per-sample consistency check then reads a local int array, never the dictionary service.
     */
    private int[] symbolImage = new int[256];
    private int knownSymbols;

    private long batches;
    private long samples;
    private long rejectedSamples;
    private long rejectedBatches;
    private String firstRejection;
    private SessionSummary summary;

    SessionAggregate(SessionInfo info) {
        if (info.counters().size() > MAX_COUNTERS) {
            throw new IllegalArgumentException("session " + info.sessionId() + " has " + info.counters().size()
                    + " counters; Xenoprof's event field holds at most " + MAX_COUNTERS);
        }
        this.info = info;
        this.counterCount = info.counters().size();
    }

    long sessionId() {
        return info.sessionId();
    }

    /**
     * Packs (domain, counter, id) into one non-negative key: domain in bits 55..40, counter in
     * 39..32, the image id or symbol slot in 31..0.
     */
    static long key(int domain, int counter, int id) {
        return ((long) domain << 40) | ((long) counter << 32) | (id & 0xFFFFFFFFL);
    }

    static int keyDomain(long key) {
        return (int) (key >>> 40);
    }

    static int keyCounter(long key) {
        return (int) (key >>> 32) & 0xFF;
    }

    static int keyId(long key) {
        return (int) key;
    }

    /**
     * The symbol map's id for a sample: the symbol id, or for a sample without symbol the
     * complement of its image id, so that each image keeps its own "(no symbols)" row.
     */
    static int symbolSlot(int symbol, int image) {
        return symbol >= 0 ? symbol : ~image;
    }

    /**
     * Counts a batch. A sample whose ids fall outside the dictionary (or whose symbol belongs to
     * another image) is rejected and counted, never aggregated; the rest of the batch still counts.
     */
    synchronized void accept(SampleBatch batch) {
        SessionDictionary dictionary = info.dictionary();
        int imageCount = dictionary.imageCount();
        learnSymbols(dictionary);
        int symbolCount = knownSymbols;
        long rejectedBefore = rejectedSamples;
        int[] domain = batch.domain;
        byte[] counter = batch.counter;
        byte[] mode = batch.mode;
        int[] image = batch.image;
        int[] symbol = batch.symbol;
        for (int i = 0; i < batch.size; i++) {
            int d = domain[i];
            int c = counter[i];
            int img = image[i];
            int sym = symbol[i];
            if (d < 0 || d > MAX_DOMID || c < 0 || c >= counterCount || mode[i] < 0 || img < 0 || img >= imageCount
                    || sym < SessionDictionary.NO_SYMBOL || sym >= symbolCount
                    || (sym >= 0 && symbolImage[sym] != img)) {
                reject(batch, i, imageCount, symbolCount);
                continue;
            }
            imageSamples.add(key(d, c, img), 1);
            symbolSamples.add(key(d, c, symbolSlot(sym, img)), 1);
            samples++;
        }
        batches++;
        if (rejectedSamples > rejectedBefore) {
            rejectedBatches++;
        }
    }

    /** Counts a batch that could not be read at all (null, or for no session this consumer knows). */
    synchronized void rejectBatch(String why, int size) {
        rejectedBatches++;
        rejectedSamples += Math.max(0, size);
        if (firstRejection == null) {
            firstRejection = why;
        }
    }

    synchronized void end(SessionSummary ended) {
        this.summary = ended;
    }

    synchronized boolean ended() {
        return summary != null;
    }

    /** A consistent copy of everything counted so far. */
    synchronized Snapshot snapshot() {
        return new Snapshot(info, imageSamples.copy(), symbolSamples.copy(), batches, samples, rejectedSamples,
                rejectedBatches, firstRejection, summary);
    }

    /** Samples aggregated so far for (domain, counter, image). */
    synchronized int imageSamples(int domain, int counter, int image) {
        return imageSamples.get(key(domain, counter, image));
    }

    /** Samples aggregated so far for (domain, counter, symbol); symbol -1 needs its image. */
    synchronized int symbolSamples(int domain, int counter, int symbol, int image) {
        return symbolSamples.get(key(domain, counter, symbolSlot(symbol, image)));
    }

    private void learnSymbols(SessionDictionary dictionary) {
        int count = dictionary.symbolCount();
        if (count <= knownSymbols) {
            return;
        }
        if (count > symbolImage.length) {
            symbolImage = Arrays.copyOf(symbolImage, Math.max(count, symbolImage.length * 2));
        }
        for (int s = knownSymbols; s < count; s++) {
            symbolImage[s] = dictionary.symbolImage(s);
        }
        knownSymbols = count;
    }

    private void reject(SampleBatch batch, int i, int imageCount, int symbolCount) {
        rejectedSamples++;
        if (firstRejection != null) {
            return;
        }
        int d = batch.domain[i];
        int c = batch.counter[i];
        int img = batch.image[i];
        int sym = batch.symbol[i];
        String why;
        if (d < 0 || d > MAX_DOMID) {
            why = "domain " + d + " is not a 16-bit domain id";
        } else if (c < 0 || c >= counterCount) {
            why = "counter " + c + " is not one of the session's " + counterCount + " counters";
        } else if (batch.mode[i] < 0) {
            why = "mode " + batch.mode[i] + " is negative (Xenoprof modes are 0 user, 1 kernel, 2 xen)";
        } else if (img < 0 || img >= imageCount) {
            why = "image id " + img + " is outside the dictionary's " + imageCount + " images";
        } else if (sym < SessionDictionary.NO_SYMBOL || sym >= symbolCount) {
            why = "symbol id " + sym + " is outside the dictionary's " + symbolCount + " symbols";
        } else {
            why = "symbol id " + sym + " belongs to image " + symbolImage[sym] + ", but the sample names image "
                    + img;
        }
        firstRejection = "batch " + (batches + 1) + " sample " + i + ": " + why;
    }

    /** An immutable copy of a session's counts, for rendering off the delivery thread. */
    record Snapshot(SessionInfo info, LongIntCounts imageSamples, LongIntCounts symbolSamples, long batches,
            long samples, long rejectedSamples, long rejectedBatches, String firstRejection,
            SessionSummary summary) {
    }
}
