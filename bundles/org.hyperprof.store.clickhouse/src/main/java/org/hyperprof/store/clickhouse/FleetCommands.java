package org.hyperprof.store.clickhouse;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.output.Written;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;
import org.hyperprof.command.kit.When;
import org.hyperprof.report.kit.Shares;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:fleet}: the fleet's outbox ({@code status}, {@code ship}) and its questions across every
 * host's committed sessions ({@code hosts}, {@code top}, {@code diff}, {@code export}), each a table of
 * the one command grammar with {@code --format text|json|csv}.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=fleet"})
public final class FleetCommands {
    static final Option FORMAT = Option.choice("--format", List.of("text", "json", "csv"),
            "text (aligned columns, the default), json (an array of objects) or csv (RFC 4180, a header row)");
    static final int DEFAULT_TOP = 30;

    private static final Option[] FILTERS = {
        Option.value("--hosts", "a,b", "only these hosts (their host.id)"),
        Option.value("--host-pattern", "regex", "only the hosts the regular expression matches (anywhere)"),
        Option.value("--since", "time", "sessions started at or after: a date, date and time, instant or age"
                + " (" + When.AGES + ")"),
        Option.value("--until", "time", "sessions started before (the same forms)"),
        Option.value("--mode", "kinds", "only these modes: hypervisor, kernel, user (comma-separated)"),
        Option.value("--event", "name", "the event counted (CPU_CLK_UNHALTED); default: each session's first")};

    static final String FLEET_ARGUMENTS = "status|ship|hosts|top|diff|export [word ...] [option ...]";

    static final Syntax FLEET = Syntax.of("hp:fleet", "the fleet's sessions in ClickHouse: the outbox, the hosts,"
            + " the top images or symbols, diffs, fleet profiles").before(FLEET_ARGUMENTS, Completion.NONE)
            .notes("  hp:fleet status              what the outbox holds and why (hp:fleet ship: ship now)\n"
                    + "  hp:fleet hosts               hosts, their last session, sessions, samples, versions\n"
                    + "  hp:fleet top [images|symbols] [filters] [--top N]\n"
                    + "  hp:fleet diff [images|symbols] --a-hosts ... --b-hosts ... (or --a-since/--b-since ...)\n"
                    + "  hp:fleet export pprof|flamegraph FILE [filters]\n"
                    + "  hp:fleet <word> --help       one word's options");

    static final Syntax STATUS = Syntax.of("hp:fleet status", "what the fleet's outbox holds, and why")
            .options(FORMAT);
    static final Syntax SHIP = Syntax.of("hp:fleet ship", "ship the outbox's sessions now");
    static final Syntax HOSTS = Syntax.of("hp:fleet hosts", "the fleet's hosts: last session, sessions, samples,"
            + " CPU, hypervisor, kernel, Hyperprof and schema versions").options(FORMAT);
    static final Syntax TOP = Syntax.of("hp:fleet top", "the images or symbols with the most samples across the"
            + " fleet").before("[images|symbols]", Completion.NONE).options(with(FILTERS,
                    Option.value("--top", "N", "rows (default " + DEFAULT_TOP + ")"), FORMAT));
    static final Syntax DIFF = Syntax.of("hp:fleet diff", "group B of hosts or times against group A, as hp:diff"
            + " compares sessions").before("[images|symbols]", Completion.NONE).options(with(new Option[] {
                Option.value("--a-hosts", "a,b", "group A: these hosts"),
                Option.value("--a-pattern", "regex", "group A: the hosts the expression matches"),
                Option.value("--a-since", "time", "group A: sessions started at or after"),
                Option.value("--a-until", "time", "group A: sessions started before"),
                Option.value("--b-hosts", "a,b", "group B: these hosts"),
                Option.value("--b-pattern", "regex", "group B: the hosts the expression matches"),
                Option.value("--b-since", "time", "group B: sessions started at or after"),
                Option.value("--b-until", "time", "group B: sessions started before"),
                Option.value("--mode", "kinds", "both groups: only these modes (hypervisor, kernel, user)"),
                Option.value("--event", "name", "both groups: the event counted"),
                Option.value("--top", "N", "rows (default " + DEFAULT_TOP + ")")}, FORMAT));
    static final Syntax EXPORT = Syntax.of("hp:fleet export", "write the fleet profile: pprof (a host label on"
            + " every sample) or flamegraph (folded stacks, host the root frame)")
            .before("pprof|flamegraph FILE", Completion.FILE).options(FILTERS);

