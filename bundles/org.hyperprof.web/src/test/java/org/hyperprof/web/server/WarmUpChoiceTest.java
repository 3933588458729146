package org.hyperprof.web.server;

import static org.hyperprof.api.store.StoredSession.COMPLETED;
import static org.hyperprof.api.store.StoredSession.INCOMPLETE;
import static org.hyperprof.api.store.StoredSession.RUNNING;
import static org.hyperprof.api.store.StoredSession.STOPPED;
import static org.hyperprof.web.server.ServeCommand.WARM_UP_MAX_SAMPLES;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * hp:serve warms the stored flame graph's path with one small graph: the ended session with the fewest samples,
 * at least one and at most {@link ServeCommand#WARM_UP_MAX_SAMPLES}; of equals the first listed (the newest).
 */
class WarmUpChoiceTest {

    private static StoredSession session(long id, String status, long samples) {
        Instant start = Instant.parse("2026-11-01T10:00:00Z");
        return new StoredSession(id, "host", "simulator", null, List.of(), "a test", "i386/p4", List.of("CPU_CLK:100000"),
                start, RUNNING.equals(status) ? null : start.plusSeconds(5), status, samples, null, samples, 0,
                List.of(), null, false);
    }

    static Stream<Arguments> choices() {
        return Stream.of(
                Arguments.of("the ended session with the fewest samples", 3L, List.of(session(1, COMPLETED, 5_000),
                        session(2, STOPPED, 900), session(3, INCOMPLETE, 40), session(4, COMPLETED, 41))),
                Arguments.of("a running session is not drawn however small", 2L, List.of(session(1, RUNNING, 10),
                        session(2, COMPLETED, 1_000))),
                Arguments.of("a session without samples is not drawn", 2L, List.of(session(1, COMPLETED, 0),
                        session(2, COMPLETED, 1))),
                Arguments.of("the warm-up's limit is the largest drawn", 1L, List.of(
                        session(1, COMPLETED, WARM_UP_MAX_SAMPLES), session(2, COMPLETED, WARM_UP_MAX_SAMPLES + 1))),
                Arguments.of("none under the limit: no warm-up", -1L, List.of(
                        session(1, COMPLETED, WARM_UP_MAX_SAMPLES + 1))),
                Arguments.of("of equals the first listed, the newest", 7L, List.of(session(7, COMPLETED, 50),
                        session(6, COMPLETED, 50))),
                Arguments.of("no session: no warm-up", -1L, List.of()),
                Arguments.of("only a running session: no warm-up", -1L, List.of(session(1, RUNNING, 100))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("choices")
    void theWarmUpDrawsTheSmallestEndedSession(String rule, long expected, List<StoredSession> sessions) {
        assertEquals(expected, ServeCommand.smallestEnded(sessions), rule);
    }
}
