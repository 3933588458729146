package org.hyperprof.report.opreport;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.report.kit.RenderingConsumer;
import org.hyperprof.report.kit.SessionShelf;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code opreport} sample consumer: aggregates each session's samples per domain, vCPU, thread,
 * CPU, counter, image, symbol and PC, and the caller&rarr;callee arcs of their call chains, and prints them as
 * OProfile's opreport would - once merged over all domains (which the original could only get by
 * concatenating per-domain reports by hand), then each domain's own report - with the image and
 * symbol summaries (-l), per-instruction details (-d), the call graph (-c), the hypervisor /
 * kernel / user split, the accounting, and, when the simulator supplied the ground truth, the true
 * share and the error of every row. {@link #options()} lists what a request may ask for.
 *
 * <p>Calls from the profiler come on this consumer's own delivery thread; reports may be rendered
 * from any thread at any time, also while the session runs. It keeps the last
 * {@value #DEFAULT_RETAINED_SESSIONS} sessions (or as many as the constructor says).
 */
@Component(service = { SampleConsumer.class, ReportRenderer.class }, property = {
        SampleConsumer.NAME + "=" + OpreportConsumer.NAME, ReportRenderer.NAME + "=" + OpreportConsumer.NAME })
public final class OpreportConsumer extends RenderingConsumer<SessionAggregate> {

    /** Its {@code consumer.name} and {@code report.name}. */
    public static final String NAME = "opreport";

    /** Sessions kept for rendering when no other number is given. */
    public static final int DEFAULT_RETAINED_SESSIONS = 16;

    /** Keeps the last {@value #DEFAULT_RETAINED_SESSIONS} sessions (DS uses this constructor). */
    public OpreportConsumer() {
        this(DEFAULT_RETAINED_SESSIONS);
    }

    /** Keeps the last {@code retainedSessions} sessions for rendering. */
    public OpreportConsumer(int retainedSessions) {
        super("opreport consumer", new SessionShelf<>(NAME, "ask for its report", retainedSessions,
                SessionAggregate::new), ReportOptions.ALL_DESCRIPTIONS);
    }

    // ---------------------------------------------------------------- ReportRenderer

    @Override
    protected String report(ReportRequest request) throws ReportException {
        SessionAggregate session = aggregate(request);
        ReportOptions options = ReportOptions.parse(request.options());
        SessionAggregate.Snapshot snapshot = session.snapshot(options.callgraph(), options.details());
        return new OpreportText(snapshot, options).render(request.domain(), shelf.strays());
    }
}
