package org.hyperprof.store.duckdb;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An age as {@code hp:sessions --since} and {@code retention.age} write it: 90s, 30m, 12h, 7d. */
final class Age {
    private static final Pattern AGE = Pattern.compile("(\\d{1,9})([smhd])");

    /** How the ages are written, for messages. */
    static final String FORMS = "90s, 30m, 12h, 7d";

    private Age() {
    }

    /** The age {@code text} writes, or empty when it writes none. */
    static Optional<Duration> parse(String text) {
        Matcher m = AGE.matcher(text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        long n = Long.parseLong(m.group(1));
        return Optional.of(switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        });
    }
}
