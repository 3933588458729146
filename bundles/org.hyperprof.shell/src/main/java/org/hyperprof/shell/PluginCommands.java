package org.hyperprof.shell;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Table;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.util.tracker.ServiceTracker;

/**
 * {@code hp:models}, {@code hp:events}, {@code hp:policies}, {@code hp:consumers},
 * {@code hp:resolvers}, {@code hp:reports} (renderers and file writers): the plug-ins installed right now and the bundles that
 * provide them. Every kind is bound dynamically, so a bundle started or stopped from the shell
 * shows at once.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=models",
        "osgi.command.function=events", "osgi.command.function=policies", "osgi.command.function=consumers",
        "osgi.command.function=resolvers", "osgi.command.function=reports"})
public class PluginCommands {
    /** What the listing commands take: their usage line and their {@code @Descriptor}. */
    static final String LISTING_ARGUMENTS = "[--format text|json|csv]";

    /** What {@code hp:events} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String EVENTS_ARGUMENTS = "[cpu.type] [--format text|json|csv]";

    /** Only for the default of hp:events; the listings work while the core is away. */
    private volatile HostService hosts;
    private final Console console;
    private final Plugins<PmuModel> models;
    private final Plugins<CounterVirtualizationPolicy> policies;
    private final Plugins<SampleConsumer> consumers;
    private final Plugins<SymbolResolver> resolvers;
    private final Plugins<ReportRenderer> renderers;
    private final Plugins<ReportFileWriter> writers;
    /** The models, policies, consumers and resolvers. */
    private final PluginKinds kinds;
    /** Keeps them under a framework (null in plain Java, where the caller fills the lists). */
    private ServiceTracker<Object, Object> tracker;

    @Activate
    public PluginCommands(BundleContext context, @Reference(name = "reports") ReportPlugins reports) {
        this(null, Console.system(), new Plugins<>(), new Plugins<>(), new Plugins<>(), new Plugins<>(),
                reports.renderers(), reports.writers());
        tracker = kinds.tracker(context);
        tracker.open();
    }

    /** Plain-Java wiring without report file writers. */
    PluginCommands(HostService hosts, Console console, Plugins<PmuModel> models,
            Plugins<CounterVirtualizationPolicy> policies, Plugins<SampleConsumer> consumers,
            Plugins<SymbolResolver> resolvers, Plugins<ReportRenderer> renderers) {
        this(hosts, console, models, policies, consumers, resolvers, renderers, new Plugins<>());
    }

    /** Plain-Java wiring: the plug-in lists are filled by the caller; {@code hosts} may be null. */
    PluginCommands(HostService hosts, Console console, Plugins<PmuModel> models,
            Plugins<CounterVirtualizationPolicy> policies, Plugins<SampleConsumer> consumers,
            Plugins<SymbolResolver> resolvers, Plugins<ReportRenderer> renderers, Plugins<ReportFileWriter> writers) {
        this.hosts = hosts;
        this.console = console;
        this.models = models;
        this.policies = policies;
        this.consumers = consumers;
        this.resolvers = resolvers;
        this.renderers = renderers;
        this.writers = writers;
        this.kinds = new PluginKinds().kind(PmuModel.class, PmuModel.IDENTITY, models)
                .kind(CounterVirtualizationPolicy.class, CounterVirtualizationPolicy.IDENTITY, policies)
                .kind(SampleConsumer.class, SampleConsumer.IDENTITY, consumers)
                .kind(SymbolResolver.class, SymbolResolver.IDENTITY, resolvers);
    }

    @Descriptor("installed CPU models: cpu.type, name, counters x width, providing bundle, number of events")
    public void models(@Descriptor(LISTING_ARGUMENTS) String... args) {
        listing(args, HpCommand.MODELS, models, List.of("CPU.TYPE", "NAME", "COUNTERS", "EVENTS", "BUNDLE"),
                (t, e) -> t.row(e.name(), e.service().displayName(), e.service().counterCount() + " x "
                        + e.service().counterWidth() + " bits", eventCount(e.service()), e.provider()),
                "CPU models", "start a model bundle, e.g. org.hyperprof.pmu.p6");
    }

    @Descriptor("a CPU model's event table: name, code, counters, minimum count, unit mask, description")
    public void events(@Descriptor(EVENTS_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.EVENTS.syntax(), args, out -> {
            CommandLines.Events asked = CommandLines.events(args);
            String cpuType = asked.cpuType();
            PmuModel model = cpuType == null ? currentModel() : models.find(cpuType).map(Plugins.Entry::service)
                    .orElseThrow(() -> new IllegalArgumentException("no CPU model '" + cpuType
                            + "' is installed; installed are " + models.names() + " (hp:models)"));
            if (asked.format() == Table.Format.TEXT) {
                printEvents(model, models.of(model).map(Plugins.Entry::provider).orElse(null), out);
            } else {
                eventRows(model).print(out, asked.format());
            }
        });
    }

    @Descriptor("installed counter-virtualization policies: vpmu.policy, description, providing bundle")
    public void policies(@Descriptor(LISTING_ARGUMENTS) String... args) {
        listing(args, HpCommand.POLICIES, policies, List.of("VPMU.POLICY", "BUNDLE", "DESCRIPTION"),
                (t, e) -> t.row(e.name(), e.provider(), e.service().description()),
                "counter-virtualization policies", "start a policy bundle, e.g. org.hyperprof.vpmu.systemwide");
    }

    @Descriptor("installed sample consumers: consumer.name, providing bundle")
    public void consumers(@Descriptor(LISTING_ARGUMENTS) String... args) {
        listing(args, HpCommand.CONSUMERS, consumers, List.of("CONSUMER.NAME", "BUNDLE", "ALSO RENDERS"),
                (t, e) -> t.row(e.name(), e.provider(), renderers.of(e.service())
                        .map(r -> "hp:report --renderer " + r.name()).orElse("-")),
                "sample consumers", "start a consumer bundle, e.g. org.hyperprof.report.opreport");
    }

    @Descriptor("installed symbol resolvers: symbols.format, providing bundle")
    public void resolvers(@Descriptor(LISTING_ARGUMENTS) String... args) {
        listing(args, HpCommand.RESOLVERS, resolvers, List.of("SYMBOLS.FORMAT", "BUNDLE"),
                (t, e) -> t.row(e.name(), e.provider()),
                "symbol resolvers", "start a resolver bundle, e.g. org.hyperprof.symbols.kallsyms");
    }

    @Descriptor("installed report renderers and file writers: report.name, providing bundle, sessions, options,"
            + " formats")
    public void reports(@Descriptor(LISTING_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.REPORTS.syntax(), args, out -> {
            Table.Format format = CommandLines.listing(HpCommand.REPORTS, args);
            if (format != Table.Format.TEXT) {
                reportRows().print(out, format);
                return;
            }
            Table t = new Table("REPORT.NAME", "BUNDLE", "SESSIONS");
            for (Plugins.Entry<ReportRenderer> e : renderers.list()) {
                t.row(e.name(), e.provider(), sessions(e.service().sessions()));
            }
            printOrNone(out, t, Table.Format.TEXT, "report renderers", "start a renderer bundle, e.g. org.hyperprof.report.opreport");
            printRendererOptions(renderers, out);
            Table w = new Table("FILE WRITER", "BUNDLE", "SESSIONS", "FORMATS");
            for (Plugins.Entry<ReportFileWriter> e : writers.list()) {
                w.row(e.name(), e.provider(), sessions(e.service().sessions()),
                        String.join(", ", ReportCommands.formats(e.service())));
            }
            printOrNone(out, w, Table.Format.TEXT, "report file writers",
                    "start a writer bundle, e.g. org.hyperprof.report.pprof or org.hyperprof.report.flamegraph");
            printWriterFormats(writers, out);
        });
    }

    /**
     * For scripts: one row per renderer and per file writer, with the sessions it keeps (ids
     * separated by spaces) and its options or formats (one per line: their descriptions hold ';').
     */
    private Table reportRows() {
        Table t = new Table("REPORT.NAME", "KIND", "BUNDLE", "SESSIONS", "OPTIONS", "FORMATS");
        for (Plugins.Entry<ReportRenderer> e : renderers.list()) {
            t.row(e.name(), "renderer", e.provider(), ids(e.service().sessions()),
                    String.join("\n", e.service().options()), "");
        }
        for (Plugins.Entry<ReportFileWriter> e : writers.list()) {
            t.row(e.name(), "writer", e.provider(), ids(e.service().sessions()), "",
                    String.join("\n", e.service().formats()));
        }
        return t;
    }

    private static String ids(List<Long> sessions) {
        return sessions.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(" "));
    }

    /** Each renderer's options with their descriptions, as hp:reports and hp:commands report show them. */
    static void printRendererOptions(Plugins<ReportRenderer> renderers, PrintStream out) {
        printDescribed(renderers, ReportRenderer::options,
                name -> name + " options (hp:report --renderer " + name + " <option>...):", out);
    }

    /** Each writer's formats with their descriptions, as hp:reports and hp:commands export show them. */
    static void printWriterFormats(Plugins<ReportFileWriter> writers, PrintStream out) {
        printDescribed(writers, ReportFileWriter::formats,
                name -> name + " formats (hp:export " + name + " <format> <file>):", out);
    }

    /** Each plug-in's described items (options, formats) under its heading, one per line; none, no heading. */
    private static <S> void printDescribed(Plugins<S> plugins, Function<S, List<String>> items,
            UnaryOperator<String> heading, PrintStream out) {
        for (Plugins.Entry<S> e : plugins.list()) {
            List<String> described = items.apply(e.service());
            if (!described.isEmpty()) {
                out.println(heading.apply(e.name()));
                described.forEach(d -> out.println("  " + d));
            }
        }
    }

    private static String sessions(List<Long> sessions) {
        return sessions.isEmpty() ? "none yet" : sessions.toString();
    }

    private PmuModel currentModel() {
        HostService service = hosts;
        if (service == null) {
            throw new IllegalStateException("the host service (bundle org.hyperprof.hypervisor) is not running, so"
                    + " there is no current model: name one (installed are " + models.names() + ")");
        }
        Optional<Host> host = service.current();
        if (host.isEmpty()) {
            throw new IllegalStateException("no host is loaded, so there is no current model: name one"
                    + " (installed are " + models.names() + ") or hp:load first");
        }
        return host.get().model();
    }

    static void printEvents(PmuModel model, String provider, PrintStream out) {
        EventTable table = model.events();
        List<EventDescriptor> events = table.events();
        out.printf("%s (%s): %d counters x %d bits, %d events%s; default event %s%n", model.cpuType(),
                model.displayName(), model.counterCount(), model.counterWidth(), events.size(),
                provider == null ? "" : ", from " + provider, model.defaultEvent());
        Table t = new Table("EVENT", "CODE", "COUNTERS", "MINIMUM", "UNIT MASK", "DESCRIPTION");
        boolean sampled = false;
        for (EventDescriptor d : events) {
            UnitMask um = d.unitMask();
            sampled |= d.counterMask() == 0;
            t.row(d.name(), String.format("0x%02x", d.code()), countersCell(d), d.minimumCount(), maskHeader(um),
                    d.description());
            if (um.values().size() > 1) {
                // Each value a user may give in EVENT:count:um, under the unit mask column.
                for (UnitMask.Value v : um.values()) {
                    t.row("", "", "", "", String.format("  0x%02x", v.value()), v.description());
                }
            }
        }
        t.print(out);
        if (sampled) {
            out.println("COUNTERS -: no counter counts the event, AMD's instruction-based sampling (IBS) samples it:"
                    + " every IBS_FETCH_* event takes one count and one unit mask, every IBS_OP_* event another; IBS"
                    + " samples every privilege level (give :1:1)");
        }
    }

    /** The counters an event may use, or "-" for one a sampler (AMD IBS) takes instead. */
    private static String countersCell(EventDescriptor d) {
        return d.counterMask() == 0 ? "-" : d.countersText();
    }

    /**
     * For scripts: one row per event, then one per value of its unit mask when it has a choice of
     * them (the event's name repeated, the value in its own column).
     */
    static Table eventRows(PmuModel model) {
        Table t = new Table("EVENT", "CODE", "COUNTERS", "MINIMUM", "UNIT_MASK", "UNIT_MASK_VALUE", "DESCRIPTION");
        for (EventDescriptor d : model.events().events()) {
            UnitMask um = d.unitMask();
            t.row(d.name(), String.format("0x%02x", d.code()), countersCell(d), d.minimumCount(), maskHeader(um), "",
                    d.description());
            if (um.values().size() > 1) {
                for (UnitMask.Value v : um.values()) {
                    t.row(d.name(), "", "", "", um.name(), String.format("0x%02x", v.value()), v.description());
                }
            }
        }
        return t;
    }

    /** {@code zero}, or for a choice of values {@code mesi (bitmask, default 0x0f)}. */
    private static String maskHeader(UnitMask um) {
        if (um.values().size() <= 1) {
            return um.values().isEmpty() ? um.name()
                    : String.format("%s (0x%02x)", um.name(), um.values().get(0).value());
        }
        return String.format("%s (%s, default 0x%02x)", um.name(), um.kind().name().toLowerCase(java.util.Locale.ROOT),
                um.defaultValue());
    }

    private static Object eventCount(PmuModel m) {
        try {
            return m.events().events().size();
        } catch (RuntimeException e) {
            // One broken model must not hide the others: show why in its row.
            return "unreadable: " + e.getMessage();
        }
    }

    /**
     * One kind's listing: a row of {@code columns} for each plug-in, or for people a line saying none of
     * {@code what} is installed and what to start ({@code hint}).
     */
    private <S> void listing(String[] args, HpCommand command, Plugins<S> plugins, List<String> columns,
            BiConsumer<Table, Plugins.Entry<S>> row, String what, String hint) {
        Guard.run(console, command.syntax(), args, out -> {
            Table.Format format = CommandLines.listing(command, args);
            Table t = new Table(columns.toArray(String[]::new));
            for (Plugins.Entry<S> e : plugins.list()) {
                row.accept(t, e);
            }
            printOrNone(out, t, format, what, hint);
        });
    }

    /** The table, or for people a line saying none is installed; a script gets an empty table. */
    private static void printOrNone(PrintStream out, Table t, Table.Format format, String what, String hint) {
        if (t.size() == 0 && format == Table.Format.TEXT) {
            out.println("no " + what + " installed: " + hint);
        } else {
            t.print(out, format);
        }
    }

    // --- the core, bound by DS; the plug-ins come through the tracker ---

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC, unbind = "unbindHosts")
    void bindHosts(HostService service) {
        hosts = service;
    }

    void unbindHosts(HostService service) {
        if (hosts == service) {
            hosts = null;
        }
    }

    @Deactivate
    void deactivate() {
        if (tracker != null) {
            tracker.close();
        }
    }
}
