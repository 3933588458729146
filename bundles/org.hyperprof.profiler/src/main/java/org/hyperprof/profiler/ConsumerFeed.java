package org.hyperprof.profiler;

import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.Dispatcher;
import org.hyperprof.pipeline.PublishedSession;
import org.hyperprof.pipeline.SymbolTables;

/**
 * What the profiler's parts share: the consumers (the pipeline's {@link Dispatcher}), the symbol
 * tables, the batch settings, and which session feeds the consumers now. The consumers see one
 * session at a time: the simulated one the opcontrol steps run, a published one (a perf.data
 * import, a live recording), or a one-shot profile's (with the guests' own profilers' session
 * beside it).
 *
 * <p>{@link #lock} is the profiler's lock (opcontrol steps, session start and end); the fields
 * below it are read and written under it, except where they say otherwise.
 */
final class ConsumerFeed {

    final Object lock = new Object();
    final Dispatcher dispatcher;
    /** The pipeline's symbol tables, shared with every other source. */
    final SymbolTables symbolTables;
    /** Batch size and session end wait, read as each session starts and ends (a change applies from then). */
    private volatile FeedSettings settings;
    /**
     * Where session ids come from: 63 random bits, so that sessions of different processes and
     * hosts (a store, a fleet, an archive restored elsewhere) never share an id, as the clock's
     * millisecond at start did for two JVMs started together.
     */
    private final SecureRandom sessionIds;

    /** The simulated session the daemons feed, or null; read without the lock by VIRQ handlers. */
    volatile Session session;
    /** The session a publisher feeds, or null. */
    PublishedSession published;
    /** A one-shot profile runs: no opcontrol step and no published session may start. */
    boolean oneShotRunning;
    /** The session of the guests' own profilers during a one-shot profile, or null. */
    GuestSession guestSession;
    /** The summary of the session that ended last; read without the lock. */
    volatile SessionSummary lastSummary;

    ConsumerFeed(SymbolTables symbolTables, FeedSettings settings) {
        this.symbolTables = symbolTables;
        this.settings = settings;
        this.dispatcher = new Dispatcher(settings.queueCapacity());
        this.sessionIds = new SecureRandom();
    }

    /**
     * The profiler stops: the open published session and the guests' session of a one-shot profile,
     * if any, end now with {@code reason} (outside the lock: ending waits for the consumers).
     */
    void endOpenSessions(String reason) {
        PublishedSession open;
        GuestSession guests;
        synchronized (lock) {
            open = published;
            guests = guestSession;
        }
        if (open != null) {
            open.endNow(reason);
        }
        if (guests != null) {
            guests.abort(reason);
        }
    }

    /** Samples per batch handed to the consumers. */
    int batchSize() {
        return settings.batchSize();
    }

    /** The settings in force now. */
    FeedSettings settings() {
        return settings;
    }

    /** How long the end of a session waits for the consumers to take what is queued for them. */
    long endTimeoutNanos() {
        return settings.endTimeoutNanos();
    }

    /**
     * New settings while the profiler runs: the batch size and end wait apply from the next session
     * (a running one keeps its batches), the queue capacity from the next batch.
     */
    void settings(FeedSettings newSettings) {
        dispatcher.queueCapacity(newSettings.queueCapacity());
        settings = newSettings;
    }

    /** A new session's id: positive, 63 random bits. */
    long nextSessionId() {
        long id;
        do {
            id = sessionIds.nextLong() >>> 1;
        } while (id == 0);
        return id;
    }

    /**
     * Starts a published session for every consumer (the path of a publisher's session, and of the
     * guests' own profilers' session). The caller holds the lock and has checked that it may start.
     */
    PublishedSession openChannel(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary,
            boolean groundTruth, boolean canWait, PublishedSession.Ending ending) {
        long id = nextSessionId();
        return openChannel(new SessionInfo(id, source, hostName, cpuType == null ? "unknown" : cpuType,
                cpuName == null ? "" : cpuName, mhz, counters, domains, groundTruth, dictionary), canWait, ending);
    }

    /** Starts a published session that is {@code info} (a replay keeps its recorded id); as the other. */
    PublishedSession openChannel(SessionInfo info, boolean canWait, PublishedSession.Ending ending) {
        PublishedSession p = new PublishedSession(info.sessionId(), info.source(), dispatcher, endTimeoutNanos(),
                ending);
        dispatcher.sessionStarted(info, canWait);
        return p;
    }
}
