package org.hyperprof.shell;

import java.util.Locale;

import org.hyperprof.api.host.HostService;

/**
 * The {@code hp:} commands: name, usage line and one-line summary, plus the longer notes
 * {@code hp:help <command>} prints. Usage errors and {@code hp:help} read the same entries, so
 * the help can never disagree with what a command accepts.
 */
public enum HpCommand {
    MODELS("hp:models", "installed CPU models: cpu.type, name, counters x width, bundle, events"),
    EVENTS("hp:events [cpu.type]", "a CPU model's event table (default: the current host's model)"),
    POLICIES("hp:policies", "installed counter-virtualization policies (vpmu.policy)"),
    CONSUMERS("hp:consumers", "installed sample consumers (consumer.name)"),
    RESOLVERS("hp:resolvers", "installed symbol resolvers (symbols.format)"),
    REPORTS("hp:reports", "installed report renderers (report.name), their options and sessions"),
    SCENARIOS("hp:scenarios", "the embedded scenarios"),
    LOAD("hp:load [name|path] [--cpu cpu.type]",
            "load a scenario as the current host (default: " + HostService.DEFAULT_SCENARIO + ") and print it",
            "  --cpu cpu.type   use this installed CPU model instead of the scenario's (see hp:models)"),
    HOST("hp:host", "the current host, its domains and its Xenoprof state"),
    OP("hp:op <domid> <op> [arg...]", "issue ONE raw xenoprof_op hypercall as domain <domid>, explained",
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
    OPCONTROL("hp:opcontrol <domid> <args...>", "run an opcontrol step as domain <domid>, as its daemon would",
            "  --start-daemon [--event=EV:count:um:k:u]... [--active-domains=0,1] [--passive-domains=2]\n"
                    + "  --start  --stop  --shutdown  --reset  --status\n"
                    + "  Domain lists are only for the primary (the hardware domain); the other active\n"
                    + "  domains run --start-daemon without them."),
    RUN("hp:run <ms>", "run the simulated host for <ms> simulated milliseconds, with progress"),
    PROFILE("hp:profile [--ms N] [--event SPEC]... [--domains 0,1] [--scenario name|path] [--cpu type]"
            + " [--report name] [--no-report]",
            "one-shot profile: set up, start, run, stop, then print the report",
            "  --ms N             simulated milliseconds to run (default 1000)\n"
                    + "  --event SPEC       EVENT:count[:um[:kernel[:user]]], repeatable (default: the model's)\n"
                    + "  --domains 0,1      the domains to profile actively (default: every domain)\n"
                    + "  --scenario s       load this scenario first (otherwise the current host, or the default)\n"
                    + "  --cpu type         load --scenario (or the default scenario) with this CPU model\n"
                    + "  --report name      the report renderer (default opreport); --no-report prints none"),
    REPORT("hp:report [--session N] [--domain D] [--renderer name] [option...]",
            "print a session's report (default: the latest session, all domains, opreport)",
            "  options go to the renderer as given, e.g. symbols, images, top=10, notruth;\n"
                    + "  hp:reports lists each renderer's options and sessions"),
    STATE("hp:state", "Xenoprof state, primary, active/passive lists, statistics and the next step"),
    HELP("hp:help [command]", "this list, or one command's usage and options");

    private final String usage;
    private final String summary;
    private final String details;

    HpCommand(String usage, String summary) {
        this(usage, summary, "");
    }

    HpCommand(String usage, String summary, String details) {
        this.usage = usage;
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

    public String usage() {
        return usage;
    }

    public String summary() {
        return summary;
    }

    /** Option notes for {@code hp:help <command>}; empty when the usage line says it all. */
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
