package org.hyperprof.shell;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;

/**
 * What each {@code hp:} command accepts, parsed from its words into a record. Everything a user
 * can get wrong on the command line is caught here, before any service is touched.
 */
public final class CommandLines {
    /** The default one-shot run: one simulated second. */
    public static final long DEFAULT_PROFILE_MS = 1000;
    /** The renderer {@code hp:profile} and {@code hp:report} use when none is named. */
    public static final String DEFAULT_RENDERER = "opreport";
    /** Longest run a command accepts: the host's longest run, one simulated hour. */
    static final long MAX_MS = Host.MAX_RUN_MICROS / 1000;

    private CommandLines() {
    }

    /** For the commands that take nothing. */
    public static void none(HpCommand command, String[] argv) throws UsageException {
        command.parse(argv).atMostPositional(0, "no arguments");
    }

    /** A listing command's words: {@code [--format text|json|csv]}. */
    public static Table.Format listing(HpCommand command, String[] argv) throws UsageException {
        Args a = command.parse(argv).atMostPositional(0, "only --format text|json|csv");
        return Table.Format.of(a.value("--format"));
    }

    /** {@code hp:events [cpu.type] [--format f]}: the cpu.type, or null for the current host's model. */
    public record Events(String cpuType, Table.Format format) {
    }

    public static Events events(String[] argv) throws UsageException {
        Args a = HpCommand.EVENTS.parse(argv).atMostPositional(1, "at most one cpu.type");
        return new Events(a.positional().isEmpty() ? null : a.positional().get(0), Table.Format.of(a.value("--format")));
    }

    /** {@code hp:commands [command]}: the command asked about, or null for the list. */
    public static HpCommand help(String[] argv) throws UsageException {
        List<String> p = HpCommand.COMMANDS.parse(argv).atMostPositional(1, "at most one command name")
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

    /**
     * {@code hp:load [name|path] [--cpu cpu.type] [--host-option k=v]... [--pmu-option k=v]...}.
     */
    public record Load(String scenario, String cpuType, Map<String, String> hostOptions,
            Map<String, String> pmuOptions) {
        public Load {
            hostOptions = Map.copyOf(hostOptions);
            pmuOptions = Map.copyOf(pmuOptions);
        }

        public Load(String scenario, String cpuType) {
            this(scenario, cpuType, Map.of(), Map.of());
        }
    }

    public static Load load(String[] argv) throws UsageException {
        Args a = HpCommand.LOAD.parse(argv)
                .atMostPositional(1, "one scenario name or path");
        String scenario = a.positional().isEmpty() ? HostService.DEFAULT_SCENARIO : a.positional().get(0);
        return new Load(scenario, a.value("--cpu"), options(a.values("--host-option"), "--host-option"),
                options(a.values("--pmu-option"), "--pmu-option"));
    }

    /** {@code key=value} words into a map; a word without '=' or a key given twice is a usage error. */
    static Map<String, String> options(List<String> words, String flag) throws UsageException {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String w : words) {
            int eq = w.indexOf('=');
            if (eq <= 0 || eq == w.length() - 1) {
                throw new UsageException(flag + " takes key=value, e.g. " + flag
                        + (flag.startsWith("--host") ? " ppc.postponed=owner" : " mmcra.hvpr=xnu") + "; got '" + w + "'");
            }
            if (out.put(w.substring(0, eq).strip(), w.substring(eq + 1).strip()) != null) {
                throw new UsageException(flag + " " + w.substring(0, eq) + " is given twice");
            }
        }
        return out;
    }

    /** {@code hp:run <ms>}: simulated microseconds to run. */
    public static long runMicros(String[] argv) throws UsageException {
        List<String> p = HpCommand.RUN.parse(argv).atMostPositional(1, "one number of milliseconds")
                .atLeastPositional(1, "expected the simulated milliseconds to run, e.g. hp:run 500").positional();
        return milliseconds(p.get(0), "the simulated milliseconds") * 1000;
    }

    /** Simulated milliseconds for one run: 1 to {@link #MAX_MS}. */
    static long milliseconds(String text, String what) throws UsageException {
        return Args.number(text, what, 1, MAX_MS, "one simulated hour; Ctrl-C stops a run early");
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

    /**
     * {@code hp:profile ...}. {@code renderer} is null when none was named (the default applies).
     *
     * @param domains        the active domains; empty = every domain that can be active and is not passive
     * @param passive        the domains the primary profiles passively ({@code --passive})
     * @param passiveImages  their kernel images in the same order; fewer than {@code passive} leaves the
     *                       rest coarse ({@code domain<N>-kernel})
     * @param callgraphDepth call-trace depth, 0 = none
     */
    public record Profile(long micros, List<String> events, List<Integer> domains, List<Integer> passive,
            List<String> passiveImages, int callgraphDepth, String scenario, String cpuType, String renderer,
            boolean noReport, Map<String, String> hostOptions, Map<String, String> pmuOptions, boolean guestsOnly,
            Set<String> reportOptions) {
        public Profile {
            reportOptions = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(reportOptions));
            events = List.copyOf(events);
            domains = List.copyOf(domains);
            passive = List.copyOf(passive);
            passiveImages = List.copyOf(passiveImages);
            hostOptions = Map.copyOf(hostOptions);
            pmuOptions = Map.copyOf(pmuOptions);
        }

        /** What the profiler is asked to do. */
        public ProfileRequest request() {
            return new ProfileRequest(events, micros, domains, passive, passiveImages, callgraphDepth, !guestsOnly);
        }
    }

