package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.SymbolTables;
import org.junit.Test;

/** The default scenario, profiled through the services of the bundles as a user's shell would. */
public class DefaultScenarioProfileIT extends InFramework {

    public DefaultScenarioProfileIT() {
        super("opreport");
    }

    @Test
    public void defaultScenarioProfileBalancesItsBooksAndReportsEveryDomain() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();
        ReportRenderer opreport = Services.await(context, ReportRenderer.class, "(report.name=opreport)");

        Host host = hosts.load(HostService.DEFAULT_SCENARIO, null);
        assertEquals("i386/p6", host.model().cpuType());

        SessionSummary summary = profile(profiler, 300_000);

        assertTrue(summary.endReason(), summary.completed());
        assertTrue("taken = delivered + lost + dropped + invalid: " + summary.accounting(),
                summary.accounting().balanced());
        assertTrue("samples delivered: " + summary.accounting(), summary.accounting().delivered() > 1000);
        assertTrue(summary.hypervisor().balanced());

        String text = report(opreport, summary);
        assertTrue(text, text.contains("CPU: PIII, speed 2800 MHz"));
        assertTrue(text, text.contains("Counted CPU_CLK_UNHALTED events"));
        assertTrue(text, text.contains("xen-syms"));
        assertTrue(text, text.contains(summary.accounting().line()));
        for (var domain : host.domains()) {
            assertTrue("report names " + domain.name() + ":\n" + text, text.contains(domain.name()));
        }
    }

    @Test
    public void theResolversAreBoundOnceInThePipelinesSymbolTables() throws Exception {
        hosts();
        profiler();
        SymbolTables tables = Services.await(context, SymbolTables.class, null);
        assertEquals("the kallsyms bundle's resolver, bound by its symbols.format", List.of("kallsyms"),
                tables.formats());
    }
}
