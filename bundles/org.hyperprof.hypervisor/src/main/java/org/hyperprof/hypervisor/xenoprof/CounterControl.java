package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.failed;
import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.succeeded;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.badArgument;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.opName;

import java.util.function.Function;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;

/**
 * The counter side of a session, as Xen's x86 glue (nmi_int.c, op_model_*.c) drives every pCPU's
 * PMU: {@code reserve_counters}, {@code counter}, {@code setup_events}, {@code start}, {@code stop},
 * {@code release_counters}, and AMD IBS ({@code get_ibs_caps}, {@code ibs_counter}). It moves the
 * {@link XenoprofSession}'s state and keeps what was stored and programmed. Runs under the core's
 * lock.
 */
final class CounterControl {
    private final Machine machine;
    private final XenoprofSession session;
    private final SessionGuide guide;
    private final NmiCallback callback;

    private final CounterSettings counters = new CounterSettings();
    /** The last {@code ibs_counter} configuration, kept across sessions as Xen's static {@code ibs_config}; null before any. */
    private IbsConfig ibsConfig;
    private CounterConfig[] programmed = new CounterConfig[0];
    private boolean lapicNmiReserved;

    CounterControl(Machine machine, XenoprofSession session, SessionGuide guide, NmiCallback callback) {
        this.machine = machine;
        this.session = session;
        this.guide = guide;
        this.callback = callback;
    }

