package org.hyperprof.report.flamegraph;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.report.kit.RenderingConsumer;
import org.hyperprof.report.kit.SessionShelf;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

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
public final class FlameGraphConsumer extends RenderingConsumer<StackAggregate> implements ReportFileWriter {

    /** Its {@code consumer.name} and {@code report.name}. */
    public static final String NAME = "flamegraph";

    /** The formats {@link #write} knows. */
    public static final String FOLDED = "folded";
    public static final String SVG = "svg";
    /** The tree as compact JSON for an interactive viewer (the web view). */
    public static final String JSON = "json";

    /** Sessions kept for writing when no other number is given. */
    public static final int DEFAULT_RETAINED_SESSIONS = 8;

    private static final List<String> FORMATS = List.of(
            FOLDED + ": folded stacks, one 'domain;caller;...;function count' line per distinct stack"
                    + " (flamegraph.pl, speedscope)",
            SVG + ": a self-contained interactive SVG flame graph (hover, click to zoom, search),"
                    + " coloured by hypervisor, kernel and user code",
            JSON + ": the tree as compact JSON (frames with the SVG's colours, nodes in pre-order) for an"
                    + " interactive viewer such as hp:serve's");

    /**
     * The session store, when one runs: the JSON of an ended session no longer kept is drawn from its
     * summed stacks ({@link StoredFlame}) rather than asking for a replay.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile SessionStore store;

    /** Keeps the last {@value #DEFAULT_RETAINED_SESSIONS} sessions (DS uses this constructor). */
    public FlameGraphConsumer() {
        this(DEFAULT_RETAINED_SESSIONS);
    }

    /** Keeps the last {@code retainedSessions} sessions for writing. */
    public FlameGraphConsumer(int retainedSessions) {
        super("flame graph consumer", new SessionShelf<>("the flame graph", "write its flame graph",
                retainedSessions, StackAggregate::new), FlameOptions.ALL_DESCRIPTIONS);
    }

    // ---------------------------------------------------------------- ReportRenderer and ReportFileWriter

    /** The renderer prints the folded stacks. */
    @Override
    protected String report(ReportRequest request) throws ReportException {
        return text(request, FOLDED);
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
        String f = formatName(format);
        SessionStore stored = store;
        if (f.equals(JSON) && stored != null && !sessions().contains(request.sessionId())) {
            FlameOptions options = FlameOptions.parse(request.options());
            String json = StoredFlame.answers(request, options) ? StoredFlame.json(stored, request, options) : null;
            if (json != null) {
                return json;
            }
        }
        StackAggregate session = aggregate(request);
        if (!f.equals(FOLDED) && !f.equals(SVG) && !f.equals(JSON)) {
            throw new ReportException("the flame graph writes no format '" + format + "'; its formats are: "
                    + String.join("; ", FORMATS));
        }
        FlameOptions options = FlameOptions.parse(request.options());
        StackAggregate.Snapshot snapshot = session.snapshot();
        FlameTree tree = FlameTree.build(snapshot, options, request.domain());
        if (f.equals(JSON)) {
            return FlameJson.render(tree, snapshot);
        }
        return f.equals(FOLDED) ? FoldedStacks.render(tree) : SvgFlameGraph.render(tree, snapshot);
    }

    /** Deliveries that named no session this consumer keeps, and their samples. */
    long[] strays() {
        SessionShelf.Strays strays = shelf.strays();
        return new long[] { strays.deliveries(), strays.samples() };
    }
}
