package org.hyperprof.store.duckdb;

import java.time.Duration;
import java.util.Optional;

import org.hyperprof.command.kit.When;

/** An age as {@code hp:sessions --since} and {@code retention.age} write it: 90s, 30m, 12h, 7d. */
final class Age {
    /** How the ages are written, for messages. */
    static final String FORMS = When.AGES;

    private Age() {
    }

    /** The age {@code text} writes, or empty when it writes none. */
    static Optional<Duration> parse(String text) {
        return When.age(text);
    }
}