    private static Option[] with(Option[] first, Option... more) {
        Option[] all = Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    private final FleetShipper shipper;
    private final OutputFiles files;
    private final Console console;
    private final ZoneId zone;

    @Activate
    public FleetCommands(@Reference FleetShipper shipper, @Reference OutputFiles files) {
        this(shipper, files, Console.system(), ZoneId.systemDefault());
    }

    /** Plain Java and tests. */
    FleetCommands(FleetShipper shipper, OutputFiles files, Console console, ZoneId zone) {
        this.shipper = shipper;
        this.files = files;
        this.console = console;
        this.zone = zone;
    }

    @Descriptor("the fleet's sessions in ClickHouse: the outbox, the hosts, the top images or symbols, diffs,"
            + " fleet profiles")
    public void fleet(@Descriptor(FLEET_ARGUMENTS) String... args) {
        if (args.length == 0 || args[0].startsWith("-")) {
            Guard.run(console, FLEET, args, out -> {
                throw new UsageException("give what to do: status, ship, hosts, top, diff or export");
            });
            return;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "status" -> Guard.run(console, STATUS, rest, out -> status(out, STATUS.parse(rest)));
            case "ship" -> Guard.run(console, SHIP, rest, out -> {
                SHIP.parse(rest).atMostPositional(0, "nothing");
                FleetStatus s = shipper.shipNow();
                // Pending and no problem: the shipment goes on (a large outbox outlasts the wait), or more came.
                out.println("shipped " + s.shipped() + " sessions since the shipper started; " + s.pending().size()
                        + " pending" + (s.problem() != null ? ": " + s.problem()
                                : s.pending().isEmpty() ? "" : " (still shipping: hp:fleet status shows what is left)"));
                if (s.problem() != null) {
                    throw new IllegalStateException(s.problem());
                }
            });
            case "hosts" -> Guard.run(console, HOSTS, rest, out -> hosts(out, HOSTS.parse(rest)));
            case "top" -> Guard.run(console, TOP, rest, out -> top(out, TOP.parse(rest)));
            case "diff" -> Guard.run(console, DIFF, rest, out -> diff(out, DIFF.parse(rest)));
            case "export" -> Guard.run(console, EXPORT, rest, out -> export(out, EXPORT.parse(rest)));
            default -> Guard.run(console, FLEET, args, out -> {
                throw new UsageException("no such word '" + args[0] + "': status, ship, hosts, top, diff or export");
            });
        }
    }

    private void status(PrintStream out, Args a) throws Exception {
        a.atMostPositional(0, "nothing");
        FleetStatus s = shipper.status();
        Table.Format format = Table.Format.of(a.value("--format"));
        Table t = new Table("ID", "STARTED", "HOST", "SOURCE", "SAMPLES");
        for (StoredSession p : s.pending()) {
            t.row(p.id(), p.startedAt(), p.hostId(), p.source(), p.samples());
        }
        if (format == Table.Format.TEXT) {
            out.println("endpoints: " + (s.endpoints().isEmpty() ? "none (setting endpoints of pid " + FleetShipper.PID
                    + ")" : String.join(", ", s.endpoints())));
            out.println("pending: " + s.pending().size() + " sessions" + (s.problem() == null ? ""
                    : ", waiting: " + s.problem()) + (s.nextTry() == null ? "" : "; next try at " + s.nextTry()));
            out.println("shipped: " + s.shipped() + " sessions since the shipper started"
                    + (s.lastShipped() == null ? "" : ", the last at " + s.lastShipped()));
            if (t.size() > 0) {
                t.print(out, format);
            }
        } else {
            t.print(out, format);
            if (s.problem() != null) {
                console.err().println("hp:fleet status: waiting: " + s.problem());
            }
        }
    }

    private void hosts(PrintStream out, Args a) throws Exception {
        a.atMostPositional(0, "nothing");
        Table t = new Table("HOST", "LAST_SESSION", "SESSIONS", "SAMPLES", "CPU", "HYPERVISOR", "KERNEL", "HYPERPROF",
                "SCHEMA");
        for (FleetQueries.HostRow h : queries().hosts()) {
            t.row(h.host(), h.lastSession(), h.sessions(), h.samples(), h.cpuModel(), h.hypervisorVersion(),
                    h.kernelVersion(), h.hyperprofVersion(), h.schemaVersion());
        }
        t.print(out, Table.Format.of(a.value("--format")));
    }

    private void top(PrintStream out, Args a) throws Exception {
        boolean symbols = what(a);
        int n = top(a);
        Table t = symbols ? new Table("SAMPLES", "SHARE", "WEIGHT", "HOSTS", "IMAGE", "SYMBOL")
                : new Table("SAMPLES", "SHARE", "WEIGHT", "HOSTS", "IMAGE");
        FleetFilter f = filter(a); // a usage error before any server is asked
        for (FleetQueries.TopRow r : queries().top(f, symbols, n)) {
            String share = String.format(Locale.ROOT, "%.4f%%", 100 * r.share());
            if (symbols) {
                t.row(r.samples(), share, r.weight(), r.hosts(), r.image(), r.symbol());
            } else {
                t.row(r.samples(), share, r.weight(), r.hosts(), r.image());
            }
        }
        t.print(out, Table.Format.of(a.value("--format")));
    }

    private void diff(PrintStream out, Args a) throws Exception {
        boolean symbols = what(a);
        FleetFilter common = new FleetFilter(List.of(), null, null, null, modes(a), a.value("--event"));
        FleetFilter fa = group(a, "--a-", common);
        FleetFilter fb = group(a, "--b-", common);
        FleetQueries.Diff d = queries().diff(fa, fb, symbols, top(a));
        Table.Format format = Table.Format.of(a.value("--format"));
        Table t = symbols ? new Table("BASELINE", "DELTA", "MARK", "RATIO", "SAMPLES_A", "SAMPLES_B", "IMAGE", "SYMBOL")
                : new Table("BASELINE", "DELTA", "MARK", "RATIO", "SAMPLES_A", "SAMPLES_B", "IMAGE");
        for (FleetQueries.DiffRow r : d.rows()) {
            String base = String.format(Locale.ROOT, "%.4f%%", 100 * r.shareA());
            String delta = String.format(Locale.ROOT, "%+.4f%%", r.deltaPoints());
            String ratio = r.shareA() == 0 ? "" : String.format(Locale.ROOT, "%.6f", r.shareB() / r.shareA());
            if (symbols) {
                t.row(base, delta, r.marked() ? "*" : "", ratio, r.samplesA(), r.samplesB(), r.image(), r.symbol());
            } else {
                t.row(base, delta, r.marked() ? "*" : "", ratio, r.samplesA(), r.samplesB(), r.image());
            }
        }
        if (format == Table.Format.TEXT) {
            out.println("Fleet diff of group B (" + d.totalB() + " samples) against group A, the baseline ("
                    + d.totalA() + " samples); shares are of each group's samples");
        }
        t.print(out, format);
        if (format == Table.Format.TEXT) {
            if (d.more() > 0) {
                out.println("... " + d.more() + " more rows not shown (past --top)");
            }
            out.println();
            out.println(Shares.RULE);
        }
    }

    private void export(PrintStream out, Args a) throws Exception {
        List<String> words = a.positional();
        if (words.size() != 2 || !List.of("pprof", "flamegraph").contains(words.get(0))) {
            throw new UsageException("give pprof or flamegraph and the file: hp:fleet export pprof fleet.pb.gz");
        }
        FleetFilter f = filter(a);
        List<FleetQueries.ProfileRow> rows = queries().profile(f);
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("the fleet has no committed samples these filters select");
        }
        boolean pprof = words.get(0).equals("pprof");
        Written w = files.write(Path.of(words.get(1)).toAbsolutePath(), pprof ? FleetProfile.pprof(rows)
                : FleetProfile.folded(rows));
        long hosts = rows.stream().map(FleetQueries.ProfileRow::host).distinct().count();
        out.println((w.placement() == Written.Placement.STREAMED ? "streamed" : "wrote") + " the fleet profile of "
                + hosts + " hosts (" + (pprof ? "pprof, a host label on every sample" : "folded stacks, host the root"
                        + " frame") + ") " + (w.placement() == Written.Placement.STREAMED ? "into " : "to ")
                + w.target() + " (" + w.bytes() + " bytes)");
    }