    public static Profile profile(String[] argv) throws UsageException {
        Args a = HpCommand.PROFILE.parse(argv);
        long ms = a.value("--ms") == null ? DEFAULT_PROFILE_MS
                : milliseconds(a.value("--ms"), "--ms (simulated milliseconds)");
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
        List<Integer> passive = passiveDomains(a.value("--passive"), domains);
        List<String> images = a.value("--passive-images") == null ? List.of()
                : Args.nameList(a.value("--passive-images"), "--passive-images", "vmlinux-guest-a,vmlinux-guest-b");
        if (!images.isEmpty() && passive.isEmpty()) {
            throw new UsageException("--passive-images names the kernels of passive domains, but no --passive domains"
                    + " are given; e.g. --passive 2,3 --passive-images vmlinux-a,vmlinux-b");
        }
        if (images.size() > passive.size()) {
            throw new UsageException("--passive-images names " + images.size() + " images for " + passive.size()
                    + " passive domain(s) (--passive " + joinIds(passive) + "); give at most one per passive domain,"
                    + " in the same order");
        }
        int depth = a.value("--callgraph") == null ? 0
                : (int) Args.number(a.value("--callgraph"), "--callgraph (the call-trace depth)", 0, Integer.MAX_VALUE);
        if (a.flag("--no-report") && a.value("--report") != null) {
            throw new UsageException("--report " + a.value("--report")
                    + " and --no-report contradict each other; give one");
        }
        return new Profile(ms * 1000, a.values("--event"), domains, passive, images, depth, a.value("--scenario"),
                a.value("--cpu"), a.value("--report"), a.flag("--no-report"),
                options(a.values("--host-option"), "--host-option"), options(a.values("--pmu-option"), "--pmu-option"),
                a.flag("--guests-only"), reportOptions(a, "--no-report"));
    }

    /**
     * The words after the options: the report's own options (image=^vmlinux, threshold=1), passed to
     * the renderer as hp:report passes them; none with {@code noReport}.
     */
    private static Set<String> reportOptions(Args a, String noReport) throws UsageException {
        if (!a.positional().isEmpty() && a.flag(noReport)) {
            throw new UsageException("report options (" + String.join(" ", a.positional()) + ") and " + noReport
                    + " contradict each other; give one");
        }
        return new LinkedHashSet<>(a.positional());
    }

    /** The {@code --passive} list: each domain once, and none of them also active. */
    private static List<Integer> passiveDomains(String text, List<Integer> active) throws UsageException {
        if (text == null) {
            return List.of();
        }
        List<Integer> passive = Args.domainList(text, "--passive");
        Set<Integer> seen = new LinkedHashSet<>();
        for (int id : passive) {
            if (!seen.add(id)) {
                throw new UsageException("--passive " + text + " lists dom" + id + " twice; list each passive domain"
                        + " once (its buffers are shared with the primary once)");
            }
            if (active.contains(id)) {
                // Xen profiles a domain in one mode at a time: its buffers are either its own or the primary's.
                throw new UsageException("dom" + id + " is in both --domains and --passive; a domain is profiled in"
                        + " one mode at a time, so list it in one of them");
            }
        }
        return passive;
    }

