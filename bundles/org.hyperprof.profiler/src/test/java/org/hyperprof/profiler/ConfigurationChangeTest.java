package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/**
 * A configuration change reaches the running profiler (DS calls its modified method, so the service
 * and the commands that hold it stay): the new batch size shapes the next session; a setting out of
 * range is refused and the settings in force stay.
 */
class ConfigurationChangeTest {

    /** The settings as Configuration Admin would hand them over. */
    private record Settings(int batch_size, int consumer_queue_batches, int session_end_timeout_seconds)
            implements ProfilerConfiguration {
        @Override
        public Class<? extends Annotation> annotationType() {
            return ProfilerConfiguration.class;
        }
    }

    private static int largestBatch(RealHost h) throws Exception {
        SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 20_000, List.of()), ProgressListener.NONE);
        assertTrue(s.accounting().delivered() > 300, "enough samples to fill batches: " + s.accounting());
        return h.sessions.lastBatches().stream().mapToInt(b -> b.size).max().orElseThrow();
    }

    @Test
    void aNewBatchSizeShapesTheNextSessionOfTheSameProfiler() throws Exception {
        try (RealHost h = new RealHost(HostService.DEFAULT_SCENARIO)) {
            assertTrue(largestBatch(h) > 100);
            h.profiler.configure(new Settings(100, 64, 10));
            assertEquals(100, largestBatch(h));
        }
    }

    @Test
    void aSettingOutOfRangeIsRefusedAndTheSettingsInForceStay() throws Exception {
        try (RealHost h = new RealHost(HostService.DEFAULT_SCENARIO)) {
            h.profiler.configure(new Settings(100, 64, 10));
            h.profiler.configure(new Settings(0, 64, 10));
            assertEquals(100, largestBatch(h));
        }
    }
}
