package org.hyperprof.api.store;

import java.time.Instant;
import java.util.List;

/**
 * Which of the fleet's samples a question reads, as {@code hp:fleet}'s filters pick them.
 *
 * @param hosts   these hosts (their host.id), or empty for every host
 * @param pattern a regular expression (RE2) a host's name must match somewhere, or null
 * @param from    sessions started at or after, or null
 * @param until   sessions started before, or null
 * @param modes   these modes (0 user, 1 kernel, 2 hypervisor), or empty for all
 * @param event   the event counted by name (CPU_CLK_UNHALTED), or null for each session's first
 */
public record FleetSelection(List<String> hosts, String pattern, Instant from, Instant until, List<Integer> modes,
        String event) {
    /** Every committed sample of each session's first event. */
    public static final FleetSelection ALL = new FleetSelection(List.of(), null, null, null, List.of(), null);

    public FleetSelection {
        hosts = List.copyOf(hosts);
        modes = List.copyOf(modes);
        for (int m : modes) {
            if (m < 0 || m > 2) {
                throw new IllegalArgumentException("a mode is 0 (user), 1 (kernel) or 2 (hypervisor), not " + m);
            }
        }
    }

    /** The same samples of these hosts only. */
    public FleetSelection withHosts(List<String> these) {
        return new FleetSelection(these, pattern, from, until, modes, event);
    }
}