    HypercallOutcome reserveCounters() {
        if (session.state() != XenoprofState.INITIALIZED) {
            return guide.wrongState(XenoprofOp.RESERVE_COUNTERS);
        }
        if (lapicNmiReserved) {
            return failed(Errno.EBUSY, "the LAPIC NMI is still reserved: the primary re-ran init while the counters"
                    + " were reserved, and only release_counters frees it, which Xen refuses outside"
                    + " COUNTERS_RESERVED and READY",
                    "nothing in Xenoprof can free it any more: reload the host (reboot) to profile again");
        }
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).reserve();
        }
        lapicNmiReserved = true;
        session.moveTo(XenoprofState.COUNTERS_RESERVED);
        return succeeded("saved the counter and control registers of " + n + " pCPU(s) and reserved the LAPIC NMI");
    }

    HypercallOutcome counter(Object arg) {
        return store(XenoprofOp.COUNTER, arg, XenoprofCounter.class, "XenoprofCounter (struct xenoprof_counter)",
                this::storeCounter);
    }

    private HypercallOutcome storeCounter(XenoprofCounter c) {
        if (!CounterSettings.storable(c.ind)) {
            return failed(Errno.E2BIG, "counter index " + Integer.toUnsignedString(c.ind) + " is not below "
                    + CounterSettings.OP_MAX_COUNTER + " (OP_MAX_COUNTER)" + modelCounterNote(),
                    "domain " + session.primary() + " configures counters 0.." + (modelCounters() - 1));
        }
        counters.store(c);
        return succeeded(String.format("counter %d stored: %s event 0x%02x count %d unit mask 0x%02x%s%s", c.ind,
                c.enabled != 0 ? "enabled," : "disabled,", c.event, c.count, c.unitMask, c.kernel != 0 ? " kernel" : "",
                c.user != 0 ? " user" : "")
                + (c.ind >= modelCounters() ? " (Xen stores it, but this model has only " + modelCounters()
                        + " counters, so setup_events will not program it)" : ""));
    }

    HypercallOutcome setupEvents() {
        if (session.state() != XenoprofState.COUNTERS_RESERVED) {
            return guide.wrongState(XenoprofOp.SETUP_EVENTS);
        }
        PmuModel model = machine.model();
        if (model == null) {
            return failed(Errno.ENODEV, "the host's CPU model is gone, so there is nothing to program",
                    "reload the host with a CPU model whose bundle is installed");
        }
        CounterConfig[] configs = counters.build(model);
        int n = machine.pcpuCount();
        boolean ibs = ibsConfig != null && ibsCaps() != 0;
        if (ibs) {
            // Before the counters, so that a configuration the model refuses leaves no pCPU half programmed.
            for (int c = 0; c < n; c++) {
                try {
                    machine.pmu(c).setupIbs(ibsConfig);
                } catch (IllegalArgumentException | IllegalStateException e) {
                    return failed(Errno.EINVAL, "the CPU model refuses the stored IBS configuration on pCPU " + c
                            + ": " + e.getMessage() + " (Xen would program it unchecked; the simulated part cannot)",
                            "domain " + session.primary() + " stores a valid configuration with ibs_counter (it needs"
                                    + " release_counters and reserve_counters first) and calls setup_events again");
                }
            }
        }
        for (int c = 0; c < n; c++) {
            machine.pmu(c).setup(configs.clone());
        }
        programmed = configs;
        session.moveTo(XenoprofState.READY);
        StringBuilder b = new StringBuilder("programmed " + configs.length + " counter(s) on " + n + " pCPU(s)");
        for (CounterConfig cc : configs) {
            b.append("; counter ").append(cc.counter()).append(": ").append(cc.event().name()).append(" count ")
                    .append(cc.count());
        }
        if (ibs) {
            b.append("; IBS programmed: op ").append(ibsConfig.opEnabled() ? "on" : "off").append(", fetch ")
                    .append(ibsConfig.fetchEnabled() ? "on" : "off");
        }
        return succeeded(b.toString());
    }

    HypercallOutcome start() {
        if (session.state() != XenoprofState.READY) {
            return guide.wrongState(XenoprofOp.START);
        }
        int adomains = session.adomains();
        if (session.activated() != adomains) {
            return failed(Errno.EPERM, guide.notAllActivated(), guide.readyNextStep());
        }
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).start();
        }
        session.moveTo(XenoprofState.PROFILING);
        return succeeded("counters enabled and LVTPC routed to NMI on " + n + " pCPU(s)"
                + (adomains == 0 ? "; note: the active list is empty, so no domain is profiled"
                        + (session.pdomains() == 0 ? "" : " except the passive ones") : ""));
    }

    /** {@code stop}: the outcome names the vCPUs to flush, which the core signals after its lock. */
    HypercallOutcome stop() {
        if (session.state() != XenoprofState.PROFILING) {
            return guide.wrongState(XenoprofOp.STOP);
        }
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).stop();
        }
        // The flush: every vCPU of every ready active domain gets VIRQ_XENOPROF.
        int[] flushTargets = session.readyActiveVcpus();
        session.moveTo(XenoprofState.READY);
        return succeeded("counters stopped and LVTPC restored on " + n + " pCPU(s); VIRQ_XENOPROF"
                + " sent to " + flushTargets.length / 2 + " vCPU(s) of the ready active domains to flush their buffers")
                .flushing(flushTargets);
    }

    HypercallOutcome releaseCounters() {
        XenoprofState state = session.state();
        if (state != XenoprofState.COUNTERS_RESERVED && state != XenoprofState.READY) {
            return guide.wrongState(XenoprofOp.RELEASE_COUNTERS);
        }
        session.moveTo(XenoprofState.INITIALIZED);
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).release();
        }
        lapicNmiReserved = false;
        callback.remove();
        int had = session.clearPassiveList();
        return succeeded("registers restored on " + n + " pCPU(s), LAPIC NMI released, NMI callback removed"
                + (had > 0 ? ", " + had + " passive domain(s) reset" : ""));
    }

    HypercallOutcome ibsCounter(Object arg) {
        return store(XenoprofOp.IBS_COUNTER, arg, XenoprofIbsCounter.class,
                "XenoprofIbsCounter (struct xenoprof_ibs_counter)", this::storeIbs);
    }

    private HypercallOutcome storeIbs(XenoprofIbsCounter c) {
        // Each field is a uint64 flag or count: any non-zero flag is set, as C tests them.
        ibsConfig = new IbsConfig(c.opEnabled != 0, c.fetchEnabled != 0, c.maxCntFetch, c.maxCntOp, c.randEn != 0,
                c.dispatchedOps != 0);
        return succeeded("IBS configuration stored: op sampling " + (ibsConfig.opEnabled() ? "on, period "
                + Long.toUnsignedString(c.maxCntOp) : "off") + ", fetch sampling " + (ibsConfig.fetchEnabled()
                        ? "on, period " + Long.toUnsignedString(c.maxCntFetch) : "off")
                + (ibsCaps() != 0 ? "; setup_events programs it on every pCPU"
                        : "; this CPU model has no IBS (capabilities 0), so it has no effect"));
    }

    /** {@code get_ibs_caps}: the model's IBS capability bits as a non-negative return value, 0 without IBS. */
    HypercallOutcome getIbsCaps() {
        long caps = ibsCaps();
        return succeeded(caps, caps == 0 ? "no IBS on this CPU model: capabilities 0"
                : "IBS capabilities 0x" + Long.toHexString(caps) + " (CPUID 0x8000001B EAX)");
    }

    /** The model's IBS capability bits, masked to a non-negative value (CPUID EAX is 32 bits); 0 without a model. */
    private long ibsCaps() {
        PmuModel model = machine.model();
        return model == null ? 0 : model.ibsCapabilities() & 0xFFFF_FFFFL;
    }

    /**
     * {@code counter} and {@code ibs_counter}: each stores a configuration, only in COUNTERS_RESERVED
     * with a non-empty active list, and only from an argument of {@code type}.
     */
    private <T> HypercallOutcome store(XenoprofOp op, Object arg, Class<T> type, String expected,
            Function<T, HypercallOutcome> storer) {
        if (session.state() != XenoprofState.COUNTERS_RESERVED || session.adomains() == 0) {
            return counterRefused(op);
        }
        if (!type.isInstance(arg)) {
            return badArgument(op, expected, arg);
        }
        return storer.apply(type.cast(arg));
    }

    /** Why {@code counter} or {@code ibs_counter} was refused: the state, or an empty active list. */
    private HypercallOutcome counterRefused(XenoprofOp op) {
        if (session.state() == XenoprofState.COUNTERS_RESERVED) {
            int primary = session.primary();
            return failed(Errno.EPERM, opName(op) + " needs a non-empty active list, but adomains is 0 (nobody"
                    + " was listed, or reset_active_list emptied the list)",
                    "domain " + primary + " runs release_counters (`opcontrol --shutdown` in domain " + primary
                            + "), lists the active domains with set_active, and starts the daemon again");
        }
        return guide.wrongState(op);
    }

    private int modelCounters() {
        PmuModel m = machine.model();
        return m == null ? 0 : m.counterCount();
    }

    private String modelCounterNote() {
        return "; this model has " + modelCounters() + " counters; stored so far: "
                + counters.describe(modelCounters());
    }

    // Queries; the core takes its lock around them.

    /** The stored IBS configuration, or null before any {@code ibs_counter}. */
    IbsConfig ibsConfig() {
        return ibsConfig;
    }

    /** The configurations the last setup_events programmed on every pCPU. */
    CounterConfig[] programmed() {
        return programmed.clone();
    }

    /** Whether the LAPIC NMI is reserved (from reserve_counters until release_counters). */
    boolean lapicNmiReserved() {
        return lapicNmiReserved;
    }
}
