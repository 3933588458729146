package org.hyperprof.shell;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.SessionName;
import org.hyperprof.command.kit.UsageException;
import org.hyperprof.shell.session.WorkingFolder;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/** {@code hp:profile}: a one-shot profile from setup to report. */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=profile"})
public class ProfileCommands {
    /** What {@code hp:profile} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String PROFILE_ARGUMENTS = "[--ms N] [--event SPEC]... [--domains 0,1] [--passive 2,3]"
            + " [--passive-images k2,k3] [--callgraph N] [--scenario name|path] [--cpu cpu.type] [--host-option k=v]..."
            + " [--pmu-option k=v]... [--report name] [--no-report] [--guests-only] [--name name] [report option...]";

    private final HostService hosts;
    private final Profiler profiler;
    private final StopRequests stops;
    private final Console console;
    private final Renderers renderers;

    /** The session store, which keeps {@code --name}: optional, as every consumer is (null when absent). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    @Activate
    public ProfileCommands(@Reference(name = "hosts") HostService hosts,
            @Reference(name = "profiler") Profiler profiler, @Reference(name = "stops") StopRequests stops,
            @Reference(name = "reports") ReportPlugins reports) {
        this(hosts, profiler, stops, Console.system(), reports.renderers());
    }

    ProfileCommands(HostService hosts, Profiler profiler, StopRequests stops, Console console,
            Plugins<ReportRenderer> renderers) {
        this.hosts = hosts;
        this.profiler = profiler;
        this.stops = stops;
        this.console = console;
        this.renderers = new Renderers(renderers);
    }

    @Descriptor("one-shot profile: load the scenario if needed, set up every domain, start, run, stop, print the"
            + " report of all domains and of each")
    public void profile(@Descriptor(PROFILE_ARGUMENTS) String... args) {
        try (StopRequests.Watch watch = stops.watch(HpCommand.PROFILE.scoped())) {
            profileWatched(args, watch);
        }
    }

    private void profileWatched(String[] args, StopRequests.Watch watch) {
        Guard.run(console, HpCommand.PROFILE.syntax(), args, report -> {
            CommandLines.Profile line = CommandLines.profile(args);
            // A report for scripts (format=json|csv) is all stdout holds; the rest goes to stderr.
            PrintStream out = Renderers.forScripts(line.reportOptions()) ? console.err() : report;
            // Settle the renderer before a long run, so a typo does not cost the run.
            Optional<Plugins.Entry<ReportRenderer>> renderer = line.noReport() ? Optional.empty()
                    : renderers.choose(line.renderer(), "--report");
            Renderers.checkOptions(renderer, line.reportOptions());
            String name = HpCommand.PROFILE.parse(args).value("--name");
            SessionName.check(store, name, out);
            if (!line.noReport() && renderer.isEmpty()) {
                out.println("note: no report renderer is installed (hp:reports), so only the accounting is printed");
            }
            Host host = hostFor(line, out);
            out.printf("profiling %s for %d ms simulated%s%s%n", host.name(), line.micros() / 1000,
                    line.events().isEmpty() ? " (event: " + host.model().defaultEvent() + ")"
                            : " (events: " + String.join(" ", line.events()) + ")",
                    multiDomainPart(line));
            ProfileRequest typed = line.request();
            ProfileRequest request = new ProfileRequest(typed.events(), typed.micros(), typed.activeDomains(),
                    typed.passiveDomains(), PassiveImageFiles.resolve(typed.passiveImages(), host),
                    typed.callgraphDepth(), typed.systemWide());
            SessionSummary summary = profiler.profile(request, watch.listener(new ProgressPrinter(out)));
            SessionName.keep(store, summary.sessionId(), name, out);
            boolean reported = false;
            if (renderer.isPresent()) {
                try {
                    ReportRequest all = new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS,
                            line.reportOptions());
                    report.print(Renderers.render(renderer.get(), all));
                    reported = true;
                    if (request.callgraphDepth() > 0 && Renderers.offers(renderer.get(), CALLGRAPH_OPTION)) {
                        out.println("call graph: hp:report --session " + summary.sessionId()
                                + (renderer.get().name().equals(CommandLines.DEFAULT_RENDERER) ? ""
                                        : " --renderer " + renderer.get().name())
                                + " " + CALLGRAPH_OPTION);
                    }
                } catch (ReportException e) {
                    // The session is done and kept: say why there is no report, then still give its books.
                    console.err().println(HpCommand.PROFILE.scoped() + ": " + e.getMessage());
                }
            }
            printSummary(summary, out, !reported);
        });
    }

    /** The current host, or a freshly loaded one when none is loaded or a scenario or CPU was asked for. */
    private Host hostFor(CommandLines.Profile line, PrintStream out) throws Exception {
        Optional<Host> current = hosts.current();
        if (current.isPresent() && line.scenario() == null && line.cpuType() == null && line.hostOptions().isEmpty()
                && line.pmuOptions().isEmpty()) {
            Host host = current.get();
            if (host.stopReason() != null) {
                throw new IllegalStateException("the current host " + host.name() + " stopped: " + host.stopReason()
                        + "; load a host again with hp:load, or hp:profile --scenario <name>");
            }
            return host;
        }
        String scenario = line.scenario() != null ? line.scenario() : HostService.DEFAULT_SCENARIO;
        Host host = hosts.load(WorkingFolder.nameOrFile(scenario, hosts.scenarios()), line.cpuType(), line.hostOptions(), line.pmuOptions());
        out.printf("loaded %s: %s (%s) at %d MHz, %d pCPU(s), %d domains, policy %s%n", host.name(),
                host.model().cpuType(), host.model().displayName(), host.mhz(), host.pcpuCount(), host.domains().size(),
                host.policy());
        return host;
    }

