package org.hyperprof.web.fleet;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.hyperprof.api.store.FleetSelection;
import org.hyperprof.web.http.BadParameter;
import org.hyperprof.web.http.Params;

/**
 * The fleet page's query parameters, as {@code hp:fleet top} takes its options: {@code what} (symbols, images),
 * {@code hosts} (a,b), {@code pattern} (a host regular expression), {@code since} and {@code until} (an ISO date
 * or instant, UTC), {@code mode} (user, kernel, hypervisor), {@code event} and {@code limit}. Each is checked
 * here; what reaches the fleet store are values, which it quotes, never text joined into a query.
 */
final class FleetParameters {
    /** Rows a page asks for when it says nothing. */
    static final int DEFAULT_LIMIT = 30;
    /** Rows a page may ask for at most. */
    static final int MAX_LIMIT = 1000;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:@-]{1,253}");
    private static final Pattern EVENT = Pattern.compile("[A-Za-z0-9_.]{1,64}");

    private final Params params;

    FleetParameters(Params params) {
        this.params = params;
    }

    private String value(String name) throws BadParameter {
        String v = params.text(name, null);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** Whether the rows are symbols (the default) or images. */
    boolean symbols() throws BadParameter {
        return params.choice("what", List.of("symbols", "images"), "symbols").equals("symbols");
    }

    int limit() throws BadParameter {
        return params.integer("limit", 1, MAX_LIMIT, DEFAULT_LIMIT);
    }

    /** One host's name (parameter {@code name}), as the hosts list gives it. */
    String host(String name) throws BadParameter {
        String h = value(name);
        if (h == null) {
            throw new BadParameter("parameter '" + name + "' is missing: it takes a host's name (the hosts list has"
                    + " them)");
        }
        return checkedHost(name, h);
    }

    /** The samples the filters pick. */
    FleetSelection selection() throws BadParameter {
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
            throw new BadParameter("parameter 'pattern' has " + pattern.length() + " characters; at most 200");
        }
        String event = value("event");
        if (event != null && !EVENT.matcher(event).matches()) {
            throw new BadParameter("parameter 'event' takes an event's name (CPU_CLK_UNHALTED), not '" + event + "'");
        }
        return new FleetSelection(hosts, pattern, instant("since"), instant("until"), modes(), event);
    }

    private static String checkedHost(String parameter, String h) throws BadParameter {
        if (!NAME.matcher(h).matches()) {
            throw new BadParameter("parameter '" + parameter + "' takes hosts' names (letters, digits, . _ : @ -),"
                    + " not '" + h + "'");
        }
        return h;
    }

    private List<Integer> modes() throws BadParameter {
        List<Integer> modes = new ArrayList<>();
        String m = value("mode");
        if (m != null) {
            for (String word : m.split(",")) {
                int mode = switch (word.strip().toLowerCase(Locale.ROOT)) {
                    case "user" -> 0;
                    case "kernel" -> 1;
                    case "hypervisor" -> 2;
                    default -> throw new BadParameter("parameter 'mode' takes hypervisor, kernel and user,"
                            + " comma-separated, not '" + word.strip() + "'");
                };
                if (!modes.contains(mode)) {
                    modes.add(mode);
                }
            }
        }
        return modes;
    }

    private Instant instant(String name) throws BadParameter {
        String t = value(name);
        if (t == null) {
            return null;
        }
        try {
            return t.length() == 10 ? LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant() : Instant.parse(t);
        } catch (DateTimeParseException e) {
            throw new BadParameter("parameter '" + name + "' takes a date (2026-11-28) or an instant"
                    + " (2026-11-28T09:30:00Z), not '" + t + "'");
        }
    }
}