    private static String joinIds(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** What {@code hp:domain} does to a domain. */
    public enum DomainAction {
        STATE, PAUSE, UNPAUSE, DESTROY;

        String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@code hp:domain <domid> [pause|unpause|destroy|state]}. */
    public record Domain(int domid, DomainAction action) {
    }

    public static Domain domain(String[] argv) throws UsageException {
        List<String> p = HpCommand.DOMAIN.parse(argv).atMostPositional(2, "a domain id and one action")
                .atLeastPositional(1, "expected a domain id and what to do with it, e.g. hp:domain 2 pause")
                .positional();
        int domid = Args.domid(p.get(0), "the domain id");
        if (p.size() == 1) {
            return new Domain(domid, DomainAction.STATE);
        }
        String word = p.get(1).trim().toLowerCase(java.util.Locale.ROOT);
        for (DomainAction action : DomainAction.values()) {
            if (action.word().equals(word)) {
                return new Domain(domid, action);
            }
        }
        throw new UsageException("unknown domain action '" + p.get(1) + "'; actions are pause, unpause, destroy, state");
    }

    /** Which index of a vCPU buffer a guest writes. */
    public enum BufferIndex {
        HEAD("event_head"), TAIL("event_tail");

        private final String field;

        BufferIndex(String field) {
            this.field = field;
        }

        /** The field's name in {@code xenoprof_buf}. */
        public String field() {
            return field;
        }
    }

    /** {@code hp:guest <domid> <vcpu> head|tail <value>}; the value is the u32 as written. */
    public record Guest(int domid, int vcpu, BufferIndex index, int value) {
        /** The value as the unsigned 32-bit field holds it. */
        public long unsignedValue() {
            return Integer.toUnsignedLong(value);
        }
    }

    public static Guest guest(String[] argv) throws UsageException {
        List<String> p = HpCommand.GUEST.parse(argv).atMostPositional(4, "domain, vCPU, head|tail, value")
                .atLeastPositional(4, "expected the domain, its vCPU, head or tail, and the value the guest writes,"
                        + " e.g. hp:guest 1 0 head 99999").positional();
        int domid = Args.domid(p.get(0), "the domain id");
        int vcpu = (int) Args.number(p.get(1), "the vCPU", 0, Integer.MAX_VALUE);
        String which = p.get(2).trim().toLowerCase(java.util.Locale.ROOT);
        BufferIndex index;
        if (which.equals("head") || which.equals("event_head")) {
            index = BufferIndex.HEAD;
        } else if (which.equals("tail") || which.equals("event_tail")) {
            index = BufferIndex.TAIL;
        } else {
            throw new UsageException("expected head or tail (the buffer index the guest overwrites), got '" + p.get(2)
                    + "'");
        }
        // event_head and event_tail are u32 fields: every 32-bit pattern can be written.
        long value = Args.number(p.get(3), "the value written into " + index.field() + " (a u32)", 0, 0xFFFF_FFFFL);
        return new Guest(domid, vcpu, index, (int) value);
    }

    /**
     * {@code hp:export <name> <format> <file> [--session ID|NAME] [--domain D] [option...]}: a session
     * given by its name is {@code sessionName}, for the store to find (the request's session is then the latest).
     */
    public record Export(String writer, String format, String file, ReportRequest request, String sessionName) {
    }

    public static Export export(String[] argv) throws UsageException {
        Args a = HpCommand.EXPORT.parse(argv).atLeastPositional(3, "expected the writer (report.name), the format"
                + " and the file, e.g. hp:export flamegraph svg /tmp/hp.svg");
        List<String> p = a.positional();
        // Words after the file are the writer's options (the report filters, e.g. image=^vmlinux), as hp:report's.
        Set<String> options = new LinkedHashSet<>(p.subList(3, p.size()));
        return new Export(p.get(0), p.get(1), p.get(2), new ReportRequest(session(a), domainOption(a), options),
                sessionName(a));
    }

    /**
     * {@code hp:report ...}: the request and the renderer, null when none was named; a session given
     * by its name is {@code sessionName}, as for {@link Export}; {@code sort} perf's sort keys
     * ({@code --sort}), null for a renderer's report.
     */
    public record Report(ReportRequest request, String renderer, String sessionName, String sort) {
    }

    public static Report report(String[] argv) throws UsageException {
        Args a = HpCommand.REPORT.parse(argv);
        Set<String> options = new LinkedHashSet<>(a.positional());
        if (a.value("--format") != null) {
            // The command's option, the renderer's word: one way to ask, whichever renderer prints.
            options.add("format=" + a.value("--format"));
        }
        String sort = a.value("--sort");
        if (sort != null && a.value("--renderer") != null) {
            // perf's flat profile by process is printed by the perf source's sorted report, no renderer.
            throw new UsageException("--sort " + sort + " prints perf report's flat profile, not a renderer's;"
                    + " leave out --renderer " + a.value("--renderer"));
        }
        return new Report(new ReportRequest(session(a), domainOption(a), options), a.value("--renderer"),
                sessionName(a), sort);
    }

    /** The session --session gives by its id (digits; names never are), else the latest. */
    private static long session(Args a) throws UsageException {
        String s = a.value("--session");
        return s == null || sessionName(a) != null ? ReportRequest.LATEST : Args.number(s, "--session", 0,
                Long.MAX_VALUE);
    }

    /** The name --session gives (a word that is not a number: a name hp:profile --name or hp:name gave), or null. */
    private static String sessionName(Args a) {
        String s = a.value("--session");
        return s == null || s.strip().matches("[+-]?[0-9]+") ? null : s.strip();
    }

    private static int domainOption(Args a) throws UsageException {
        return a.value("--domain") == null ? ReportRequest.ALL_DOMAINS : Args.domid(a.value("--domain"), "--domain");
    }
}
