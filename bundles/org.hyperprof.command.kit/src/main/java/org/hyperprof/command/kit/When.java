package org.hyperprof.command.kit;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Points in time as commands take them ({@code hp:sessions --since}, the fleet's ranges): a date
 * (2026-11-27), a local date and time (2026-11-27T14:30), an instant (2026-11-27T14:30:00Z) or an age
 * counted back from now (90s, 30m, 12h, 7d).
 */
public final class When {
    private static final Pattern AGE = Pattern.compile("(\\d{1,9})([smhd])");

    /** How the ages are written, for messages. */
    public static final String AGES = "90s, 30m, 12h, 7d";

    private When() {
    }

    /** The age {@code text} writes, or empty when it writes none. */
    public static Optional<Duration> age(String text) {
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

    /** The instant {@code text} names for option {@code option}, ages counted back from {@code now}. */
    public static Instant instant(String text, String option, Instant now, ZoneId zone) throws UsageException {
        String t = text.strip();
        Optional<Duration> age = age(t);
        if (age.isPresent()) {
            return now.minus(age.get());
        }
        try {
            if (t.endsWith("Z") || t.matches(".*[+-]\\d\\d:\\d\\d$")) {
                return OffsetDateTime.parse(t).toInstant();
            }
            if (t.contains("T")) {
                return LocalDateTime.parse(t).atZone(zone).toInstant();
            }
            return LocalDate.parse(t).atStartOfDay(zone).toInstant();
        } catch (DateTimeParseException e) {
            throw new UsageException(option + " takes a date (2026-11-27), a local date and time (2026-11-27T14:30),"
                    + " an instant (2026-11-27T14:30:00Z) or an age (" + AGES + "), not '" + text + "'");
        }
    }
}
