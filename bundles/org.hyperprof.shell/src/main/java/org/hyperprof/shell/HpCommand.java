package org.hyperprof.shell;

import java.util.List;
import java.util.Locale;

import org.hyperprof.api.host.HostService;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.SessionName;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.UsageException;

/**
 * The {@code hp:} commands, each as its table ({@link Syntax}): name, summary, positional words and
 * options with their help. The parser, the usage line, {@code hp:<command> --help}, hp:commands and
 * the prompt's completion all read the same entries, so none can disagree with what a command
 * accepts.
 */
public enum HpCommand {
    MODELS(listing("hp:models", "installed CPU models: cpu.type, name, counters x width, bundle, events")),
    EVENTS(listing("hp:events", "a CPU model's event table (default: the current host's model)")
            .before("[cpu.type]", Completion.CPU_TYPE)),
    POLICIES(listing("hp:policies", "installed counter-virtualization policies (vpmu.policy)")),
    CONSUMERS(listing("hp:consumers", "installed sample consumers (consumer.name)")),
    RESOLVERS(listing("hp:resolvers", "installed symbol resolvers (symbols.format)")),
    REPORTS(listing("hp:reports", "installed report renderers and file writers (report.name): options, formats,"
            + " sessions")),
    SCENARIOS(listing("hp:scenarios", "the embedded scenarios")),
    LOAD(Syntax.of("hp:load", "load a scenario as the current host (default: " + HostService.DEFAULT_SCENARIO
            + ") and print it").before("[name|path]", Completion.SCENARIO)
            .options(ShellOptions.CPU, ShellOptions.HOST_OPTION, ShellOptions.PMU_OPTION)),
    HOST(Syntax.of("hp:host", "the current host, its domains and its Xenoprof state")),
    DOMAIN(Syntax.of("hp:domain",
            "show a domain's state, or pause, unpause or destroy it mid-session (xl pause/unpause/destroy)")
            .before("<domid> [state|pause|unpause|destroy]", Completion.DOMAIN)
            .notes("  state     running, paused or destroyed, and its Xenoprof role (the default)\n"
                    + "  pause     its vCPUs are no longer scheduled; samples already in its buffers stay there\n"
                    + "  unpause   lets a paused domain run again\n"
                    + "  destroy   the domain is gone for good: Xenoprof frees its buffers and drops it from the\n"
                    + "            active and passive lists; what its daemon drained is kept, what was still in\n"
                    + "            its buffers is counted as undrained. Permanent: only hp:load brings it back.")),
    OP(Syntax.of("hp:op", "issue ONE raw xenoprof_op hypercall as domain <domid>, explained")
            .before("<domid> <op> [arg...]", Completion.DOMAIN)
            .notes("  <op> is a name (enable_virq, XENOPROF_start) or a number (0..17); the argument by op:\n"
                    + "    init, reset_active_list, reset_passive_list, reserve_counters, setup_events,\n"
                    + "    enable_virq, start, stop, disable_virq, release_counters, shutdown, get_ibs_caps: none\n"
                    + "    set_active <domid>\n"
                    + "    set_passive <domid> [max_samples]        (default 2048, as the driver asks)\n"
                    + "    get_buffer [max_samples]                 (default 16, as the daemon asks)\n"
                    + "    counter <ind> <EVENT:count[:um[:kernel[:user]]]>   event resolved in the host's model\n"
                    + "    counter <ind> <count> <event> <um> <kernel> <user> raw numbers (decimal or 0x hex)\n"
                    + "    set_backtrace <depth>\n"
                    + "    ibs_counter [op_enabled fetch_enabled max_cnt_fetch max_cnt_op rand_en dispatched_ops]\n"
                    + "  Only the hypercall is made: no daemon maps or drains the buffers (hp:opcontrol does).")),
    OPCONTROL(Syntax.of("hp:opcontrol", "run an opcontrol step as domain <domid>, as its daemon would")
            .before("<domid> <args...>", Completion.DOMAIN).notes(HelpTexts.OPCONTROL)),
    GUEST(Syntax.of("hp:guest",
            "a hostile or careless guest writes <value> into its own buffer's event_head or event_tail")
            .before("<domid> <vcpu> head|tail <value>", Completion.DOMAIN)
            .notes("  The buffer pages are shared writable with the guest, so Xen treats both indices as untrusted\n"
                    + "  (XSA-313): it reads each once per sample and, when one is outside [0, size), counts the\n"
                    + "  sample as corrupted (corrupted_buffer_samples) and drops it, writing nothing. With call\n"
                    + "  traces on, Xen first wants 2 free slots reckoned from the raw indices, and when a bad\n"
                    + "  index leaves fewer it counts the sample as lost instead. Other buffers and other domains\n"
                    + "  are untouched. A value inside [0, size) is accepted: Xen cannot tell it from a right one,\n"
                    + "  and only this buffer's own readings suffer: its daemon never reads an entry twice, and\n"
                    + "  counts the samples the moved index made unreadable as invalid.\n"
                    + "  The domain needs buffers of its own (get_buffer: hp:opcontrol <domid> --start-daemon);\n"
                    + "  a passive domain's buffers are shared with the primary, not with it.\n"
                    + "  <value> is a u32, decimal or 0x hex; hp:state then shows the lost and corrupted counts.")),
    RUN(Syntax.of("hp:run", "run the simulated host for <ms> simulated milliseconds, with progress")
            .before("<ms>", Completion.NONE)
            .notes("  <ms>    1 to 3600000 (one simulated hour)\n" + HelpTexts.STOPPING)),
    PROFILE(Syntax.of("hp:profile", "one-shot profile of every domain: set up, start, run, stop, then print the report")
            .options(Option.value("--ms", "N", "simulated milliseconds to run (default 1000, at most 3600000: one"
                    + " simulated hour)"),
                    Option.value("--event", "SPEC", "EVENT:count[:um[:kernel[:user]]] (default: the model's)")
                            .repeatable().completedBy(Completion.EVENT),
                    Option.value("--domains", "0,1", "the domains to profile actively, each with its own daemon"
                            + " (default: every domain that can be active and is not passive)")
                            .completedBy(Completion.DOMAIN),
                    Option.value("--passive", "2,3", "domains the primary profiles passively, e.g. HVM guests, which"
                            + " cannot be active (opcontrol --passive-domains)").completedBy(Completion.DOMAIN),
                    Option.value("--passive-images", "k2,k3", "the passive domains' kernel images, in the same order"
                            + " (opcontrol --passive-images); a domain without one is reported coarsely as"
                            + " domain<N>-kernel"),
                    Option.value("--callgraph", "N", "record call traces up to N frames deep (opcontrol"
                            + " --callgraph); 0 = none"),
                    Option.value("--scenario", "name|path", "load this scenario first (otherwise the current host, or"
                            + " the default)").completedBy(Completion.SCENARIO),
                    ShellOptions.CPU, ShellOptions.HOST_OPTION, ShellOptions.PMU_OPTION,
                    Option.value("--report", "name", "the report renderer (default opreport: the merged report of"
                            + " all domains, then each domain's own)").completedBy(Completion.REPORT),
                    Option.flag("--no-report", "print no report, only the accounting"),
                    Option.flag("--guests-only", "no Xenoprof: only the guests' own profilers run (a host whose"
                            + " policy, saverestore, lazy or offset, gives guests the PMU); their session is the one"
                            + " reported. Under partitioned both run: the guests' session is listed by hp:reports and"
                            + " printed with hp:report --session N"),
                    SessionName.OPTION)
            .after("[report option...]")
            .notes("  report option...     passed to the renderer as hp:report passes them, e.g. image=^vmlinux\n"
                    + "                       threshold=1 separate=kernel (hp:report --help)\n"
                    + "  After the report: the session's accounting, the host's counters (host: ...), and a\n"
                    + "  note: line for each problem the session met without stopping.\n"
                    + HelpTexts.STOPPING + "\n"
                    + HelpTexts.MULTI_DOMAIN)),
    REPORT(Syntax.of("hp:report",
            "print a session's report (default: the latest session, all domains merged then each, opreport)")
            .options(ShellOptions.SESSION, ShellOptions.DOMAIN, ShellOptions.RENDERER,
                    Option.choice("--format", List.of("text", "json", "csv"), "text for people (the default), or"
                            + " for scripts the report's rows and the session's books as JSON or CSV (the renderer's"
                            + " format= option)"),
                    Option.value("--sort", "keys", "perf report's flat profile by comm,dso,sym, pid,dso,sym, comm or"
                            + " pid of a stored session, as hp:import --sort printed it (top=N rows, default 30)"))
            .after("[option...]")
            .notes("  option...            passed to the renderer as given, e.g. top=10, image=^vmlinux,\n"
                    + "                       threshold=1, order=name, separate=lib,kernel (hp:reports lists each\n"
                    + "                       renderer's options)")),
    EXPORT(Syntax.of("hp:export",
            "write a session to a file with the report file writer <name>, e.g. pprof or an SVG flame graph")
            .before("<name> <format> <file>", Completion.REPORT)
            .options(Option.value("--session", "ID|NAME", "a session by its id or its name (default: the latest)")
                    .completedBy(Completion.SESSION),
                    Option.value("--domain", "D", "only this domain's samples (default: all domains)")
                            .completedBy(Completion.DOMAIN))
            .after("[option...]")
            .notes("  option...            passed to the writer as given, e.g. image=^vmlinux or symbol=^tcp_ (the\n"
                    + "                       report filters; hp:reports lists each writer's options)\n"
                    + "  hp:export pprof pprof /tmp/hp.pb.gz           then: go tool pprof -top /tmp/hp.pb.gz\n"
                    + "  hp:export flamegraph svg /tmp/hp.svg         then open it in a web browser\n"
                    + "  hp:export flamegraph folded /tmp/hp.folded   folded stacks, one line per stack\n"
                    + "  hp:export perfscript text /tmp/hp.perfscript every sample as perf script prints it\n"
                    + "  Links are followed to the file they name. A FIFO, a character device or /dev/stdout is\n"
                    + "  streamed into; a file is written whole or not at all (an existing one keeps its mode).\n"
                    + "  The file's folder must exist.")),
    SOURCES(listing("hp:sources", "installed sample sources (source.name): the file formats hp:read takes")),
    READ(Syntax.of("hp:read",
            "read a file with a sample source (e.g. folded) into a session every consumer receives; print it")
            .before("<source> <file>", Completion.SOURCE)
            .options(Option.value("--renderer", "name", "the report printed after the read (default opreport, or the"
                    + " only one); hp:report --session N prints it again, hp:export writes it")
                    .completedBy(Completion.REPORT), SessionName.OPTION)
            .after("[report option...]")
            .notes("  report option...     the report controls, as hp:report takes them (image=, threshold=, ...)\n"
                    + "  <source>             a source's name (hp:sources lists them), e.g. folded for folded stacks\n"
                    + "  <file>               a regular file (a FIFO or a device is refused)")),
    STATE(Syntax.of("hp:state",
            "Xenoprof state and lists, each domain's role and state, statistics, host counters, next step")),
    VERSION(Syntax.of("hp:version", "Hyperprof's version, the framework's and Java's (launch/hyperprof --version)")),
    CONFIG(Syntax.of("hp:config", "settings of the components (Metatype): list, show, change them for good")
            .before("[pid [key=value ...]]", Completion.NONE).options(ShellOptions.FORMAT)
            .notes("  (none)               the configurable pids: name, bundle, and the file that sets each, if any\n"
                    + "  pid                  each setting: type, default, value in force, where it comes from\n"
                    + "  pid key=value...     checks each value against the Metatype (an unknown key or a value of\n"
                    + "                       the wrong type is refused, nothing written), writes them into\n"
                    + "                       <pid>.cfg of the configuration folder (other lines kept) and applies it\n"
                    + "  The folder: ~/.hyperprof/config, or the system property hyperprof.config.dir\n"
                    + "  (launch/hyperprof: HYPERPROF_CONFIG_DIR); its *.cfg files are read at start and when\n"
                    + "  they change.")),
    COMMANDS(Syntax.of("hp:commands", "this list, or one command's usage and options (as hp:<command> --help)")
            .before("[command]", Completion.NONE));

