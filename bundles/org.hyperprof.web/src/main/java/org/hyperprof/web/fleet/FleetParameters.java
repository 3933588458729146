package org.hyperprof.web.fleet;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.hyperprof.api.store.FleetSelection;

/**
 * The fleet page's query parameters, as {@code hp:fleet top} takes its options: {@code what} (symbols, images),
 * {@code hosts} (a,b), {@code pattern} (a host regular expression), {@code since} and {@code until} (an ISO date
 * or instant, UTC), {@code mode} (user, kernel, hypervisor), {@code event} and {@code limit}. Each is checked
 * here; what reaches the fleet store are values, which it quotes, never text joined into a query.
 */
public final class FleetParameters {
    /** Rows a page asks for when it says nothing. */
    public static final int DEFAULT_LIMIT = 30;
    /** Rows a page may ask for at most. */
    public static final int MAX_LIMIT = 1000;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:@-]{1,253}");
    private static final Pattern EVENT = Pattern.compile("[A-Za-z0-9_.]{1,64}");

    private final Function<String, String> parameter;

    /** @param parameter a parameter's value by name, or null when the request has none */
    public FleetParameters(Function<String, String> parameter) {
        this.parameter = parameter;
    }

    private String value(String name) {
        String v = parameter.apply(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** Whether the rows are symbols (the default) or images. */
    public boolean symbols() {
        String w = value("what");
        if (w == null || w.equals("symbols")) {
            return true;
        }
        if (w.equals("images")) {
            return false;
        }
        throw new IllegalArgumentException("parameter what: symbols or images, not '" + w + "'");
    }

    public int limit() {
        String l = value("limit");
        if (l == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(l);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("parameter limit: a whole number from 1 to " + MAX_LIMIT + ", not '" + l
                + "'");
    }

    /** One host's name (parameter {@code name}), as the hosts list gives it. */
    public String host(String name) {
        String h = value(name);
        if (h == null) {
            throw new IllegalArgumentException("parameter " + name + ": give a host's name (the hosts list has them)");
        }
        return checkedHost(name, h);
    }

    /** The samples the filters pick. */
    public FleetSelection selection() {
        List<String> hosts = new ArrayList<>();
        String list = value("hosts");
        if (list != null) {
            for (String h : list.split(",")) {
                if (!h.isBlank()) {
                    hosts.add(checkedHost("hosts", h.strip()));
                }
            }
        }
        String pattern = value("pattern");
        if (pattern != null && pattern.length() > 200) {
            throw new IllegalArgumentException("parameter pattern: at most 200 characters");
        }
        String event = value("event");
        if (event != null && !EVENT.matcher(event).matches()) {
            throw new IllegalArgumentException("parameter event: an event's name (CPU_CLK_UNHALTED), not '" + event
                    + "'");
        }
        return new FleetSelection(hosts, pattern, instant("since"), instant("until"), modes(), event);
    }

    private static String checkedHost(String parameter, String h) {
        if (!NAME.matcher(h).matches()) {
            throw new IllegalArgumentException("parameter " + parameter + ": a host's name (letters, digits, . _ : @ -),"
                    + " not '" + h + "'");
        }
        return h;
    }

    private List<Integer> modes() {
        List<Integer> modes = new ArrayList<>();
        String m = value("mode");
        if (m != null) {
            for (String word : m.split(",")) {
                int mode = switch (word.strip().toLowerCase(Locale.ROOT)) {
                    case "user" -> 0;
                    case "kernel" -> 1;
                    case "hypervisor" -> 2;
                    default -> throw new IllegalArgumentException("parameter mode: hypervisor, kernel and user,"
                            + " comma-separated, not '" + word.strip() + "'");
                };
                if (!modes.contains(mode)) {
                    modes.add(mode);
                }
            }
        }
        return modes;
    }

    private Instant instant(String name) {
        String t = value(name);
        if (t == null) {
            return null;
        }
        try {
            return t.length() == 10 ? LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant() : Instant.parse(t);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("parameter " + name + ": a date (2026-11-28) or an instant"
                    + " (2026-11-28T09:30:00Z), not '" + t + "'");
        }
    }
}
