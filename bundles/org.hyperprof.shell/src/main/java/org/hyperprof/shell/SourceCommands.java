package org.hyperprof.shell;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.source.SampleSources;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.SessionName;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code hp:sources} and {@code hp:read}: files of any installed sample source read into sessions
 * through the pipeline, then printed as {@code hp:profile} prints a profile.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=sources",
        "osgi.command.function=read"})
public class SourceCommands {
    /** What {@code hp:read} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String READ_ARGUMENTS = "<source> <file> [--renderer name] [--name name] [report option...]";

    private final Console console;
    private final Renderers renderers;
    /** The pipeline that reads files into sessions: optional, so hp:sources says when it is missing. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SampleSources sources;

    /** The session store, which keeps {@code --name}: optional, as every consumer is (null when absent). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    @Activate
    public SourceCommands(@Reference(name = "reports") ReportPlugins reports) {
        this(Console.system(), null, reports.renderers());
    }

    /** Plain-Java wiring; {@code sources} may be null (no pipeline). */
    SourceCommands(Console console, SampleSources sources, Plugins<ReportRenderer> renderers) {
        this.console = console;
        this.sources = sources;
        this.renderers = new Renderers(renderers);
    }

    @Descriptor("installed sample sources: source.name and what it reads")
    public void sources(@Descriptor(PluginCommands.LISTING_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.SOURCES.syntax(), args, out -> {
            Table.Format format = CommandLines.listing(HpCommand.SOURCES, args);
            Map<String, String> all = pipeline().sources();
            if (all.isEmpty() && format == Table.Format.TEXT) {
                out.println("no sample sources are installed; start one, e.g. org.hyperprof.source.folded");
                return;
            }
            Table t = new Table("SOURCE.NAME", "READS");
            all.forEach((name, reads) -> t.row(name, reads));
            t.print(out, format);
        });
    }

    @Descriptor("read a file with a sample source into a session every consumer receives, and print its report")
    public void read(@Descriptor(READ_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.READ.syntax(), args, out -> {
            Args a = HpCommand.READ.parse(args);
            if (a.positional().size() < 2) {
                throw new UsageException("expected a source and a file, got " + a.positional().size() + " arguments");
            }
            Set<String> reportWords = new java.util.LinkedHashSet<>(a.positional().subList(2, a.positional().size()));
            // A report for scripts (format=json|csv) is all stdout holds; the rest goes to stderr.
            java.io.PrintStream talk = Renderers.forScripts(reportWords) ? console.err() : out;
            Optional<Plugins.Entry<ReportRenderer>> renderer = renderers.choose(a.value("--renderer"), "--renderer");
            Renderers.checkOptions(renderer, reportWords);
            Path file = ReportCommands.target(a.positional().get(1));
            SessionName.check(store, a.value("--name"), talk);
            SessionSummary summary = pipeline().read(a.positional().get(0), file);
            SessionName.keep(store, summary.sessionId(), a.value("--name"), talk);
            if (renderer.isPresent()) {
                out.print(Renderers.render(renderer.get(),
                        new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS, reportWords)));
            } else {
                talk.println("note: no report renderer is installed (hp:reports), so only the accounting is printed");
            }
            ProfileCommands.printSummary(summary, talk, renderer.isEmpty());
        });
    }

    private SampleSources pipeline() {
        SampleSources s = sources;
        if (s == null) {
            throw new IllegalStateException("the sample pipeline is not running, so no source can be read; start the"
                    + " bundles org.hyperprof.pipeline and org.hyperprof.profiler (lb lists the bundles)");
        }
        return s;
    }
}
