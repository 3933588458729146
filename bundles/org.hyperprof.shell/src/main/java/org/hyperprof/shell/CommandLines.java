package org.hyperprof.shell;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.xenoprof.XenoprofOp;

/**
 * What each {@code hp:} command accepts, parsed from its words into a record. Everything a user
 * can get wrong on the command line is caught here, before any service is touched.
 */
public final class CommandLines {
    /** The default one-shot run: one simulated second. */
    public static final long DEFAULT_PROFILE_MS = 1000;
    /** The renderer {@code hp:profile} and {@code hp:report} use when none is named. */
    public static final String DEFAULT_RENDERER = "opreport";
    /** Longest run a command accepts, so that milliseconds still fit microseconds in a long. */
    static final long MAX_MS = Long.MAX_VALUE / 1000;

    private CommandLines() {
    }

    /** For the commands that take nothing. */
    public static void none(String[] argv) throws UsageException {
        Args.parse(argv, Set.of(), Set.of()).atMostPositional(0, "no arguments");
    }

    /** {@code hp:events [cpu.type]}: the cpu.type, or null for the current host's model. */
    public static String events(String[] argv) throws UsageException {
        List<String> p = Args.parse(argv, Set.of(), Set.of()).atMostPositional(1, "at most one cpu.type").positional();
        return p.isEmpty() ? null : p.get(0);
    }

    /** {@code hp:help [command]}: the command asked about, or null for the list. */
    public static HpCommand help(String[] argv) throws UsageException {
        List<String> p = Args.parse(argv, Set.of(), Set.of()).atMostPositional(1, "at most one command name")
                .positional();
        if (p.isEmpty()) {
            return null;
        }
        HpCommand c = HpCommand.find(p.get(0));
        if (c == null) {
            throw new UsageException("'" + p.get(0) + "' is not an hp command; hp commands are "
                    + Arrays.stream(HpCommand.values()).map(HpCommand::function).collect(Collectors.joining(", "))
                    + " (for other commands: felix:help <command>)");
        }
        return c;
    }

    /** {@code hp:load [name|path] [--cpu cpu.type]}. */
    public record Load(String scenario, String cpuType) {
    }

    public static Load load(String[] argv) throws UsageException {
        Args a = Args.parse(argv, Set.of("--cpu"), Set.of()).atMostPositional(1, "one scenario name or path");
        String scenario = a.positional().isEmpty() ? HostService.DEFAULT_SCENARIO : a.positional().get(0);
        return new Load(scenario, a.value("--cpu"));
    }

    /** {@code hp:run <ms>}: simulated microseconds to run. */
    public static long runMicros(String[] argv) throws UsageException {
        List<String> p = Args.parse(argv, Set.of(), Set.of()).atMostPositional(1, "one number of milliseconds")
                .positional();
        if (p.isEmpty()) {
            throw new UsageException("expected the simulated milliseconds to run, e.g. hp:run 500");
        }
        return Args.number(p.get(0), "the simulated milliseconds", 1, MAX_MS) * 1000;
    }

    /** An op named or numbered; {@code op} is null for a number outside 0..17 (Xen answers -EINVAL). */
    public record OpRef(int number, XenoprofOp op) {
        public String text() {
            return op != null ? op.cName() : "xenoprof_op " + number;
        }
    }

    public static OpRef op(String text) throws UsageException {
        String t = text.trim();
        if (!t.isEmpty() && (Character.isDigit(t.charAt(0)) || t.charAt(0) == '-')) {
            int n = (int) Args.number(t, "the op number", Integer.MIN_VALUE, Integer.MAX_VALUE);
            return new OpRef(n, XenoprofOp.ofNumber(n));
        }
        XenoprofOp op = XenoprofOp.ofName(t);
        if (op == null) {
            throw new UsageException("unknown op '" + text + "'; ops are " + Arrays.stream(XenoprofOp.values())
                    .map(o -> o.name().toLowerCase(java.util.Locale.ROOT) + "(" + o.number() + ")")
                    .collect(Collectors.joining(", ")));
        }
        return new OpRef(op.number(), op);
    }

