package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.junit.Test;
import org.osgi.framework.Bundle;

/**
 * A counter-virtualization policy is a bundle like any other: installed while the framework runs, it
 * lets a guest profile itself; leaving in the middle of a session, it ends that session cleanly,
 * naming itself, with the guest's samples kept.
 */
public class PolicyHotInstallIT extends InFramework {

    private static ProfileRequest guestsOnly(long micros) {
        return new ProfileRequest(List.of(), micros, List.of(), List.of(), List.of(), 0, false);
    }

    @Test
    public void aHotInstalledPolicyLetsTheGuestProfileItselfAndItsDepartureEndsTheSessionCleanly() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();

        Bundle policy = installAndStart("saverestore");
        Services.await(context, CounterVirtualizationPolicy.class, "(vpmu.policy=saverestore)");

        Host host = hosts.load(HostService.DEFAULT_SCENARIO, null, Map.of("vpmu.policy", "saverestore"), null);
        assertEquals("saverestore", host.policy());
        SessionSummary first = profiler.profile(guestsOnly(200_000), ProgressListener.NONE);
        assertTrue(first.endReason(), first.completed());
        assertTrue(first.accounting().balanced());
        assertTrue("the domU's own samples: " + first.accounting(), first.accounting().delivered() > 0);
        assertTrue(host.counters().get("vpmu.switch.accesses") > 0);

        // A long session; the policy leaves while it runs.
        hosts.load(HostService.DEFAULT_SCENARIO, null, Map.of("vpmu.policy", "saverestore"), null);
        assertDepartureEndsSessionCleanly(policy,
                () -> profiler.profile(guestsOnly(60_000_000), ProgressListener.NONE));

        policy.start();
        Services.await(context, CounterVirtualizationPolicy.class, "(vpmu.policy=saverestore)");
        hosts.load(HostService.DEFAULT_SCENARIO, null, Map.of("vpmu.policy", "saverestore"), null);
        assertTrue(profiler.profile(guestsOnly(50_000), ProgressListener.NONE).completed());
    }

    @Test
    public void underThePartitionedPolicyXenoprofAndTheGuestsOwnProfilerRunTogether() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();
        Bundle amd = installAndStart("amd");
        Bundle partitioned = installAndStart("partitioned");
        Services.await(context, CounterVirtualizationPolicy.class, "(vpmu.policy=partitioned)");
        Services.await(context, org.hyperprof.api.pmu.PmuModel.class, "(cpu.type=i386/athlon)");

        Host host = hosts.load("consolidation", null, Map.of("vpmu.policy", "partitioned"), null);
        SessionSummary xenoprof = profile(profiler, 100_000);
        assertTrue(xenoprof.endReason(), xenoprof.completed());
        assertTrue("Xenoprof's own samples: " + xenoprof.accounting(), xenoprof.accounting().delivered() > 0);
        Map<String, Long> c = host.counters();
        assertTrue("the guests' own samples beside Xenoprof's: " + c, c.get("guest.samples") > 0);
        assertEquals(0L, (long) c.get("guest.profilers.refused"));
        partitioned.uninstall();
        amd.uninstall();
    }
}
