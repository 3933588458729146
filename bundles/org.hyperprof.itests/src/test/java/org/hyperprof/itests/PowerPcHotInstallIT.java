package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.osgi.framework.Bundle;

/**
 * The PowerPC 970 model is not in the default runtime: installing its bundle makes ppc64/970
 * appear at once and lets a 970 host be profiled; stopping it in the middle of a session ends
 * that session cleanly, naming the bundle and keeping the samples taken.
 */
public class PowerPcHotInstallIT extends InFramework {
    @Test
    public void hotInstalledPowerPcModelProfilesAndItsDepartureEndsTheRunningSessionCleanly() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();
        assertNull("no 970 before the install",
                context.getServiceReference(PmuModel.class) == null ? null
                        : context.getServiceReferences(PmuModel.class, "(cpu.type=ppc64/970)").stream().findAny()
                                .orElse(null));

        Bundle ppc = installAndStart("ppc970");
        PmuModel model = Services.await(context, PmuModel.class, "(cpu.type=ppc64/970)");
        assertEquals("ppc64/970", model.cpuType());

        Host host = hosts.load("ppc970-blade", null);
        assertEquals("ppc64/970", host.model().cpuType());
        SessionSummary first = profile(profiler, 100_000);
        assertTrue(first.endReason(), first.completed());
        assertTrue(first.accounting().balanced());
        assertTrue("samples on the 970: " + first.accounting(), first.accounting().delivered() > 0);

        // A long session; the model leaves while it runs.
        hosts.load("ppc970-blade", null);
        assertDepartureEndsSessionCleanly(ppc, () -> profile(profiler, 60_000_000));

        ppc.start();
        Services.await(context, PmuModel.class, "(cpu.type=ppc64/970)");
        hosts.load("ppc970-blade", null);
        SessionSummary again = profile(profiler, 50_000);
        assertTrue(again.completed());
    }
}
