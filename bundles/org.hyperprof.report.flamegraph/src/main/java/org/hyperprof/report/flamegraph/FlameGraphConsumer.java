package org.hyperprof.report.flamegraph;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

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
        out.append(content(request, FOLDED));
    }

    @Override
    public List<String> formats() {
        return FORMATS;
    }

    /**
     * Writes the folded stacks or the SVG: made whole in memory, written to a temporary file next
     * to {@code target}, then moved into place; on any failure no file is left behind.
     */
    @Override
    public Path write(ReportRequest request, String format, Path target) throws IOException, ReportException {
        if (target == null) {
            throw new ReportException("no target file; give a file name such as flame.svg or stacks.folded");
        }
        Path file = target.toAbsolutePath().normalize();
        if (Files.isDirectory(file)) {
            throw new ReportException(file + " is a directory; give a file name in it, such as " + file.resolve(
                    "flame." + (SVG.equalsIgnoreCase(String.valueOf(format)) ? "svg" : "folded")));
        }
        Path directory = file.getParent();
        if (directory == null || !Files.isDirectory(directory)) {
            throw new ReportException("directory " + directory + " does not exist; create it or write elsewhere");
        }
        String text = content(request, format);
        Path temporary = createPartFile(directory, file.getFileName().toString());
        try {
            try (Writer w = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
                w.write(text);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        return file;
    }

    /**
     * A new, empty file next to the target. Made with {@code createFile}, not {@code createTempFile},
     * so that it gets the permissions the user's umask gives any new file (a temporary file would
     * be readable by its owner only, and so would the report moved into place).
     */
    private static Path createPartFile(Path directory, String name) throws IOException {
        for (int attempt = 0;; attempt++) {
            Path part = directory.resolve("." + name + "." + ProcessHandle.current().pid() + "."
                    + Long.toHexString(System.nanoTime() + attempt) + ".part");
            try {
                return Files.createFile(part);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 99) {
                    throw e;
                }
            }
        }
    }

    /** The whole text of {@code format} for {@code request}. */
    private String content(ReportRequest request, String format) throws ReportException {
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
