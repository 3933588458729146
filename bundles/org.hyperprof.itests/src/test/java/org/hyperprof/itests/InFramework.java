package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;

/**
 * What every in-container test starts from: a framework with the core bundles (and the bundles
 * the test names, installed at start), its context, and the host and profiler services awaited.
 * Pax Exam runs every subclass (both annotations are inherited), one framework per test class.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
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

    /** Installs the bundle the build passed in as {@code name} ({@link HyperprofOptions#bundleUrl}) and starts it. */
    protected Bundle installAndStart(String name) throws BundleException {
        Bundle bundle = context.installBundle(HyperprofOptions.bundleUrl(name));
        bundle.start();
        return bundle;
    }

    /** What one Gogo command line prints, stdout and stderr together; a line that fails ends with "failed: " and why. */
    protected String gogo(String line) throws InterruptedException {
        CommandProcessor processor = Services.await(context, CommandProcessor.class, "");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8))) {
            session.execute(line);
        } catch (Exception e) {
            return out.toString(StandardCharsets.UTF_8) + "failed: " + e;
        }
        return out.toString(StandardCharsets.UTF_8);
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

    /**
     * Runs {@code session}, a long one, and stops {@code leaving} while it runs: the session ends cleanly for
     * that bundle (its end reason names it), keeps the samples taken before the departure with balanced books,
     * and the framework runs on.
     */
    protected void assertDepartureEndsSessionCleanly(Bundle leaving, Callable<SessionSummary> session)
            throws Exception {
        CompletableFuture<SessionSummary> running = CompletableFuture.supplyAsync(() -> {
            try {
                return session.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(500);
        leaving.stop();
        SessionSummary cut = running.get(60, TimeUnit.SECONDS);
        assertNotNull(cut);
        assertTrue("the session ended for " + leaving.getSymbolicName() + ": " + cut.endReason(),
                cut.endReason().contains(leaving.getSymbolicName()));
        assertTrue("samples taken before the departure are kept: " + cut.accounting(),
                cut.accounting().delivered() > 0);
        assertTrue(cut.accounting().balanced());
        assertEquals(Bundle.ACTIVE, context.getBundle(0).getState());
    }
}