    private FleetQueries queries() {
        if (shipper.settings().endpoints().isEmpty()) {
            throw new IllegalStateException("no ClickHouse endpoint is configured (setting endpoints of pid "
                    + FleetShipper.PID + ": hp:config " + FleetShipper.PID + " endpoints=http://127.0.0.1:8123)");
        }
        return new FleetQueries(shipper.http());
    }

    private static boolean what(Args a) throws UsageException {
        a.atMostPositional(1, "images or symbols");
        String w = a.positional().isEmpty() ? "symbols" : a.positional().get(0);
        if (!w.equals("images") && !w.equals("symbols")) {
            throw new UsageException("give images or symbols, not '" + w + "'");
        }
        return w.equals("symbols");
    }

    private static int top(Args a) throws UsageException {
        return a.value("--top") == null ? DEFAULT_TOP : (int) Args.number(a.value("--top"), "--top", 1, 1_000_000);
    }

    private FleetFilter filter(Args a) throws UsageException {
        Instant now = Instant.now();
        String hosts = a.value("--hosts");
        String since = a.value("--since");
        String until = a.value("--until");
        return new FleetFilter(hosts == null ? List.of() : Args.nameList(hosts, "--hosts", "host-1,host-2"),
                a.value("--host-pattern"), since == null ? null : When.instant(since, "--since", now, zone),
                until == null ? null : When.instant(until, "--until", now, zone), modes(a), a.value("--event"));
    }

