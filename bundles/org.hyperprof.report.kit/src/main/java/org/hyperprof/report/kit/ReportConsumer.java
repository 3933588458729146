package org.hyperprof.report.kit;

import java.util.List;
import java.util.Objects;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * A report consumer's part around its own aggregate: it keeps the last sessions on a
 * {@link SessionShelf}, hands each delivery to its session's aggregate (deliveries for no kept
 * session are counted as strays), and finds the session a report request asks for. A report
 * bundle adds its rendering or file writing.
 *
 * <p>Deliveries come on the consumer's own delivery thread; reports may be asked for from any
 * thread at any time, also while the session runs.
 *
 * @param <A> the report's per-session aggregate
 */
public abstract class ReportConsumer<A extends ReportAggregate> implements SampleConsumer {

    /** The kept sessions, each with its aggregate, and the deliveries that named none. */
    protected final SessionShelf<A> shelf;
    private final String description;

    /**
     * @param description how {@link #toString} names the consumer, e.g. {@code opreport consumer}
     * @param shelf       the shelf of its sessions, which makes their aggregates
     */
    protected ReportConsumer(String description, SessionShelf<A> shelf) {
        this.description = Objects.requireNonNull(description, "description");
        this.shelf = Objects.requireNonNull(shelf, "shelf");
    }

    @Override
    public final void sessionStarted(SessionInfo session) {
        shelf.started(session);
    }

    /** Counts the batch; never throws for bad content (see {@link ReportAggregate#accept}). */
    @Override
    public final void samples(SampleBatch batch) {
        shelf.deliver(batch, ReportAggregate::accept);
    }

    @Override
    public final void sessionEnded(SessionSummary summary) {
        shelf.ended(summary, ReportAggregate::end);
    }

    /** The ids of the kept sessions, oldest first (what a renderer or file writer lists). */
    public List<Long> sessions() {
        return shelf.sessions();
    }

    /**
     * The aggregate of the session {@code request} asks for.
     *
     * @throws ReportException when the request is null, or names no kept session
     */
    protected final A aggregate(ReportRequest request) throws ReportException {
        return shelf.resolve(request).aggregate();
    }

    /** A format name as a request gives it, trimmed and in lower case ({@code ""} for none). */
    protected static String formatName(String format) {
        return RequestOptions.name(format);
    }

    @Override
    public String toString() {
        return description + " (" + sessions().size() + " sessions kept)";
    }
}