    private final Syntax syntax;

    HpCommand(Syntax syntax) {
        if (!syntax.command().equals("hp:" + name().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException(name() + " is written as " + syntax.command());
        }
        this.syntax = syntax;
    }

    /** A listing: {@code [--format text|json|csv]}. */
    private static Syntax listing(String command, String summary) {
        return Syntax.of(command, summary).options(ShellOptions.FORMAT);
    }

    /** The command's table: its words, options, help. */
    public Syntax syntax() {
        return syntax;
    }

    /** The words split by the command's table. */
    Args parse(String[] argv) throws UsageException {
        return syntax.parse(argv);
    }

    /** The function name Gogo registers, e.g. {@code opcontrol}. */
    public String function() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The scoped name, e.g. {@code hp:opcontrol}. */
    public String scoped() {
        return "hp:" + function();
    }

    /** The usage line: the scoped name and its arguments. */
    public String usage() {
        return syntax.usage();
    }

    /** What the command takes after its name; empty for none. */
    public String arguments() {
        return syntax.arguments();
    }

    public String summary() {
        return syntax.summary();
    }

    /** The command named {@code hp:x} or {@code x}, or null. */
    public static HpCommand find(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.startsWith("hp:")) {
            n = n.substring(3);
        }
        for (HpCommand c : values()) {
            if (c.function().equals(n)) {
                return c;
            }
        }
        return null;
    }
}