    /** {@code hp:op <domid> <op> [arg...]}: the caller, the op and the op's own words. */
    public record Op(int caller, OpRef op, List<String> args) {
        public Op {
            args = List.copyOf(args);
        }
    }

    public static Op op(String[] argv) throws UsageException {
        // Positional only: the op's arguments are numbers and event specs, never options.
        List<String> p = argv == null ? List.of() : Arrays.asList(argv);
        if (p.size() < 2) {
            throw new UsageException("expected the calling domain and the op, e.g. hp:op 0 init");
        }
        return new Op(Args.domid(p.get(0), "the calling domain id"), op(p.get(1)), p.subList(2, p.size()));
    }

    /** {@code hp:opcontrol <domid> <args...>}: the domain and opcontrol's own arguments, untouched. */
    public record Opcontrol(int domid, List<String> args) {
        public Opcontrol {
            args = List.copyOf(args);
        }
    }

    public static Opcontrol opcontrol(String[] argv) throws UsageException {
        List<String> p = argv == null ? List.of() : Arrays.asList(argv);
        if (p.isEmpty()) {
            throw new UsageException("expected the domain to run opcontrol in, then its arguments,"
                    + " e.g. hp:opcontrol 0 --start-daemon --active-domains=0,1");
        }
        int domid = Args.domid(p.get(0), "the domain id");
        if (p.size() == 1) {
            throw new UsageException("expected opcontrol arguments after the domain id, e.g. hp:opcontrol "
                    + domid + " --status");
        }
        return new Opcontrol(domid, p.subList(1, p.size()));
    }

    /** {@code hp:profile ...}. {@code renderer} is null when none was named (the default applies). */
    public record Profile(long micros, List<String> events, List<Integer> domains, String scenario, String cpuType,
            String renderer, boolean noReport) {
        public Profile {
            events = List.copyOf(events);
            domains = List.copyOf(domains);
        }
    }

    public static Profile profile(String[] argv) throws UsageException {
        Args a = Args.parse(argv, Set.of("--ms", "--event", "--domains", "--scenario", "--cpu", "--report"),
                Set.of("--no-report")).atMostPositional(0, "only options; see hp:help profile");
        long ms = a.value("--ms") == null ? DEFAULT_PROFILE_MS
                : Args.number(a.value("--ms"), "--ms (simulated milliseconds)", 1, MAX_MS);
        for (String event : a.values("--event")) {
            try {
                // Syntax only: whether the model has the event is the profiler's check.
                EventSpec.parse(event);
            } catch (EventSpecException e) {
                throw new UsageException("--event: " + e.getMessage());
            }
        }
        List<Integer> domains = a.value("--domains") == null ? List.of()
                : Args.domainList(a.value("--domains"), "--domains");
        if (a.flag("--no-report") && a.value("--report") != null) {
            throw new UsageException("--report " + a.value("--report")
                    + " and --no-report contradict each other; give one");
        }
        return new Profile(ms * 1000, a.values("--event"), domains, a.value("--scenario"), a.value("--cpu"),
                a.value("--report"), a.flag("--no-report"));
    }

    /** {@code hp:report ...}: the request and the renderer, null when none was named. */
    public record Report(ReportRequest request, String renderer) {
    }

    public static Report report(String[] argv) throws UsageException {
        Args a = Args.parse(argv, Set.of("--session", "--domain", "--renderer"), Set.of());
        long session = a.value("--session") == null ? ReportRequest.LATEST
                : Args.number(a.value("--session"), "--session", 0, Long.MAX_VALUE);
        int domain = a.value("--domain") == null ? ReportRequest.ALL_DOMAINS
                : Args.domid(a.value("--domain"), "--domain");
        Set<String> options = new LinkedHashSet<>(a.positional());
        return new Report(new ReportRequest(session, domain, options), a.value("--renderer"));
    }
}
