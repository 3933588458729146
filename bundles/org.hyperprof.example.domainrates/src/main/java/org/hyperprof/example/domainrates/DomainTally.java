package org.hyperprof.example.domainrates;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;

/**
 * One session's sample counts per domain and counter: those of the last batch, and those since the
 * session started.
 *
 * <p>Only the consumer's delivery thread touches it, so it has no locks. Counting a batch
 * allocates nothing: a host runs a handful of domains, so a linear scan over the domain ids seen so
 * far is all the "map" it needs, and its arrays grow only when a domain shows up for the first time.
 */
final class DomainTally {

    final SessionInfo session;
    private final int counters;

    /** Domain ids in the order they first appeared. */
    private int[] domains = new int[8];
    private int domainCount;

    /** Counts indexed {@code [domainIndex * counters + counter]}. */
    private long[] lastBatch;
    private long[] sinceStart;
    private final long[] lastBatchPerCounter;
    private final long[] sinceStartPerCounter;

    private final int[] counterSlots;

    private long batches;
    /** Samples naming a counter the session does not have: counted here, never attributed. */
    private long unattributed;

    DomainTally(SessionInfo session) {
        this.session = session;
        this.counters = Math.max(1, session.counters().size());
        this.counterSlots = session.counterSlots();
        this.lastBatch = new long[domains.length * counters];
        this.sinceStart = new long[domains.length * counters];
        this.lastBatchPerCounter = new long[counters];
        this.sinceStartPerCounter = new long[counters];
    }

    /** Counts a batch; afterwards {@link #inLastBatch} describes it and {@link #sinceStart} includes it. */
    void count(SampleBatch batch) {
        Arrays.fill(lastBatch, 0, domainCount * counters, 0);
        Arrays.fill(lastBatchPerCounter, 0);
        for (int i = 0; i < batch.size; i++) {
            // batch.counter holds the hardware counter's number; counterSlots maps it to the
            // position in session.counters() (a 970 event may sit on counter 1 alone).
            int counter = counterSlots[batch.counter[i] & 0xFF];
            if (counter < 0) {
                unattributed++;
                continue;
            }
            int slot = indexOf(batch.domain[i]) * counters + counter;
            lastBatch[slot]++;
            sinceStart[slot]++;
            lastBatchPerCounter[counter]++;
            sinceStartPerCounter[counter]++;
        }
        batches++;
    }

    int domainCount() {
        return domainCount;
    }

    /** The domain id of domain index {@code d} (0 .. domainCount-1). */
    int domain(int d) {
        return domains[d];
    }

    int counters() {
        return counters;
    }

    long inLastBatch(int d, int counter) {
        return lastBatch[d * counters + counter];
    }

    long sinceStart(int d, int counter) {
        return sinceStart[d * counters + counter];
    }

    long lastBatchTotal(int counter) {
        return lastBatchPerCounter[counter];
    }

    long sinceStartTotal(int counter) {
        return sinceStartPerCounter[counter];
    }

    long batches() {
        return batches;
    }

    long unattributed() {
        return unattributed;
    }

    private int indexOf(int domid) {
        for (int d = 0; d < domainCount; d++) {
            if (domains[d] == domid) {
                return d;
            }
        }
        if (domainCount == domains.length) {
            // A new domain: the only time counting allocates.
            domains = Arrays.copyOf(domains, domainCount * 2);
            lastBatch = Arrays.copyOf(lastBatch, domains.length * counters);
            sinceStart = Arrays.copyOf(sinceStart, domains.length * counters);
        }
        domains[domainCount] = domid;
        return domainCount++;
    }
}
