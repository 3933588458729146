package org.hyperprof.study;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * The study's sample consumer, registered only while a study runs: it counts every session's
 * samples per domain, counter, mode class (hypervisor or not), image and symbol, and keeps each
 * session's summary. The profiler calls it on its delivery thread; the study reads it from its
 * own thread once the sessions ended ({@link #awaitEnded}), so every method locks the tally.
 */
final class SessionTally implements SampleConsumer {

    /** A sample's identity within its session, by the session dictionary's ids. */
    private record Key(int domain, int counter, boolean hypervisor, int image, int symbol) {
    }

    /** One session as the tally saw it. */
    static final class Seen {
        private final SessionInfo info;
        private final Map<Key, long[]> counts = new HashMap<>();
        private SessionSummary summary;

        private Seen(SessionInfo info) {
            this.info = info;
        }

        SessionInfo info() {
            return info;
        }

        /** The summary, or null when the session had not ended. */
        SessionSummary summary() {
            return summary;
        }

        boolean guestProfiler() {
            return StudyKeys.SOURCE_GUEST_PROFILER.equals(info.source());
        }

        boolean xenoprof() {
            return StudyKeys.SOURCE_XENOPROF.equals(info.source());
        }

        /** Samples of {@code domid} outside the hypervisor, any counter. */
        long guestModeSamples(int domid) {
            long n = 0;
            for (Map.Entry<Key, long[]> e : counts.entrySet()) {
                if (e.getKey().domain == domid && !e.getKey().hypervisor) {
                    n += e.getValue()[0];
                }
            }
            return n;
        }

        /**
         * The profile of {@code domid} on counter {@code counter}: its samples outside the
         * hypervisor (mode user or kernel), per image and symbol name.
         */
        Map<SymbolKey, Long> profile(int domid, int counter) {
            SessionDictionary names = info.dictionary();
            Map<SymbolKey, Long> out = new TreeMap<>();
            for (Map.Entry<Key, long[]> e : counts.entrySet()) {
                Key k = e.getKey();
                if (k.domain != domid || k.counter != counter || k.hypervisor) {
                    continue;
                }
                boolean none = k.symbol == SessionDictionary.NO_SYMBOL || SessionDictionary.isAddress(k.symbol);
                String symbol = none ? StudyKeys.NO_SYMBOLS : names.symbolName(k.symbol);
                out.merge(new SymbolKey(names.imageName(k.image), symbol), e.getValue()[0], Long::sum);
            }
            return out;
        }

        /** Samples this consumer missed in the session (its queue was full, or it failed), from the summary. */
        long missed() {
            if (summary == null) {
                return 0;
            }
            long missed = 0;
            for (ConsumerAccounting c : summary.consumers()) {
                if (StudyKeys.CONSUMER_NAME.equals(c.consumer())) {
                    missed += c.missed();
                }
            }
            return missed;
        }
    }

    private final Map<Long, Seen> sessions = new LinkedHashMap<>();

    @Override
    public synchronized void sessionStarted(SessionInfo session) {
        sessions.put(session.sessionId(), new Seen(session));
        notifyAll();
    }

    @Override
    public synchronized void samples(SampleBatch batch) {
        Seen seen = sessions.get(batch.sessionId);
        if (seen == null) {
            return; // a session that started before this study: not ours
        }
        for (int i = 0; i < batch.size; i++) {
            boolean hypervisor = batch.mode[i] >= CpuMode.HYPERVISOR.code();
            Key k = new Key(batch.domain[i], batch.counter[i] & 0xFF, hypervisor, batch.image[i], batch.symbol[i]);
            seen.counts.computeIfAbsent(k, x -> new long[1])[0]++;
        }
    }

    @Override
    public synchronized void sessionEnded(SessionSummary summary) {
        Seen seen = sessions.get(summary.sessionId());
        if (seen != null) {
            seen.summary = summary;
        }
        notifyAll();
    }

    /** Forgets every session: the next run starts empty. */
    synchronized void clear() {
        sessions.clear();
    }

    /**
     * Waits until session {@code sessionId} (the one the profile returned) and every other session
     * that started have ended, so all their batches were delivered, or {@code timeout} passed.
     * Deliveries lag behind the profile's return: the first may not even have started yet.
     *
     * @return the sessions in start order; those still running have no summary
     */
    synchronized List<Seen> awaitEnded(long sessionId, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (running() > 0 || !ended(sessionId)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return new ArrayList<>(sessions.values());
    }

    private boolean ended(long sessionId) {
        Seen s = sessions.get(sessionId);
        return s != null && s.summary != null;
    }

    private int running() {
        int n = 0;
        for (Seen s : sessions.values()) {
            if (s.summary == null) {
                n++;
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return "the study's sample tally (" + sessions.size() + " sessions)";
    }
}
