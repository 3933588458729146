package org.hyperprof.profiler;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.PublishedSession;

/**
 * The profiler as a {@link SessionPublisher}: other sample sources (a perf.data import, a live
 * {@code perf record}) feed the same consumers, one session at a time. Opening a published session
 * while a simulated one runs is refused, and so is starting a simulated one while a published one
 * is open (the opcontrol steps and the one-shot profile check {@link ConsumerFeed#published}).
 */
final class PublishedSessions {

    private final ConsumerFeed feed;

    PublishedSessions(ConsumerFeed feed) {
        this.feed = feed;
    }

    /** {@link SessionPublisher#open}. */
    SessionPublisher.Channel open(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary, boolean live) {
        if (source == null || source.isBlank() || hostName == null || counters == null || domains == null
                || dictionary == null) {
            throw new IllegalArgumentException("a published session needs a source name, a host name, its counters,"
                    + " its domains and its dictionary (got source " + source + ", host " + hostName + ", counters "
                    + counters + ", domains " + domains + ", dictionary " + dictionary + ")");
        }
        synchronized (feed.lock) {
            checkNoneOpen(source);
            PublishedSession p = feed.openChannel(source, hostName, cpuType, cpuName, mhz, counters, domains,
                    dictionary, false, !live, this::endPublished);
            feed.published = p;
            return p;
        }
    }

    /** {@link SessionPublisher#replay}: a recorded session, under its own id, from a source that can wait. */
    SessionPublisher.Replay replay(SessionInfo recorded) {
        if (recorded == null) {
            throw new IllegalArgumentException("a replay needs the recorded session's info");
        }
        String what = "the replay of session " + recorded.sessionId();
        synchronized (feed.lock) {
            checkNoneOpen(what);
            PublishedSession p = feed.openChannel(recorded, true, this::endPublished);
            feed.published = p;
            return p;
        }
    }

    /** Refuses a new published session while another session feeds the consumers; under the lock. */
    private void checkNoneOpen(String source) {
        Session s = feed.session;
        if (s != null || feed.oneShotRunning) {
            throw new IllegalStateException("a simulated session" + (s != null ? " (session " + s.id + ")" : "")
                    + " is running, and the consumers see one session at a time; end it first (opcontrol"
                    + " --shutdown as the primary, or wait for the one-shot profile), then start " + source);
        }
        PublishedSession open = feed.published;
        if (open != null) {
            throw new IllegalStateException("session " + open.sessionId() + " fed by " + open.source()
                    + " is still open; the consumers see one session at a time: wait until it ends, then start "
                    + source);
        }
    }

    /** Ends a published session once: builds its summary under the lock and keeps it as the last one. */
    private SessionSummary endPublished(PublishedSession p, Supplier<SessionSummary> summarize) {
        synchronized (feed.lock) {
            SessionSummary done = p.summary();
            if (done != null) {
                return done;
            }
            SessionSummary s = summarize.get();
            if (feed.published == p) {
                feed.published = null;
            }
            feed.lastSummary = s;
            return s;
        }
    }
}
