package org.hyperprof.shell;

import java.util.List;

import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Option;

/** Options several hp: commands take, written once. */
final class ShellOptions {
    static final Option FORMAT = Option.choice("--format", List.of("text", "json", "csv"),
            "text (aligned columns, the default), json (an array of objects) or csv (RFC 4180, a header row)");

    static final Option CPU = Option.value("--cpu", "cpu.type", "use this installed CPU model instead of the"
            + " scenario's (hp:models lists them)").completedBy(Completion.CPU_TYPE);

    static final Option HOST_OPTION = Option.value("--host-option", "k=v", "override a host option:"
            + " vpmu.policy=<name> another counter-virtualization policy (hp:policies); vpmu.<key>=<v> a policy"
            + " option (vpmu.freeze=exit for saverestore and lazy, vpmu.xenoprof-counters=<n lower counters> for"
            + " partitioned); ppc.postponed=ignore|owner|poll how a PowerPC host handles perfmon interrupts"
            + " postponed by MSR[EE]=0; xen.frame-pointers=yes|no whether Xen was built with frame pointers (call"
            + " traces of Xen-mode samples walk Xen's stack only then)").repeatable()
            .completedBy(Completion.HOST_OPTION);

    static final Option PMU_OPTION = Option.value("--pmu-option", "k=v",
            "override a CPU model option, e.g. mmcra.hvpr=linux|xnu on ppc64/970").repeatable();

    static final Option SESSION = Option.value("--session", "ID|NAME", "a session by its id or its name (default:"
            + " the latest; hp:reports lists those kept, hp:sessions those stored)").completedBy(Completion.SESSION);

    static final Option DOMAIN = Option.value("--domain", "D", "one domain's own report (default: the merged"
            + " report of all domains, then each domain's own)").completedBy(Completion.DOMAIN);

    static final Option RENDERER = Option.value("--renderer", "name", "the renderer (default opreport, or the only"
            + " one installed)").completedBy(Completion.REPORT);

    private ShellOptions() {
    }
}
