package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Arrays;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.osgi.framework.Bundle;

/** Stopping the CPU model bundle stops the host that uses it, says why, and a restart allows a new session. */
public class ModelDepartureIT extends InFramework {
    @Test
    public void departingModelStopsItsHostCleanlyAndNamesTheBundle() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();
        Services.await(context, PmuModel.class, "(cpu.type=i386/p6)");
        Host host = hosts.load(HostService.DEFAULT_SCENARIO, null);
        SessionSummary first = profile(profiler, 100_000);
        assertTrue(first.completed());

        Bundle p6 = Arrays.stream(context.getBundles()).filter(b -> b.getSymbolicName().equals("org.hyperprof.pmu.p6"))
                .findFirst().orElseThrow();
        p6.stop();
        assertNotNull("the host stopped", host.stopReason());
        assertTrue(host.stopReason(), host.stopReason().contains("org.hyperprof.pmu.p6"));
        try {
            profile(profiler, 100_000);
            fail("profiling a stopped host must fail");
        } catch (ProfileException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("org.hyperprof.pmu.p6"));
        }
        assertEquals("samples already taken are kept", first.sessionId(), profiler.lastSummary().get().sessionId());
        assertEquals(Bundle.ACTIVE, context.getBundle(0).getState());

        p6.start();
        Services.await(context, PmuModel.class, "(cpu.type=i386/p6)");
        hosts.load(HostService.DEFAULT_SCENARIO, null);
        SessionSummary again = profile(profiler, 100_000);
        assertTrue(again.completed());
        assertTrue(again.accounting().delivered() > 0);
    }
}