    /** {@code , passive dom2 dom3 (kernels ...), call traces up to 6 deep}: the multi-domain part of the run. */
    private static String multiDomainPart(CommandLines.Profile line) {
        StringBuilder b = new StringBuilder();
        if (!line.passive().isEmpty()) {
            b.append(", passive ").append(ids(line.passive()));
            for (int i = 0; i < line.passiveImages().size(); i++) {
                b.append(i == 0 ? " (kernels " : ", ").append("dom").append(line.passive().get(i)).append(' ')
                        .append(line.passiveImages().get(i));
            }
            if (!line.passiveImages().isEmpty()) {
                b.append(')');
            }
        }
        if (line.callgraphDepth() > 0) {
            b.append(", call traces up to ").append(line.callgraphDepth()).append(" deep");
        }
        return b.toString();
    }

    private static String ids(List<Integer> domids) {
        return domids.stream().map(id -> "dom" + id).collect(Collectors.joining(" "));
    }

    /** The option a renderer lists when it can print call graphs. */
    static final String CALLGRAPH_OPTION = "callgraph";

    /**
     * The session's books: the accounting line, how many host counters there are (once: a report
     * printed before says it already; {@code hp:report host} lists them), the notes, and whatever
     * ended the session early or a consumer missed.
     */
    static void printSummary(SessionSummary summary, PrintStream out, boolean hostLine) {
        out.println("session " + summary.sessionId() + ": " + summary.accounting().line());
        if (hostLine && !summary.hostCounters().isEmpty()) {
            out.println("host: " + summary.hostCounters().size() + " counters (hp:report --session "
                    + summary.sessionId() + " host lists them)");
        }
        for (String note : summary.notes()) {
            out.println("note: " + note);
        }
        if (!summary.completed()) {
            out.println("session ended early: " + summary.endReason());
        }
        for (ConsumerAccounting c : summary.consumers()) {
            if (c.missed() > 0 || c.problem() != null) {
                out.println("consumer " + c.consumer() + " received " + c.received() + " and missed " + c.missed()
                        + " samples" + (c.problem() == null ? "" : ": " + c.problem()));
            }
        }
    }
}
