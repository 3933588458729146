package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.hyperprof.pipeline.SymbolTables;
import org.junit.jupiter.api.Test;

/**
 * Session ids are 63 random bits: positive, and two profilers started together (two JVMs, two
 * hosts) do not hand out the same ids, as the clock's millisecond at start made them do.
 */
class SessionIdTest {
    private static ConsumerFeed feed() {
        return new ConsumerFeed(new SymbolTables(), new FeedSettings(64, 4, Duration.ofSeconds(1)));
    }

    @Test
    void twoProfilersStartedTogetherHandOutDifferentPositiveIds() {
        ConsumerFeed one = feed();
        ConsumerFeed other = feed();
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            long a = one.nextSessionId();
            long b = other.nextSessionId();
            assertTrue(a > 0 && b > 0, a + " " + b);
            ids.add(a);
            ids.add(b);
        }
        assertEquals(2000, ids.size(), "no id given twice");
    }
}
