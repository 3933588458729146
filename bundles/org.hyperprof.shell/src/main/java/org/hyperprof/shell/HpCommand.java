package org.hyperprof.shell;

import java.util.Locale;

import org.hyperprof.api.host.HostService;

/**
 * The {@code hp:} commands: name, usage line and one-line summary, plus the longer notes
 * {@code hp:<command> --help} prints. Usage errors and {@code hp:commands} read the same entries, so
 * the help can never disagree with what a command accepts.
 */
public enum HpCommand {
    MODELS(PluginCommands.LISTING_ARGUMENTS, "installed CPU models: cpu.type, name, counters x width, bundle, events"),
    EVENTS(PluginCommands.EVENTS_ARGUMENTS, "a CPU model's event table (default: the current host's model)"),
    POLICIES(PluginCommands.LISTING_ARGUMENTS, "installed counter-virtualization policies (vpmu.policy)"),
    CONSUMERS(PluginCommands.LISTING_ARGUMENTS, "installed sample consumers (consumer.name)"),
    RESOLVERS(PluginCommands.LISTING_ARGUMENTS, "installed symbol resolvers (symbols.format)"),
    REPORTS("", "installed report renderers and file writers (report.name): options, formats, sessions"),
    SCENARIOS(PluginCommands.LISTING_ARGUMENTS, "the embedded scenarios"),
    LOAD(HostCommands.LOAD_ARGUMENTS,
            "load a scenario as the current host (default: " + HostService.DEFAULT_SCENARIO + ") and print it",
            "  --cpu cpu.type       use this installed CPU model instead of the scenario's (see hp:models)\n"
                    + "  --host-option k=v    override a host option, e.g. ppc.postponed=ignore|owner|poll: how a\n"
                    + "                       PowerPC host handles perfmon interrupts postponed by MSR[EE]=0;\n"
                    + "                       vpmu.policy=<name>: another counter-virtualization policy (hp:policies);\n"
                    + "                       vpmu.<key>=<v>: a policy option (vpmu.freeze=exit for saverestore and\n"
                    + "                       lazy, vpmu.xenoprof-counters=<n lower counters> for partitioned);\n"
                    + "                       xen.frame-pointers=yes|no: whether Xen was built with frame pointers\n"
                    + "                       (call traces of Xen-mode samples walk Xen's stack only then)\n"
                    + "  --pmu-option k=v     override a CPU model option, e.g. mmcra.hvpr=linux|xnu on ppc64/970"),
    HOST("", "the current host, its domains and its Xenoprof state"),
    DOMAIN(HostCommands.DOMAIN_ARGUMENTS,
            "show a domain's state, or pause, unpause or destroy it mid-session (xl pause/unpause/destroy)",
            "  state     running, paused or destroyed, and its Xenoprof role (the default)\n"
                    + "  pause     its vCPUs are no longer scheduled; samples already in its buffers stay there\n"
                    + "  unpause   lets a paused domain run again\n"
                    + "  destroy   the domain is gone for good: Xenoprof frees its buffers and drops it from the\n"
                    + "            active and passive lists; what its daemon drained is kept, what was still in\n"
                    + "            its buffers is counted as undrained. Permanent: only hp:load brings it back."),
    OP(XenoprofCommands.OP_ARGUMENTS, "issue ONE raw xenoprof_op hypercall as domain <domid>, explained",
            "  <op> is a name (enable_virq, XENOPROF_start) or a number (0..17); the argument by op:\n"
                    + "    init, reset_active_list, reset_passive_list, reserve_counters, setup_events,\n"
                    + "    enable_virq, start, stop, disable_virq, release_counters, shutdown, get_ibs_caps: none\n"
                    + "    set_active <domid>\n"
                    + "    set_passive <domid> [max_samples]        (default 2048, as the driver asks)\n"
                    + "    get_buffer [max_samples]                 (default 16, as the daemon asks)\n"
                    + "    counter <ind> <EVENT:count[:um[:kernel[:user]]]>   event resolved in the host's model\n"
                    + "    counter <ind> <count> <event> <um> <kernel> <user> raw numbers (decimal or 0x hex)\n"
                    + "    set_backtrace <depth>\n"
                    + "    ibs_counter [op_enabled fetch_enabled max_cnt_fetch max_cnt_op rand_en dispatched_ops]\n"
                    + "  Only the hypercall is made: no daemon maps or drains the buffers (hp:opcontrol does)."),
    OPCONTROL(XenoprofCommands.OPCONTROL_ARGUMENTS, "run an opcontrol step as domain <domid>, as its daemon would",
            HelpTexts.OPCONTROL),
    GUEST(XenoprofCommands.GUEST_ARGUMENTS,
            "a hostile or careless guest writes <value> into its own buffer's event_head or event_tail",
            "  The buffer pages are shared writable with the guest, so Xen treats both indices as untrusted\n"
                    + "  (XSA-313): it reads each once per sample and, when one is outside [0, size), counts the\n"
                    + "  sample as corrupted (corrupted_buffer_samples) and drops it, writing nothing. With call\n"
                    + "  traces on, Xen first wants 2 free slots reckoned from the raw indices, and when a bad\n"
                    + "  index leaves fewer it counts the sample as lost instead. Other buffers and other domains\n"
                    + "  are untouched. A value inside [0, size) is accepted: Xen cannot tell it from a right one,\n"
                    + "  and only this buffer's own readings suffer: its daemon never reads an entry twice, and\n"
                    + "  counts the samples the moved index made unreadable as invalid.\n"
                    + "  The domain needs buffers of its own (get_buffer: hp:opcontrol <domid> --start-daemon);\n"
                    + "  a passive domain's buffers are shared with the primary, not with it.\n"
                    + "  <value> is a u32, decimal or 0x hex; hp:state then shows the lost and corrupted counts."),
    RUN(HostCommands.RUN_ARGUMENTS, "run the simulated host for <ms> simulated milliseconds, with progress",
            "  <ms>    1 to 3600000 (one simulated hour)\n"
                    + HelpTexts.STOPPING),
    PROFILE(ProfileCommands.PROFILE_ARGUMENTS,
            "one-shot profile of every domain: set up, start, run, stop, then print the report",
            "  --ms N               simulated milliseconds to run (default 1000, at most 3600000: one\n"
                    + "                       simulated hour)\n"
                    + "  --event SPEC         EVENT:count[:um[:kernel[:user]]], repeatable (default: the model's)\n"
                    + "  --domains 0,1        the domains to profile actively, each with its own daemon (default:\n"
                    + "                       every domain that can be active and is not passive)\n"
                    + "  --passive 2,3        domains the primary profiles passively, e.g. HVM guests, which cannot\n"
                    + "                       be active (opcontrol --passive-domains)\n"
                    + "  --passive-images a,b the passive domains' kernel images, in the same order\n"
                    + "                       (opcontrol --passive-images); a domain without one is reported\n"
                    + "                       coarsely as domain<N>-kernel\n"
                    + "  --callgraph N        record call traces up to N frames deep (opcontrol --callgraph); 0 = none\n"
                    + "  --scenario s         load this scenario first (otherwise the current host, or the default)\n"
                    + "  --cpu type           load --scenario (or the default scenario) with this CPU model\n"
                    + "  --host-option k=v    load with a host option, e.g. ppc.postponed=owner or vpmu.policy=lazy\n"
                    + "                       (see hp:load --help)\n"
                    + "  --pmu-option k=v     load with a CPU model option, e.g. mmcra.hvpr=xnu\n"
                    + "  --report name        the report renderer (default opreport: the merged report of all\n"
                    + "                       domains, then each domain's own); --no-report prints none\n"
                    + "  --guests-only        no Xenoprof: only the guests' own profilers run (a host whose policy,\n"
                    + "                       saverestore, lazy or offset, gives guests the PMU); their session is\n"
                    + "                       the one reported. Under partitioned both run: the guests' session is\n"
                    + "                       listed by hp:reports and printed with hp:report --session N\n"
                    + "  After the report: the session's accounting, the host's counters (host: ...), and a\n"
                    + "  note: line for each problem the session met without stopping.\n"
                    + HelpTexts.STOPPING + "\n"
                    + HelpTexts.MULTI_DOMAIN),
    REPORT(ReportCommands.REPORT_ARGUMENTS,
            "print a session's report (default: the latest session, all domains merged then each, opreport)",
            "  --session N      a session the renderer keeps (default: the latest; hp:reports lists them)\n"
                    + "  --domain D       one domain's own report (default: the merged report of all domains,\n"
                    + "                   then each domain's own)\n"
                    + "  --renderer name  the renderer (default opreport, or the only one installed)\n"
                    + "  option...        passed to the renderer as given, e.g. symbols or top=10"),
    EXPORT(ReportCommands.EXPORT_ARGUMENTS,
            "write a session to a file with the report file writer <name>, e.g. pprof or an SVG flame graph",
            "  hp:export pprof pprof /tmp/hp.pb.gz           then: go tool pprof -top /tmp/hp.pb.gz\n"
                    + "  hp:export flamegraph svg /tmp/hp.svg         then open it in a web browser\n"
                    + "  hp:export flamegraph folded /tmp/hp.folded   folded stacks, one line per stack\n"
                    + "  --session N   a session the writer keeps (default: the latest)\n"
                    + "  --domain D    only this domain's samples (default: all domains)\n"
                    + "  option...     passed to the writer as given, e.g. image=^vmlinux or symbol=^tcp_ (the\n"
                    + "                report filters; hp:reports lists each writer's options)\n"
                    + "  Links are followed to the file they name. A FIFO, a character device or /dev/stdout is\n"
                    + "  streamed into; a file is written whole or not at all (an existing one keeps its mode).\n"
                    + "  The file's folder must exist."),
    SOURCES(PluginCommands.LISTING_ARGUMENTS, "installed sample sources (source.name): the file formats hp:read takes"),
    READ(SourceCommands.READ_ARGUMENTS,
            "read a file with a sample source (e.g. folded) into a session every consumer receives, and print it",
            "  <source>         a source's name (hp:sources lists them), e.g. folded for folded stacks\n"
                    + "  <file>           a regular file (a FIFO or a device is refused)\n"
                    + "  --renderer name  the report printed after the read (default opreport, or the only one);\n"
                    + "                   hp:report --session N prints it again, hp:export writes it"),
    STATE("", "Xenoprof state and lists, each domain's role and state, statistics, host counters, next step"),
    VERSION("", "Hyperprof's version, the framework's and Java's (launch/hyperprof --version)"),
    CONFIG(ConfigCommands.CONFIG_ARGUMENTS, "settings of the components (Metatype): list, show, change them for good",
            "  (none)            the configurable pids: name, bundle, and the file that sets each, if any\n"
                    + "  pid               each setting: type, default, value in force, where it comes from\n"
                    + "  pid key=value...  checks each value against the Metatype (an unknown key or a value of\n"
                    + "                    the wrong type is refused, nothing written), writes them into\n"
                    + "                    <pid>.cfg of the configuration folder (other lines kept) and applies it\n"
                    + "  The folder: ~/.hyperprof/config, or the system property hyperprof.config.dir\n"
                    + "  (launch/hyperprof: HYPERPROF_CONFIG_DIR); its *.cfg files are read at start and when\n"
                    + "  they change."),
    COMMANDS(HelpCommands.COMMANDS_ARGUMENTS, "this list, or one command's usage and options (as hp:<command> --help)");

    private final String arguments;
    private final String summary;
    private final String details;

    HpCommand(String arguments, String summary) {
        this(arguments, summary, "");
    }

    /**
     * @param arguments what the command takes after its name: a compile-time constant of the command's
     *                  component, which is also its method's {@code @Descriptor}, so that Gogo's
     *                  {@code help} (felix:help) shows exactly the usage line
     */
    HpCommand(String arguments, String summary, String details) {
        this.arguments = arguments;
        this.summary = summary;
        this.details = details;
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
        return arguments.isEmpty() ? scoped() : scoped() + " " + arguments;
    }

    /** What the command takes after its name; empty for none. */
    public String arguments() {
        return arguments;
    }

    public String summary() {
        return summary;
    }

    /** Option notes for {@code hp:<command> --help}; empty when the usage line says it all. */
    public String details() {
        return details;
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
