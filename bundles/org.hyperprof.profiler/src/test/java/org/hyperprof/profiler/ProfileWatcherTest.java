package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.ProfileWatcher;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/** A registered watcher hears every one-shot profile's progress as its caller does; one that throws harms none. */
class ProfileWatcherTest {

    @Test
    void aWatcherHearsWhatTheCallerHearsAndAFailingOneStopsNothing() throws Exception {
        try (RealHost h = new RealHost(HostService.DEFAULT_SCENARIO)) {
            List<long[]> caller = new ArrayList<>();
            List<long[]> watcher = new ArrayList<>();
            ProfileWatcher broken = (done, total, samples) -> {
                throw new IllegalStateException("a watcher's own bug");
            };
            h.profiler.addWatcher(broken);
            h.profiler.addWatcher((done, total, samples) -> watcher.add(new long[] {done, total, samples}));
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 20_000, List.of()),
                    (done, total, samples) -> caller.add(new long[] {done, total, samples}));
            assertTrue(s.completed(), s.endReason());
            assertFalse(caller.isEmpty());
            assertEquals(caller.size(), watcher.size());
            for (int i = 0; i < caller.size(); i++) {
                assertEquals(List.of(caller.get(i)[0], caller.get(i)[1], caller.get(i)[2]),
                        List.of(watcher.get(i)[0], watcher.get(i)[1], watcher.get(i)[2]));
            }
            assertEquals(20_000, watcher.get(watcher.size() - 1)[1]);
            h.profiler.removeWatcher(broken);
        }
    }
}
