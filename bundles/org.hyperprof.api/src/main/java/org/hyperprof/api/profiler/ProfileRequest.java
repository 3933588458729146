package org.hyperprof.api.profiler;

import java.util.List;

/**
 * A one-shot profile: set up every listed domain as active (the hardware domain as primary),
 * start, run, stop, shut down.
 *
 * @param events        events in OProfile syntax; empty = the model's default
 * @param micros        simulated microseconds to run
 * @param activeDomains domains to profile actively; empty = every domain
 */
public record ProfileRequest(List<String> events, long micros, List<Integer> activeDomains) {
    public ProfileRequest {
        events = List.copyOf(events);
        activeDomains = List.copyOf(activeDomains);
    }
}
