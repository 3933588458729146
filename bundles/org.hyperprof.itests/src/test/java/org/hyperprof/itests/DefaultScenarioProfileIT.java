package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.util.List;
import java.util.Set;

import javax.inject.Inject;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;

/** The default scenario, profiled through the services of the bundles as a user's shell would. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class DefaultScenarioProfileIT {

    @Inject
    BundleContext context;

    @Configuration
    public Option[] config() {
        return HyperprofOptions.core(bundle(HyperprofOptions.bundleUrl("opreport")));
    }

    @Test
    public void defaultScenarioProfileBalancesItsBooksAndReportsEveryDomain() throws Exception {
        HostService hosts = Services.await(context, HostService.class, "");
        Profiler profiler = Services.await(context, Profiler.class, "");
        ReportRenderer opreport = Services.await(context, ReportRenderer.class, "(report.name=opreport)");

        Host host = hosts.load(HostService.DEFAULT_SCENARIO, null);
        assertEquals("i386/p6", host.model().cpuType());

        SessionSummary summary = profiler.profile(new ProfileRequest(List.of(), 300_000, List.of()),
                ProgressListener.NONE);

        assertTrue(summary.endReason(), summary.completed());
        assertTrue("taken = delivered + lost + dropped + invalid: " + summary.accounting(),
                summary.accounting().balanced());
        assertTrue("samples delivered: " + summary.accounting(), summary.accounting().delivered() > 1000);
        assertTrue(summary.hypervisor().balanced());

        StringBuilder report = new StringBuilder();
        opreport.render(new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS, Set.of()), report);
        String text = report.toString();
        assertTrue(text, text.contains("CPU: PIII, speed 2800 MHz"));
        assertTrue(text, text.contains("Counted CPU_CLK_UNHALTED events"));
        assertTrue(text, text.contains("xen-syms"));
        assertTrue(text, text.contains(summary.accounting().line()));
        for (var domain : host.domains()) {
            assertTrue("report names " + domain.name() + ":\n" + text, text.contains(domain.name()));
        }
    }
}
