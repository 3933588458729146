package org.hyperprof.shell;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.output.Content;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.output.Written;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.report.SortedReporter;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.ReportWords;
import org.hyperprof.command.kit.SessionStores;
import org.hyperprof.command.kit.WrittenLine;
import org.hyperprof.shell.session.WorkingFolder;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code hp:report}: the report of a session; {@code hp:export}: a session written to a file by a
 * report file writer (pprof, flame graphs), placed by {@link OutputFiles}. Needs only the renderers
 * and writers (and, to export, the output service), so the sessions they keep stay printable while
 * the core bundles are stopped or replaced. A session they no longer keep (one of an earlier run of
 * the framework, or past their last 16) is replayed from the session store, when one is active, and
 * then reported: the same output as when the session was live.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=report",
        "osgi.command.function=export"})
public class ReportCommands {
    /** What {@code hp:report} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String REPORT_ARGUMENTS = "[--session ID|NAME] [--domain D] [--renderer name] [--format text|json|csv]"
            + " [--sort keys] [option...]";

    /** What {@code hp:export} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String EXPORT_ARGUMENTS = "<name> <format> <file> [--session ID|NAME] [--domain D] [option...]";

    private final Console console;
    private final Renderers renderers;
    private final Plugins<ReportFileWriter> writers;

    /** Where exports go; optional and dynamic, so hp:report works without it. */
    private final AtomicReference<OutputFiles> output = new AtomicReference<>();
    /** Where sessions the reports no longer keep are replayed from; optional and dynamic. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;
    /** What prints {@code --sort} (the perf source's sorted report); optional and dynamic. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SortedReporter sorted;

    @Activate
    public ReportCommands(@Reference(name = "reports") ReportPlugins reports) {
        this(Console.system(), reports.renderers(), reports.writers(), null);
    }

    ReportCommands(Console console, Plugins<ReportRenderer> renderers) {
        this(console, renderers, new Plugins<>(), null);
    }

    ReportCommands(Console console, Plugins<ReportRenderer> renderers, Plugins<ReportFileWriter> writers,
            OutputFiles output) {
        this.console = console;
        this.renderers = new Renderers(renderers);
        this.writers = writers;
        this.output.set(output);
    }

    @Descriptor("print a session's report (default: the latest session, all domains, opreport)")
    public void report(@Descriptor(REPORT_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.REPORT.syntax(), args, out -> {
            CommandLines.Report line = CommandLines.report(args);
            ReportRequest request = named(line.request(), line.sessionName());
            if (line.sort() != null) {
                sortedReport(request, line.sort(), out);
                return;
            }
            Plugins.Entry<ReportRenderer> renderer = renderers.choose(line.renderer(), "--renderer")
                    .orElseThrow(() -> new IllegalStateException("no report renderer is installed (hp:reports);"
                            + " start one, e.g. org.hyperprof.report.opreport"));
            SessionStores.replayIfMissing(store, request.sessionId(), renderer.service()::sessions);
            out.print(Renderers.render(renderer, request));
        });
    }

    @Descriptor("write a session to a file with a report file writer (report.name), e.g. pprof or a flame graph")
    public void export(@Descriptor(EXPORT_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.EXPORT.syntax(), args, out -> {
            CommandLines.Export line = CommandLines.export(args);
            ReportRequest request = named(line.request(), line.sessionName());
            Plugins.Entry<ReportFileWriter> writer = writers.find(line.writer())
                    .orElseThrow(() -> new IllegalArgumentException("no report file writer '" + line.writer()
                            + "' is installed; installed are " + writers.names() + " (hp:reports)"));
            List<String> formats = formats(writer.service());
            if (!formats.isEmpty() && !formats.contains(line.format())) {
                throw new IllegalArgumentException(writer.name() + " writes " + String.join(", ", formats) + ", not '"
                        + line.format() + "'; e.g. hp:export " + writer.name() + " " + formats.get(0) + " "
                        + line.file());
            }
            Path target = target(line.file());
            OutputFiles files = output.get();
            if (files == null) {
                throw new IllegalStateException("no output service is active, so nothing can be written; start the"
                        + " bundle org.hyperprof.output (lb lists the bundles)");
            }
            SessionStores.replayIfMissing(store, request.sessionId(), writer.service()::sessions);
            // Every refusal (session, domain, format, options) comes here, before the target is touched.
            Content content;
            try {
                content = writer.service().content(request, line.format());
            } catch (ReportException e) {
                String m = String.valueOf(e.getMessage());
                throw m.startsWith(writer.name()) ? e : new ReportException(writer.name() + ": " + m);
            }
            Written written = files.write(target, content);
            out.println(wrote(request, line, writer.name(), written));
            String next = written.placement() == Written.Placement.STREAMED ? null
                    : openWith(line.format(), written.file());
            if (next != null) {
                out.println(next);
            }
        });
    }

    /** perf report's flat profile by {@code keys}, whole or not at all, read from the store. */
    private void sortedReport(ReportRequest request, String keys, java.io.PrintStream out)
            throws java.io.IOException, ReportException {
        SortedReporter reporter = sorted;
        if (reporter == null) {
            throw new IllegalStateException("--sort is printed by the perf source's sorted report, and none is"
                    + " active; start the bundle org.hyperprof.source.perf");
        }
        StringBuilder text = new StringBuilder();
        reporter.print(request, keys, text);
        out.print(text);
    }

    /**
     * The request for the session named {@code name} in the store ({@code hp:profile --name}, {@code
     * hp:name}); {@code request} as it is when no name was given.
     */
    private ReportRequest named(ReportRequest request, String name) throws StoreException {
        if (name == null) {
            return request;
        }
        return new ReportRequest(SessionStores.named(store, name), request.domain(), request.options());
    }

    /** What was written where: through a link, into a stream, or as a file. */
    private static String wrote(ReportRequest request, CommandLines.Export line, String writer, Written w) {
        return WrittenLine.of(w, "wrote", what(request) + " as " + writer + " " + line.format());
    }

    /** The format names a writer lists, each before its description (e.g. {@code svg} of "svg: ..."). */
    static List<String> formats(ReportFileWriter writer) {
        return writer.formats().stream().map(ReportWords::optionName).filter(n -> !n.isEmpty())
                .collect(Collectors.toList());
    }

    /**
     * The file to write as an absolute path; {@code ~/} means the home directory, a relative name the
     * command line's working folder. Whether it can be written is OutputFiles' call (one rule for
     * every file Hyperprof writes).
     */
    static Path target(String file) {
        return WorkingFolder.resolve(file);
    }

    private static String what(ReportRequest request) {
        return (request.sessionId() == ReportRequest.LATEST ? "the latest session" : "session " + request.sessionId())
                + (request.domain() == ReportRequest.ALL_DOMAINS ? " (all domains)" : " (dom" + request.domain() + ")");
    }

    /** How to open what was written, for the formats whose tool is known. */
    static String openWith(String format, Path file) {
        return switch (format) {
            case "pprof" -> "open it with: go tool pprof -top " + file;
            case "svg" -> "open it in a web browser: file://" + file;
            default -> null;
        };
    }

    @Reference(service = OutputFiles.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindOutput")
    void bindOutput(OutputFiles files) {
        output.set(files);
    }

    void unbindOutput(OutputFiles files) {
        output.compareAndSet(files, null);
    }
}
