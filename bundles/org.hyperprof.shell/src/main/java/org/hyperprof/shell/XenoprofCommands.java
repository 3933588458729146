package org.hyperprof.shell;

import java.io.PrintStream;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.shell.session.WorkingFolder;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:op}, {@code hp:opcontrol}, {@code hp:state}: the Xenoprof workflow walked by hand, one
 * hypercall or one opcontrol step at a time, each taken as a chosen domain; {@code hp:guest}: a
 * guest that scribbles on its own shared buffer.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=op",
        "osgi.command.function=opcontrol", "osgi.command.function=state", "osgi.command.function=guest"})
public class XenoprofCommands {
    /** What {@code hp:op} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String OP_ARGUMENTS = "<domid> <op> [arg...]";

    /** What {@code hp:opcontrol} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String OPCONTROL_ARGUMENTS = "<domid> <args...>";

    /** What {@code hp:guest} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String GUEST_ARGUMENTS = "<domid> <vcpu> head|tail <value>";

    private final HostService hosts;
    private final Profiler profiler;
    private final Console console;

    @Activate
    public XenoprofCommands(@Reference(name = "hosts") HostService hosts,
            @Reference(name = "profiler") Profiler profiler) {
        this(hosts, profiler, Console.system());
    }

    XenoprofCommands(HostService hosts, Profiler profiler, Console console) {
        this.hosts = hosts;
        this.profiler = profiler;
        this.console = console;
    }

    @Descriptor("issue ONE raw xenoprof_op hypercall as domain <domid> and explain the result")
    public void op(@Descriptor(OP_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.OP.syntax(), args, out -> {
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
    public void opcontrol(@Descriptor(OPCONTROL_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.OPCONTROL.syntax(), args, out -> {
            CommandLines.Opcontrol line = CommandLines.opcontrol(args);
            Host host = HostCommands.current(hosts);
            host.domain(line.domid());
            OpcontrolResult result = profiler.opcontrol(line.domid(),
                    PassiveImageFiles.resolveOptions(WorkingFolder.resolveOptions(line.args(), "--xen=", "--vmlinux="),
                            host));
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

    @Descriptor("a hostile or careless guest writes a value into its own buffer's event_head or event_tail")
    public void guest(@Descriptor(GUEST_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.GUEST.syntax(), args, out -> {
            CommandLines.Guest line = CommandLines.guest(args);
            Host host = HostCommands.current(hosts);
            int domid = line.domid();
            host.domain(domid); // names the domains that exist when there is no such domain
            Xenoprof x = host.xenoprof();
            SharedBuffer buffer = ownBuffer(x, domid, line.vcpu());
            String field = line.index().field();
            long was = Integer.toUnsignedLong(line.index() == CommandLines.BufferIndex.HEAD ? buffer.head()
                    : buffer.tail());
            if (line.index() == CommandLines.BufferIndex.HEAD) {
                buffer.writeHead(line.value());
            } else {
                buffer.writeTail(line.value());
            }
            int size = buffer.size();
            long value = line.unsignedValue();
            out.printf("dom%d's guest wrote %s = %d into its vCPU %d buffer (was %d; event_size %d)%n", domid, field,
                    value, line.vcpu(), was, size);
            if (value >= size) {
                long depth = x.backtraceDepth();
                int space = rawFreeSlots(buffer.head(), buffer.tail(), size);
                if (depth != 0 && space < 2) {
                    // With call traces Xen first asks for room for the escape record and the sample, on the
                    // raw indices (no range check): an index out of range then shows as a full ring.
                    out.printf("%d is outside [0, %d). With call traces on (depth %d), Xen first wants 2 free slots,"
                            + " reckoned from the raw indices: (tail > head ? 0 : size) + tail - head - 1 = %d; so it"
                            + " counts the next samples for this buffer as lost (lost_samples) and drops them,"
                            + " writing nothing, while %s stays out of range; no other buffer and no other domain is"
                            + " affected (XSA-313)%n", value, size, depth, space, field);
                } else {
                    out.printf("%d is outside [0, %d): Xen will count the next samples for this buffer as corrupted"
                            + " (corrupted_buffer_samples) and drop them, writing nothing, while %s stays out of"
                            + " range; no other buffer and no other domain is affected (XSA-313)%n", value, size,
                            field);
                }
            } else {
                out.printf("%d is inside [0, %d), so Xen accepts it: it cannot tell a wrong index in range from the"
                        + " right one; only dom%d's own readings of this buffer suffer: its daemon skips what the"
                        + " index makes unreadable (counted invalid) and never reads an entry twice%n", value,
                        size, domid);
            }
            if (x.domainType(domid) != DomainType.ACTIVE) {
                out.println("dom" + domid + " has not called enable_virq yet: its enable_virq zeroes event_head and"
                        + " event_tail again");
            }
            out.println(x.state() == XenoprofState.PROFILING
                    ? "hp:run <ms> takes samples; hp:state then shows the lost and corrupted counts"
                    : "Xenoprof is " + x.state() + ": samples are taken only while PROFILING; hp:state shows the"
                            + " lost and corrupted counts");
        });
    }

    /**
     * Xen's {@code xenoprof_buf_space} on indices used as read, signed and unchecked: the room it
     * sees before a call trace.
     */
    static int rawFreeSlots(int head, int tail, int size) {
        return (tail > head ? 0 : size) + tail - head - 1;
    }

    /** The buffer of that vCPU among the ones Xen shared with the domain itself. */
    private static SharedBuffer ownBuffer(Xenoprof x, int domid, int vcpu) {
        SharedBuffer[] buffers;
        try {
            buffers = x.mapBuffers(domid, domid);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("dom" + domid + " has no buffer of its own to write into: "
                    + e.getMessage());
        }
        StringBuilder vcpus = new StringBuilder();
        for (SharedBuffer b : buffers) {
            // The guest finds its buffer by vcpu_id, never by index (the facts' rule for draining).
            if (b.vcpuId() == vcpu) {
                return b;
            }
            vcpus.append(vcpus.length() == 0 ? "" : ", ").append(b.vcpuId());
        }
        throw new IllegalArgumentException("dom" + domid + " has no buffer for vCPU " + vcpu + "; its buffers are for"
                + " vCPU " + (vcpus.length() == 0 ? "none" : vcpus));
    }

    @Descriptor("Xenoprof state, lists, each domain's role and state, statistics, host counters and the next step")
    public void state(@Descriptor("no arguments") String... args) {
        Guard.run(console, HpCommand.STATE.syntax(), args, out -> {
            CommandLines.none(HpCommand.STATE, args);
            HostText.printXenoprof(HostCommands.current(hosts), out);
        });
    }
}
