package org.hyperprof.api.sample;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;

/**
 * What a profiling session is, as consumers learn it at its start.
 *
 * @param sessionId   unique within the framework's life
 * @param source      where samples come from ({@code simulator}, {@code perf.data})
 * @param hostName    the host or recording name
 * @param cpuType     OProfile cpu_type
 * @param cpuName     the processor name for the header line
 * @param mhz         the clock speed
 * @param counters    the configured counters
 * @param domains     domain id to name, for every domain of the host
 * @param groundTruth whether the session will end with a {@link GroundTruth}
 * @param dictionary  the session's images and symbols
 */
public record SessionInfo(long sessionId, String source, String hostName, String cpuType, String cpuName, long mhz,
        List<CounterConfig> counters, Map<Integer, String> domains, boolean groundTruth,
        SessionDictionary dictionary) {

    public SessionInfo {
        counters = List.copyOf(counters);
        domains = Map.copyOf(domains);
    }

    /**
     * Position in {@link #counters()} of each counter number a {@link SampleBatch} carries in
     * {@code counter} (the hardware counter that overflowed, {@link CounterConfig#counter()}),
     * indexed by {@code counter & 0xFF}; -1 for a number the session did not configure. Counter
     * numbers need not be 0, 1, ...: a PowerPC 970 event sits on the counter its group names.
     * Consumers compute it once per session.
     */
    public int[] counterSlots() {
        int[] slots = new int[256];
        java.util.Arrays.fill(slots, -1);
        for (int i = 0; i < counters.size(); i++) {
            slots[counters.get(i).counter() & 0xFF] = i;
        }
        return slots;
    }

    /** The domain's name, or {@code domain<N>}. */
    public String domainName(int domid) {
        return domains.getOrDefault(domid, "domain" + domid);
    }
}
