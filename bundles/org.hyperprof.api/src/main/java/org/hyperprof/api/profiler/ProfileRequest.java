package org.hyperprof.api.profiler;

import java.util.List;

/**
 * A one-shot profile: set up every listed domain as active (the hardware domain as primary) and
 * every passive one as passive, start, run, stop, shut down.
 *
 * @param events         events in OProfile syntax; empty = the model's default
 * @param micros         simulated microseconds to run
 * @param activeDomains  domains to profile actively; empty = every domain that can be active
 *                       and is not listed as passive
 * @param passiveDomains domains the primary profiles passively ({@code --passive-domains})
 * @param passiveImages  kernel images the primary resolves each passive domain's kernel with
 *                       ({@code --passive-images}), in the order of {@code passiveDomains}; an
 *                       empty list or a missing entry leaves that kernel coarse ({@code domain<N>-kernel})
 * @param callgraphDepth call-trace depth ({@code --callgraph}); 0 = no call traces
 * @param systemWide     whether Xenoprof profiles the host (dom0 as primary); false runs only
 *                       the guests' own profilers (a host whose policy gives the PMU to guests),
 *                       whose sessions are published either way
 */
public record ProfileRequest(List<String> events, long micros, List<Integer> activeDomains,
        List<Integer> passiveDomains, List<String> passiveImages, int callgraphDepth, boolean systemWide) {
    public ProfileRequest {
        events = List.copyOf(events);
        activeDomains = List.copyOf(activeDomains);
        passiveDomains = List.copyOf(passiveDomains);
        passiveImages = List.copyOf(passiveImages);
        if (callgraphDepth < 0) {
            throw new IllegalArgumentException("call-graph depth " + callgraphDepth + " must not be negative");
        }
    }

    /** A system-wide (Xenoprof) profile, plus the guests' own profilers if the host has any. */
    public ProfileRequest(List<String> events, long micros, List<Integer> activeDomains,
            List<Integer> passiveDomains, List<String> passiveImages, int callgraphDepth) {
        this(events, micros, activeDomains, passiveDomains, passiveImages, callgraphDepth, true);
    }

    /** Active domains only, no call traces. */
    public ProfileRequest(List<String> events, long micros, List<Integer> activeDomains) {
        this(events, micros, activeDomains, List.of(), List.of(), 0);
    }
}
