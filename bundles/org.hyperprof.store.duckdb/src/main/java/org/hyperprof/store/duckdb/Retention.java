package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;

/**
 * How many sessions the store keeps and for how long ({@code retention.count}, {@code retention.age}):
 * after each session is stored, the oldest beyond either limit are deleted ({@link Pruning}), never one
 * still running nor one the fleet's outbox has not shipped.
 *
 * @param count at most this many sessions kept, the newest; 0 for no limit
 * @param age   sessions started longer ago are deleted; null for no limit
 * @param ageText how {@code age} was written (30d), for the line that says what was deleted
 */
record Retention(int count, Duration age, String ageText) {
    static final Retention NONE = new Retention(0, null, "");

    Retention {
        if (count < 0) {
            throw new IllegalArgumentException("retention.count is 0 (no limit) or more, not " + count);
        }
    }

    /**
     * The settings' limits. One written wrong says so on {@code problems} and limits nothing: a typo in a
     * retention setting must neither stop the store nor delete what it did not mean to.
     */
    static Retention of(StoreConfiguration c, PrintStream problems) {
        int count = c.retention_count();
        if (count < 0) {
            problems.println("hyperprof: retention.count is 0 (no limit) or more, not " + count + "; no count limit");
            count = 0;
        }
        String text = c.retention_age().strip();
        Optional<Duration> age = text.isEmpty() ? Optional.empty() : Age.parse(text);
        if (!text.isEmpty() && age.isEmpty()) {
            problems.println("hyperprof: retention.age takes an age (" + Age.FORMS + ") or nothing (no limit), not '"
                    + text + "'; no age limit");
        }
        return new Retention(count, age.orElse(null), text);
    }

    /** Whether it limits anything. */
    boolean limits() {
        return count > 0 || age != null;
    }
}
