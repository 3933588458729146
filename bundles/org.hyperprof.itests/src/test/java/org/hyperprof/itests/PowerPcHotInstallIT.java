package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The PowerPC 970 model is not in the default runtime: installing its bundle makes ppc64/970
 * appear at once and lets a 970 host be profiled; stopping it in the middle of a session ends
 * that session cleanly, naming the bundle and keeping the samples taken.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PowerPcHotInstallIT {

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return HyperprofOptions.core();
    }

    @Test
    public void hotInstalledPowerPcModelProfilesAndItsDepartureEndsTheRunningSessionCleanly() throws Exception {
        HostService hosts = Services.await(context, HostService.class, "");
        Profiler profiler = Services.await(context, Profiler.class, "");
        assertNull("no 970 before the install",
                context.getServiceReference(PmuModel.class) == null ? null
                        : context.getServiceReferences(PmuModel.class, "(cpu.type=ppc64/970)").stream().findAny()
                                .orElse(null));

        Bundle ppc = context.installBundle(HyperprofOptions.bundleUrl("ppc970"));
        ppc.start();
        PmuModel model = Services.await(context, PmuModel.class, "(cpu.type=ppc64/970)");
        assertEquals("ppc64/970", model.cpuType());

        Host host = hosts.load("ppc970-blade", null);
        assertEquals("ppc64/970", host.model().cpuType());
        SessionSummary first = profiler.profile(new ProfileRequest(List.of(), 100_000, List.of()),
                ProgressListener.NONE);
        assertTrue(first.endReason(), first.completed());
        assertTrue(first.accounting().balanced());
        assertTrue("samples on the 970: " + first.accounting(), first.accounting().delivered() > 0);

        // A long session; the model leaves while it runs.
        hosts.load("ppc970-blade", null);
        CompletableFuture<SessionSummary> running = CompletableFuture.supplyAsync(() -> {
            try {
                return profiler.profile(new ProfileRequest(List.of(), 60_000_000, List.of()), ProgressListener.NONE);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(500);
        ppc.stop();
        SessionSummary cut = running.get(60, TimeUnit.SECONDS);
        assertNotNull(cut);
        assertTrue("the session ended for the model: " + cut.endReason(),
                cut.endReason().contains("org.hyperprof.pmu.ppc970"));
        assertTrue("samples taken before the departure are kept: " + cut.accounting(),
                cut.accounting().delivered() > 0);
        assertTrue(cut.accounting().balanced());
        assertEquals(Bundle.ACTIVE, context.getBundle(0).getState());

        ppc.start();
        Services.await(context, PmuModel.class, "(cpu.type=ppc64/970)");
        hosts.load("ppc970-blade", null);
        SessionSummary again = profiler.profile(new ProfileRequest(List.of(), 50_000, List.of()),
                ProgressListener.NONE);
        assertTrue(again.completed());
    }
}
