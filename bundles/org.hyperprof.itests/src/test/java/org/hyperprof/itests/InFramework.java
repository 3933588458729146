package org.hyperprof.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import javax.inject.Inject;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.BundleContext;

/**
 * What every in-container test starts from: a framework with the core bundles (and the bundles
 * the test names, installed at start), its context, and the host and profiler services awaited.
 */
public abstract class InFramework {

    @Inject
    protected BundleContext context;

    private final String[] startedWith;

    /** @param startedWith names of the bundles (as {@link HyperprofOptions#bundleUrl}) the framework starts with beyond the core */
    protected InFramework(String... startedWith) {
        this.startedWith = startedWith;
    }

    @Configuration
    public Option[] config() {
        return HyperprofOptions.core(Arrays.stream(startedWith).map(n -> bundle(HyperprofOptions.bundleUrl(n)))
                .toArray(Option[]::new));
    }

    protected HostService hosts() throws InterruptedException {
        return Services.await(context, HostService.class, "");
    }

    protected Profiler profiler() throws InterruptedException {
        return Services.await(context, Profiler.class, "");
    }

    /** A one-shot profile of the loaded host: every domain, the model's default event, {@code micros} of simulated time. */
    protected static SessionSummary profile(Profiler profiler, long micros) throws Exception {
        return profiler.profile(new ProfileRequest(List.of(), micros, List.of()), ProgressListener.NONE);
    }

    /** The opreport of every domain of the session. */
    protected static String report(ReportRenderer renderer, SessionSummary summary) throws Exception {
        StringBuilder text = new StringBuilder();
        renderer.render(new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS, Set.of()), text);
        return text.toString();
    }
}