    private static List<Integer> modes(Args a) throws UsageException {
        List<Integer> modes = new ArrayList<>();
        if (a.value("--mode") != null) {
            for (String m : Args.nameList(a.value("--mode"), "--mode", "hypervisor,kernel")) {
                modes.add(switch (m.toLowerCase(Locale.ROOT)) {
                    case "user" -> 0;
                    case "kernel" -> 1;
                    case "hypervisor" -> 2;
                    default -> throw new UsageException("--mode takes hypervisor, kernel and user, not '" + m + "'");
                });
            }
        }
        return modes;
    }

    /** A diff's group: the common filter with this group's hosts, pattern and times. */
    private FleetFilter group(Args a, String prefix, FleetFilter common) throws UsageException {
        Instant now = Instant.now();
        String hosts = a.value(prefix + "hosts");
        String since = a.value(prefix + "since");
        String until = a.value(prefix + "until");
        String pattern = a.value(prefix + "pattern");
        if (hosts == null && since == null && until == null && pattern == null) {
            throw new UsageException("say what group " + prefix.charAt(2) + " is: " + prefix + "hosts, " + prefix
                    + "pattern, " + prefix + "since or " + prefix + "until");
        }
        return new FleetFilter(hosts == null ? List.of() : Args.nameList(hosts, prefix + "hosts", "host-1,host-2"),
                pattern, since == null ? null : When.instant(since, prefix + "since", now, zone),
                until == null ? null : When.instant(until, prefix + "until", now, zone), common.modes(),
                common.event());
    }
}
