package org.hyperprof.shell;

import java.io.PrintStream;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:op}, {@code hp:opcontrol}, {@code hp:state}: the Xenoprof workflow walked by hand, one
 * hypercall or one opcontrol step at a time, each taken as a chosen domain.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=op",
        "osgi.command.function=opcontrol", "osgi.command.function=state"})
public class XenoprofCommands {
    private final HostService hosts;
    private final Profiler profiler;
    private final Console console;

    @Activate
    public XenoprofCommands(@Reference(name = "hosts") HostService hosts,
            @Reference(name = "profiler") Profiler profiler) {
        this(hosts, profiler, Console.system());
    }

    public XenoprofCommands(HostService hosts, Profiler profiler, Console console) {
        this.hosts = hosts;
        this.profiler = profiler;
        this.console = console;
    }

    @Descriptor("issue ONE raw xenoprof_op hypercall as domain <domid> and explain the result")
    public void op(@Descriptor("<domid> <op> [arg...]; hp:help op lists the argument of each op") String... args) {
        Guard.run(console, HpCommand.OP, out -> {
            CommandLines.Op line = CommandLines.op(args);
            Host host = HostCommands.current(hosts);
            host.domain(line.caller()); // names the domains that exist when there is no such caller
            XenoprofOp op = line.op().op();
            EventTable table = op == XenoprofOp.COUNTER ? host.model().events() : null;
            HypercallArgs.Built built = HypercallArgs.build(op, line.args(), table);
            Xenoprof xenoprof = host.xenoprof();
            long result = xenoprof.hypercall(line.caller(), line.op().number(), built.arg());
            printCall(out, xenoprof, line, built, result);
        });
    }

    static void printCall(PrintStream out, Xenoprof xenoprof, CommandLines.Op line, HypercallArgs.Built built,
            long result) {
        XenoprofOp op = line.op().op();
        built.notes().forEach(out::println);
        out.println(line.op().text() + " by domain " + line.caller() + " -> " + HypercallArgs.resultText(result));
        String sent = HypercallArgs.inputs(built.arg());
        if (sent != null) {
            out.println("  in:  " + sent);
        }
        String outputs = result >= 0 ? HypercallArgs.outputs(op, built.arg()) : null;
        if (outputs != null) {
            out.println("  out: " + outputs);
        }
        if (op == null) {
            out.println("op " + line.op().number() + " is outside 0.." + XenoprofOp.LAST_OP
                    + " (XENOPROF_last_op): Xen's dispatcher rejects it before any other check.");
        } else {
            out.println(xenoprof.explain(line.caller(), op, result));
        }
    }

    @Descriptor("run an opcontrol step as domain <domid> (the hypercalls its driver and daemon make)")
    public void opcontrol(@Descriptor("<domid> --start-daemon [--event=...] [--active-domains=0,1] | --start | --stop"
            + " | --shutdown | --reset | --status") String... args) {
        Guard.run(console, HpCommand.OPCONTROL, out -> {
            CommandLines.Opcontrol line = CommandLines.opcontrol(args);
            Host host = HostCommands.current(hosts);
            host.domain(line.domid());
            OpcontrolResult result = profiler.opcontrol(line.domid(), line.args());
            String text = result.output() == null ? "" : result.output().stripTrailing();
            if (!text.isEmpty()) {
                out.println(text);
            }
            if (!result.ok()) {
                Xenoprof x = host.xenoprof();
                out.println("opcontrol " + String.join(" ", line.args()) + " failed in dom" + line.domid()
                        + "; Xenoprof is " + x.state()
                        + (x.primary() < 0 ? ", no primary" : ", primary dom" + x.primary())
                        + " (hp:state shows the lists and the next step)");
            }
        });
    }

    @Descriptor("Xenoprof state, primary, active and passive lists, statistics and the next step")
    public void state(@Descriptor("no arguments") String... args) {
        Guard.run(console, HpCommand.STATE, out -> {
            CommandLines.none(args);
            HostText.printXenoprof(HostCommands.current(hosts), out);
        });
    }
}
