package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;

import javax.inject.Inject;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleConsumer;
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
 * A consumer bundle installed into the running framework is bound by the profiler and receives
 * the next session's samples; uninstalling it leaves the profiler working.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotInstalledConsumerIT {

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return HyperprofOptions.core();
    }

    @Test
    public void consumerInstalledWhileRunningReceivesSamplesAndItsDepartureIsHarmless() throws Exception {
        HostService hosts = Services.await(context, HostService.class, "");
        Profiler profiler = Services.await(context, Profiler.class, "");
        hosts.load(HostService.DEFAULT_SCENARIO, null);
        assertTrue("no consumer before the install: " + profiler.consumers(), profiler.consumers().isEmpty());

        Bundle opreport = context.installBundle(HyperprofOptions.bundleUrl("opreport"));
        opreport.start();
        Services.await(context, SampleConsumer.class, "(consumer.name=opreport)");
        ReportRenderer renderer = Services.await(context, ReportRenderer.class, "(report.name=opreport)");

        SessionSummary summary = profiler.profile(new ProfileRequest(List.of(), 200_000, List.of()),
                ProgressListener.NONE);
        ConsumerAccounting got = summary.consumers().stream().filter(c -> c.consumer().equals("opreport"))
                .findFirst().orElseThrow(() -> new AssertionError("opreport not in " + summary.consumers()));
        assertEquals("the hot-installed consumer missed nothing: " + got, 0, got.missed());
        assertEquals(summary.accounting().delivered(), got.received());
        assertTrue(renderer.sessions().contains(summary.sessionId()));
        StringBuilder text = new StringBuilder();
        renderer.render(new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS, java.util.Set.of()), text);
        assertTrue(text.toString(), text.toString().contains("samples"));

        opreport.uninstall();
        SessionSummary after = profiler.profile(new ProfileRequest(List.of(), 100_000, List.of()),
                ProgressListener.NONE);
        assertTrue(after.endReason(), after.completed());
        assertTrue(after.accounting().balanced());
        assertTrue("consumer gone: " + after.consumers(), after.consumers().isEmpty());
    }
}
