package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/**
 * What a one-shot profile says when the guests' own profilers and Xenoprof want the same PMU, on
 * the default scenario (no HVM guest; domU-rcv runs its own profiler).
 */
class GuestPmuMessagesTest {

    private static ProfileRequest systemWide(long micros) {
        return new ProfileRequest(List.of(), micros, List.of(), List.of(), List.of(), 0, true);
    }

    @Test
    void underAPolicyGivingGuestsThePmuTheRefusalNamesThePolicyAndTheGuestsProfilerAndSuggestsGuestsOnly()
            throws Exception {
        try (RealHost h = new RealHost(HostService.DEFAULT_SCENARIO, Map.of("vpmu.policy", "lazy"))) {
            ProfileException e = assertThrows(ProfileException.class,
                    () -> h.profiler.profile(systemWide(1000), ProgressListener.NONE));
            String m = e.getMessage();
            assertTrue(m.contains("the counter-virtualization policy lazy gives the guests the PMU: the profiler of"
                    + " domain 1 (domU-rcv) uses its virtual counters, so Xenoprof cannot acquire it"), m);
            assertTrue(m.contains("hp:profile --guests-only"), m);
            assertFalse(m.contains("HVM"), "no HVM guest runs on this host: " + m);
        }
    }

    @Test
    void underPartitionedAGuestProfilerTheHostRefusedIsNamedWithTheReasonInTheProfilesNotes() throws Exception {
        try (RealHost h = new RealHost(HostService.DEFAULT_SCENARIO, Map.of("vpmu.policy", "partitioned"))) {
            SessionSummary s = h.profiler.profile(systemWide(20_000), ProgressListener.NONE);
            assertEquals(1L, h.host.counters().get("guest.profilers.refused"));
            List<String> refused = s.notes().stream().filter(n -> n.startsWith("guest profiler: ")).toList();
            assertEquals(1, refused.size(), s.notes().toString());
            String note = refused.get(0);
            assertTrue(note.contains("domain 1 (domU-rcv)"), note);
            assertTrue(note.contains("belongs to Xenoprof"), note);
        }
    }

    @Test
    void underSystemwideGuestsHavingNoPmuIsNoNote() throws Exception {
        try (RealHost h = new RealHost(HostService.DEFAULT_SCENARIO)) {
            SessionSummary s = h.profiler.profile(systemWide(5_000), ProgressListener.NONE);
            assertTrue(s.notes().stream().noneMatch(n -> n.startsWith("guest profiler: ")), s.notes().toString());
        }
    }
}
