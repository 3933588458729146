package org.hyperprof.report.kit;

import java.io.IOException;
import java.util.List;
import java.util.Objects;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;

/**
 * A report consumer that also renders its report as text: the options a request may give are the
 * report's own list, and the whole report is made before any of it is written, so a refused or
 * failed request leaves the output untouched.
 *
 * @param <A> the report's per-session aggregate
 */
public abstract class RenderingConsumer<A extends ReportAggregate> extends ReportConsumer<A>
        implements ReportRenderer {

    private final List<String> options;

    /**
     * @param description how {@link #toString} names the consumer, e.g. {@code opreport consumer}
     * @param shelf       the shelf of its sessions, which makes their aggregates
     * @param options     the options a request may give, with a short description each
     */
    protected RenderingConsumer(String description, SessionShelf<A> shelf, List<String> options) {
        super(description, shelf);
        this.options = List.copyOf(options);
    }

    @Override
    public final List<String> options() {
        return options;
    }

    @Override
    public final void render(ReportRequest request, Appendable out) throws IOException, ReportException {
        Objects.requireNonNull(out, "out");
        out.append(report(request));
    }

    /**
     * The whole report {@code request} asks for.
     *
     * @throws ReportException when the request names no kept session or gives an option the report refuses
     */
    protected abstract String report(ReportRequest request) throws ReportException;
}
