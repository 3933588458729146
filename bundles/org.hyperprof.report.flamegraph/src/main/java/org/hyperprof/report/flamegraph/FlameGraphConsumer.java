package org.hyperprof.report.flamegraph;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionShelf;
import org.hyperprof.api.sample.SessionSummary;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code flamegraph} sample consumer: collects every distinct call stack of each session
 * (domain, callers, sampled function) with its sample count per counter, and writes them as
 * Brendan Gregg's folded stacks (the renderer prints them; the file writer writes them as
 * {@code folded}) or as a self-contained interactive SVG flame graph ({@code svg}) coloured by
 * hypervisor, kernel and user code. See {@link FlameTree} for how frames are named.
 *
 * <p>Calls from the profiler come on this consumer's own delivery thread; reports may be rendered
 * or written from any thread at any time, also while the session runs. It keeps the last
 * {@value #DEFAULT_RETAINED_SESSIONS} sessions (or as many as the constructor says).
 */
@Component(service = { SampleConsumer.class, ReportRenderer.class, ReportFileWriter.class }, property = {
        SampleConsumer.NAME + "=" + FlameGraphConsumer.NAME, ReportRenderer.NAME + "=" + FlameGraphConsumer.NAME })
public final class FlameGraphConsumer implements SampleConsumer, ReportRenderer, ReportFileWriter {

    /** Its {@code consumer.name} and {@code report.name}. */
    public static final String NAME = "flamegraph";

    /** The formats {@link #write} knows. */
    public static final String FOLDED = "folded";
    public static final String SVG = "svg";

    /** Sessions kept for writing when no other number is given. */
    public static final int DEFAULT_RETAINED_SESSIONS = 8;

    private static final List<String> FORMATS = List.of(
            FOLDED + ": folded stacks, one 'domain;caller;...;function count' line per distinct stack"
                    + " (flamegraph.pl, speedscope)",
            SVG + ": a self-contained interactive SVG flame graph (hover, click to zoom, search),"
                    + " coloured by hypervisor, kernel and user code");

    /** The kept sessions, each with its aggregate, and the deliveries that named none. */
    private final SessionShelf<StackAggregate> shelf;

    /** Keeps the last {@value #DEFAULT_RETAINED_SESSIONS} sessions (DS uses this constructor). */
    public FlameGraphConsumer() {
        this(DEFAULT_RETAINED_SESSIONS);
    }

    /** Keeps the last {@code retainedSessions} sessions for writing. */
    public FlameGraphConsumer(int retainedSessions) {
        this.shelf = new SessionShelf<>("the flame graph", "write its flame graph", retainedSessions,
                StackAggregate::new);
    }

    // ---------------------------------------------------------------- SampleConsumer

    @Override
    public void sessionStarted(SessionInfo session) {
        shelf.started(session);
    }

    /** Counts the batch; never throws for bad content (see {@link StackAggregate#accept}). */
    @Override
    public void samples(SampleBatch batch) {
        shelf.deliver(batch, StackAggregate::accept);
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
        shelf.ended(summary, StackAggregate::end);
    }

    // ---------------------------------------------------------------- ReportRenderer and ReportFileWriter

    @Override
    public List<Long> sessions() {
        return shelf.sessions();
    }

    @Override
    public List<String> options() {
        return FlameOptions.DESCRIPTIONS;
    }

    /** Prints the folded stacks; the whole text is made before any of it is written. */
    @Override
    public void render(ReportRequest request, Appendable out) throws IOException, ReportException {
        Objects.requireNonNull(out, "out");
        out.append(text(request, FOLDED));
    }

    @Override
    public List<String> formats() {
        return FORMATS;
    }

    /**
     * The folded stacks or the SVG, made whole in memory now (every check first, so a refused
     * request touches no file); the content only copies the bytes.
     */
    @Override
    public Content content(ReportRequest request, String format) throws ReportException {
        byte[] bytes = text(request, format).getBytes(StandardCharsets.UTF_8);
        return out -> out.write(bytes);
    }

    /** The whole text of {@code format} for {@code request}. */
    private String text(ReportRequest request, String format) throws ReportException {
        StackAggregate session = shelf.resolve(request).aggregate();
        String f = format == null ? "" : format.trim().toLowerCase(Locale.ROOT);
        if (!f.equals(FOLDED) && !f.equals(SVG)) {
            throw new ReportException("the flame graph writes no format '" + format + "'; its formats are: "
                    + String.join("; ", FORMATS));
        }
        FlameOptions options = FlameOptions.parse(request.options());
        StackAggregate.Snapshot snapshot = session.snapshot();
        FlameTree tree = FlameTree.build(snapshot, options, request.domain());
        return f.equals(FOLDED) ? FoldedStacks.render(tree) : SvgFlameGraph.render(tree, snapshot);
    }

    /** Deliveries that named no session this consumer keeps, and their samples. */
    long[] strays() {
        SessionShelf.Strays strays = shelf.strays();
        return new long[] { strays.deliveries(), strays.samples() };
    }

    @Override
    public String toString() {
        return "flame graph consumer (" + sessions().size() + " sessions kept)";
    }
}
