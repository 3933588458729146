package org.hyperprof.store.clickhouse;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which of the fleet's samples a query reads: hosts by list or by pattern, sessions started in a time
 * range, modes (0 user, 1 kernel, 2 hypervisor), and one event (by its name, or the sessions' first).
 *
 * @param hosts   the hosts, or empty for all
 * @param pattern a regular expression (RE2, as ClickHouse's {@code match}) a host must match, or null
 * @param from    sessions started at or after, or null
 * @param until   sessions started before, or null
 * @param modes   the modes, or empty for all
 * @param event   the event's name (CPU_CLK_UNHALTED), or null for each session's first event
 */
record FleetFilter(List<String> hosts, String pattern, Instant from, Instant until, List<Integer> modes,
        String event) {
    static final FleetFilter ALL = new FleetFilter(List.of(), null, null, null, List.of(), null);

    FleetFilter {
        hosts = List.copyOf(hosts);
        modes = List.copyOf(modes);
    }

    FleetFilter hosts(List<String> these) {
        return new FleetFilter(these, pattern, from, until, modes, event);
    }

    /** The condition on a sessions row (host, started_at) the committed sessions are picked by. */
    String sessions() {
        List<String> c = new ArrayList<>();
        if (!hosts.isEmpty()) {
            c.add("host IN " + Sql.quoted(hosts));
        }
        if (pattern != null) {
            c.add("match(host, " + Sql.quote(pattern) + ")");
        }
        if (from != null) {
            c.add("started_at >= toDateTime(" + from.getEpochSecond() + ")");
        }
        if (until != null) {
            c.add("started_at < toDateTime(" + until.getEpochSecond() + ")");
        }
        return c.isEmpty() ? "1" : String.join(" AND ", c);
    }

    /** The condition on a samples row, besides its session's. */
    String samples() {
        List<String> c = new ArrayList<>();
        if (!modes.isEmpty()) {
            c.add("mode IN (" + String.join(", ", modes.stream().map(String::valueOf).toList()) + ")");
        }
        c.add(event == null ? "event = 0" : "startsWith(event_name, " + Sql.quote(event + ":") + ")");
        if (from != null) {
            c.add("day >= toDate(toDateTime(" + from.getEpochSecond() + "))"); // whole partitions skipped
        }
        return String.join(" AND ", c);
    }
}
