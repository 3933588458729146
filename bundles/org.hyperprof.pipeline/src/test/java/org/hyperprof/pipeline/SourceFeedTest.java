package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.source.SampleFeed;
import org.hyperprof.api.source.SampleSource;
import org.hyperprof.testing.sample.Sessions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a source says of its samples through the feed reaches the consumers' batches as it said it. */
class SourceFeedTest {

    private final Dispatcher dispatcher = new Dispatcher(8);
    private final Sessions consumer = new Sessions();
    private final AtomicLong ids = new AtomicLong();
    /** The profiler's part: each session opened on the dispatcher, ended when the source's read ends. */
    private final SessionPublisher publisher = new SessionPublisher() {
        @Override
        public Channel open(String source, String host, String cpuType, String cpuName, long mhz,
                List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary,
                boolean live) {
            long id = ids.incrementAndGet();
            return started(new SessionInfo(id, source, host, cpuType, cpuName, mhz, counters, domains, false,
                    dictionary), !live);
        }

        @Override
        public Replay replay(SessionInfo recorded) {
            return started(recorded, true);
        }

        private PublishedSession started(SessionInfo info, boolean canWait) {
            dispatcher.sessionStarted(info, canWait);
            return new PublishedSession(info.sessionId(), info.source(), dispatcher, TimeUnit.SECONDS.toNanos(5),
                    (session, summarize) -> summarize.get());
        }
    };
    private final SourceRunner runner = new SourceRunner(publisher);

    SourceFeedTest() {
        dispatcher.add("sessions", consumer);
    }

    @AfterEach
    void stop() {
        dispatcher.stopAll(1000);
    }

    /** A source of one image and one symbol whose read is the given steps. */
    private SessionSummary read(java.util.function.BiConsumer<SampleFeed, int[]> steps) throws Exception {
        runner.addSource(new SampleSource() {
            @Override
            public String description() {
                return "a test source";
            }

            @Override
            public void read(Path file, SampleFeed feed) {
                int image = feed.image("app", ImageKind.USER, 0);
                steps.accept(feed, new int[] {image, feed.symbol("work", image)});
            }
        }, Map.of(SampleSource.NAME, "test"));
        return runner.read("test", Path.of("samples.test"));
    }

    private List<Integer> flags(SessionSummary s) {
        List<Integer> out = new ArrayList<>();
        for (SampleBatch b : consumer.batches.get(s.sessionId())) {
            for (int i = 0; i < b.size; i++) {
                out.add((int) b.flags[i]);
            }
        }
        return out;
    }

    @Test
    void aSourceSetsASamplesFlagsThroughTheFeedAndASampleHasNoneUnlessSet() throws Exception {
        SessionSummary s = read((feed, ids) -> {
            feed.sample(0, 0, 0, 0, 0x1000, ids[0], ids[1], 1, -1, -1, -1, -1);
            feed.flag(SampleBatch.CHAIN_FROM_PC);
            feed.caller(0x2000, ids[0], ids[1], 0);
            feed.end();
            feed.sample(0, 0, 0, 0, 0x1000, ids[0], ids[1], 1, -1, -1, -1, -1);
            feed.flag(SampleBatch.MODE_UNKNOWN);
            feed.flag(SampleBatch.CHAIN_FROM_PC);
            feed.end();
            feed.sample(0, 0, 0, 0, 0x1000, ids[0], ids[1], 1, -1, -1, -1, -1);
            feed.end();
        });
        assertEquals(3, s.accounting().delivered());
        assertEquals(List.of(SampleBatch.CHAIN_FROM_PC, SampleBatch.MODE_UNKNOWN | SampleBatch.CHAIN_FROM_PC, 0),
                flags(s));
    }

    @Test
    void aFlagThatIsNotASamplesIsRefusedNamingTheFlagsThereAre() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read((feed, ids) -> {
            feed.sample(0, 0, 0, 0, 0x1000, ids[0], ids[1], 1, -1, -1, -1, -1);
            feed.flag(4);
        }));
        assertEquals("test set flag 4 on a sample; a sample's flags are CHAIN_FROM_PC (1) and MODE_UNKNOWN (2)",
                e.getMessage());
    }
}
