package org.hyperprof.web.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;

import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;

/**
 * hp:serve warms the stored flame graph's path with one small graph: the ended session with the fewest samples,
 * at least one and at most {@link ServeCommand#WARM_UP_MAX_SAMPLES}.
 */
class WarmUpChoiceTest {

    private static StoredSession session(long id, String status, long samples) {
        Instant start = Instant.parse("2026-11-01T10:00:00Z");
        return new StoredSession(id, "host", "simulator", null, List.of(), "a test", "i386/p4", List.of("CPU_CLK:100000"),
                start, StoredSession.RUNNING.equals(status) ? null : start.plusSeconds(5), status, samples, null,
                samples, 0, List.of(), null, false);
    }

    @Test
    void theEndedSessionWithTheFewestSamplesIsDrawn() {
        assertEquals(3, ServeCommand.smallestEnded(List.of(session(1, StoredSession.COMPLETED, 5_000),
                session(2, StoredSession.STOPPED, 900), session(3, StoredSession.INCOMPLETE, 40),
                session(4, StoredSession.COMPLETED, 41))));
    }

    @Test
    void aRunningSessionIsNotDrawnHoweverSmall() {
        assertEquals(2, ServeCommand.smallestEnded(List.of(session(1, StoredSession.RUNNING, 10),
                session(2, StoredSession.COMPLETED, 1_000))));
    }

    @Test
    void aSessionWithoutSamplesIsNotDrawn() {
        assertEquals(2, ServeCommand.smallestEnded(List.of(session(1, StoredSession.COMPLETED, 0),
                session(2, StoredSession.COMPLETED, 1))));
    }

    @Test
    void theWarmUpsLimitIsTheLargestDrawn() {
        assertEquals(1, ServeCommand.smallestEnded(List.of(session(1, StoredSession.COMPLETED,
                ServeCommand.WARM_UP_MAX_SAMPLES), session(2, StoredSession.COMPLETED,
                ServeCommand.WARM_UP_MAX_SAMPLES + 1))));
        assertEquals(-1, ServeCommand.smallestEnded(List.of(session(1, StoredSession.COMPLETED,
                ServeCommand.WARM_UP_MAX_SAMPLES + 1))));
    }

    @Test
    void ofEqualSessionsTheFirstListedTheNewestIsDrawn() {
        assertEquals(7, ServeCommand.smallestEnded(List.of(session(7, StoredSession.COMPLETED, 50),
                session(6, StoredSession.COMPLETED, 50))));
    }

    @Test
    void noSessionNoWarmUp() {
        assertEquals(-1, ServeCommand.smallestEnded(List.of()));
        assertEquals(-1, ServeCommand.smallestEnded(List.of(session(1, StoredSession.RUNNING, 100))));
    }
}
