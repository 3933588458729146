package org.hyperprof.example.domainrates;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.NetworkExperiment;
import org.hyperprof.testing.sample.TestDictionary;

/**
 * Sessions and batches for the tests: a 2000 MHz host with dom0, a domU and a domain whose name needs quoting.
 * The example never looks names up: an empty dictionary will do.
 */
final class Sessions {
    static final CounterConfig CYCLES = NetworkExperiment.CYCLES_100000;
    static final CounterConfig INSTRUCTIONS = NetworkExperiment.INSTRUCTIONS_50000;

    private Sessions() {
    }

    static SessionInfo session(long id, CounterConfig... counters) {
        return new SessionInfo(id, "simulator", "test-host", "i386/p6", "PIII", 2000, List.of(counters),
                Map.of(0, "Domain-0", 1, "domU", 2, "web, \"front\""), false, new TestDictionary());
    }

    /** A batch: {@code domainsAndCounters} holds pairs (domain, counter), one pair per sample. */
    static SampleBatch batch(long session, int... domainsAndCounters) {
        int n = domainsAndCounters.length / 2;
        int[] domain = new int[n];
        byte[] counter = new byte[n];
        for (int i = 0; i < n; i++) {
            domain[i] = domainsAndCounters[2 * i];
            counter[i] = (byte) domainsAndCounters[2 * i + 1];
        }
        return new SampleBatch(session, n, domain, new int[n], new byte[n], counter, new long[n], new int[n],
                new int[n], new long[n], new long[n], new int[n], new int[n], new int[n], new byte[n],
                new int[n + 1], new long[0],
                new int[0], new int[0], new byte[0]);
    }

    /** {@code times} samples of {@code domain} on counter 0, then {@code others} samples of domain 1. */
    static SampleBatch repeated(long session, int domain, int times, int others) {
        int[] pairs = new int[2 * (times + others)];
        for (int i = 0; i < times + others; i++) {
            pairs[2 * i] = i < times ? domain : 1;
        }
        return batch(session, pairs);
    }

    /** One sample on counter 0 for each of the domains 0 .. {@code domains}-1: a batch of that many CSV lines. */
    static SampleBatch manyDomains(long session, int domains) {
        int[] pairs = new int[2 * domains];
        for (int d = 0; d < domains; d++) {
            pairs[2 * d] = d;
        }
        return batch(session, pairs);
    }

    static SessionSummary ended(long session, long simulatedCycles) {
        return new SessionSummary(session, Accounting.ZERO, List.of(), List.of(), null, null, simulatedCycles,
                SessionSummary.COMPLETED);
    }
}
