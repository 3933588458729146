package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.osgi.framework.Bundle;

/**
 * A consumer bundle installed into the running framework is bound by the profiler and receives
 * the next session's samples; uninstalling it leaves the profiler working.
 */
public class HotInstalledConsumerIT extends InFramework {
    @Test
    public void consumerInstalledWhileRunningReceivesSamplesAndItsDepartureIsHarmless() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();
        hosts.load(HostService.DEFAULT_SCENARIO, null);
        assertTrue("no consumer before the install: " + profiler.consumers(), profiler.consumers().isEmpty());

        Bundle opreport = installAndStart("opreport");
        Services.await(context, SampleConsumer.class, "(consumer.name=opreport)");
        ReportRenderer renderer = Services.await(context, ReportRenderer.class, "(report.name=opreport)");

        SessionSummary summary = profile(profiler, 200_000);
        ConsumerAccounting got = summary.consumers().stream().filter(c -> c.consumer().equals("opreport"))
                .findFirst().orElseThrow(() -> new AssertionError("opreport not in " + summary.consumers()));
        assertEquals("the hot-installed consumer missed nothing: " + got, 0, got.missed());
        assertEquals(summary.accounting().delivered(), got.received());
        assertTrue(renderer.sessions().contains(summary.sessionId()));
        String text = report(renderer, summary);
        assertTrue(text, text.contains("samples"));

        opreport.uninstall();
        SessionSummary after = profile(profiler, 100_000);
        assertTrue(after.endReason(), after.completed());
        assertTrue(after.accounting().balanced());
        assertTrue("consumer gone: " + after.consumers(), after.consumers().isEmpty());
    }
}
