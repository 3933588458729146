package org.hyperprof.store.duckdb;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.pipeline.Dispatcher;
import org.hyperprof.pipeline.PublishedSession;

/**
 * The profiler's part of a replay, for the store's tests: the recorded session started under its id
 * on a dispatcher the test owns, ended by its summary. Opening a live session is refused: these tests
 * replay only.
 */
final class ReplayingPublisher implements SessionPublisher {
    private final Dispatcher dispatcher;

    ReplayingPublisher(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public Channel open(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary,
            boolean live) {
        throw new UnsupportedOperationException("the test replays only");
    }

    @Override
    public Replay replay(SessionInfo recorded) {
        dispatcher.sessionStarted(recorded, true);
        return new PublishedSession(recorded.sessionId(), recorded.source(), dispatcher,
                TimeUnit.SECONDS.toNanos(5), (session, summarize) -> summarize.get());
    }
}
