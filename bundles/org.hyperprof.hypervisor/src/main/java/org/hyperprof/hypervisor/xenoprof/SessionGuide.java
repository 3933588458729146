package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.failed;

import java.util.Locale;

import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;

/**
 * Xenoprof's words for people: what a call changed, why it failed, and which domain must take
 * which step next, read from the session of one {@link XenoprofCore}. The original's diagnostics
 * were famously confusing (a bare -EPERM for half a dozen different missteps); every answer here
 * names the state, the reason with the real error text, and the next step with its domain and the
 * opcontrol command that performs it.
 *
 * <p>Called with the core's lock held; the core's accessors re-enter it.
 */
final class SessionGuide {
    private static final int NOBODY = XenoprofDomain.NOBODY;

    private final XenoprofCore core;
    private final Machine machine;

    SessionGuide(XenoprofCore core, Machine machine) {
        this.core = core;
        this.machine = machine;
    }

    // ---------------------------------------------------------------------------------------------
    // Message layout
    // ---------------------------------------------------------------------------------------------

    /** The text {@link XenoprofCore#explain} returns for a call just made. */
    String describeCall(int caller, XenoprofOp op, long result, XenoprofState before, String why, String next,
            String effect) {
        XenoprofState now = core.state();
        StringBuilder b = new StringBuilder();
        b.append(op.cName()).append(" by domain ").append(caller);
        if (result < 0) {
            b.append(" failed: ").append(result).append(errnoText(result));
            b.append(". State ").append(now).append(". Why: ").append(why == null ? ruleOf(op) : why)
                    .append(". Next: ").append(next == null ? nextStep() : next).append('.');
        } else {
            b.append(" succeeded (").append(result).append("). State ");
            if (before == now) {
                b.append(now).append(" (unchanged)");
            } else {
                b.append(before).append(" -> ").append(now);
            }
            if (effect != null) {
                b.append(": ").append(effect);
            }
            b.append(". Next: ").append(nextStep()).append('.');
        }
        return b.toString();
    }

    /** For a result that was not recorded: the op's rule and the session's next step. */
    String explainByRule(int caller, XenoprofOp op, long result) {
        XenoprofState now = core.state();
        return op.cName() + " by domain " + caller + " returned " + result + errnoText(result)
                + ". That is not the result of the last such call by domain " + caller + ", so here is the rule."
                + " State " + now + stateBecause(now) + ". Rule: " + ruleOf(op) + ". Next: " + nextStep() + ".";
    }

    private static String errnoText(long result) {
        Errno e = Errno.ofResult(result);
        return e == null ? "" : " (-" + e.name() + " " + e.text() + ")";
    }

    // ---------------------------------------------------------------------------------------------
    // Next steps
    // ---------------------------------------------------------------------------------------------

    /** What the session expects next, and from whom. */
    String nextStep() {
        int primary = core.primary();
        XenoprofState state = core.state();
        if (primary == NOBODY) {
            String hw = hardwareDomainName();
            if (state == XenoprofState.IDLE) {
                return "no primary profiler yet: " + hw + " must call init first (`opcontrol --init` in " + hw + ")";
            }
            return "no primary profiler (the last one called shutdown, and the state stays " + state + "): " + hw
                    + " calls init to become primary again (`opcontrol --init` in " + hw + ")";
        }
        String p = "domain " + primary;
        boolean emptyList = core.activeListSize() == 0;
        switch (state) {
            case INITIALIZED:
                if (core.lapicNmiReserved()) {
                    return "none possible: the LAPIC NMI is still reserved (the primary re-ran init without"
                            + " release_counters), so reserve_counters fails with -EBUSY; reload the host";
                }
                if (emptyList) {
                    return p + " lists the domains to profile with set_active (`opcontrol --start-daemon"
                            + " --active-domains=" + primary + ",...` in " + p + "), then calls reserve_counters";
                }
                return p + " calls reserve_counters, then counter for each counter and setup_events (its"
                        + " `opcontrol --start-daemon` does this)";
            case COUNTERS_RESERVED:
                if (emptyList) {
                    return "the active list is empty, so counter is refused: " + p + " runs release_counters"
                            + " (`opcontrol --shutdown`), lists the active domains with set_active, and starts"
                            + " the daemon again";
                }
                return p + " sets each counter with XENOPROF_counter, then calls setup_events";
            case READY:
                return readyNextStep();
            case PROFILING:
                return "profiling is running: " + p + " stops it with stop (`opcontrol --stop` in " + p + ")";
            default:
                return p + " calls init";
        }
    }

    /** The READY state's next step: who still has to call enable_virq, or start. */
    String readyNextStep() {
        int primary = core.primary();
        int[] list = core.activeList();
        int listed = list.length;
        boolean callback = core.nmiCallbackInstalled();
        if (callback && core.activated() == listed) {
            return "domain " + primary + " calls start (`opcontrol --start` in domain " + primary + ")";
        }
        StringBuilder b = new StringBuilder();
        if (!callback) {
            b.append("domain ").append(primary).append(core.hasBuffers(primary) ? " calls" : " calls get_buffer and")
                    .append(" enable_virq (its `opcontrol --start-daemon` does this after setup_events)");
        }
        boolean hole = false;
        boolean waiting = false;
        for (int i = 0; i < listed; i++) {
            int d = list[i];
            if (d == NOBODY) {
                hole = true;
            } else if (!core.activeSlotReady(i) && !(d == primary && !callback)) {
                if (b.length() > 0) {
                    b.append("; ");
                }
                b.append("domain ").append(d).append(" runs `opcontrol --start-daemon` (")
                        .append(core.hasBuffers(d) ? "enable_virq" : "get_buffer, then enable_virq").append(')');
                waiting = true;
            }
        }
        if (callback && (hole || !waiting)) {
            return "domain " + primary + " resets the session: `opcontrol --shutdown` (release_counters), then"
                    + " reset_active_list and set_active for each domain (`opcontrol --start-daemon"
                    + " --active-domains=...` in domain " + primary + ")";
        }
        return b.append("; then domain ").append(primary).append(" calls start").toString();
    }

    /** Why start is refused in READY: who has not called enable_virq, or why the count cannot match. */
    String notAllActivated() {
        int[] list = core.activeList();
        int listed = list.length;
        StringBuilder missing = new StringBuilder();
        int waiting = 0;
        boolean hole = false;
        for (int i = 0; i < listed; i++) {
            int d = list[i];
            if (d == NOBODY) {
                hole = true;
            } else if (!core.activeSlotReady(i)) {
                if (missing.length() > 0) {
                    missing.append(", ");
                }
                missing.append("domain ").append(d);
                waiting++;
            }
        }
        String count = Integer.toUnsignedString(core.activated()) + " of " + listed + " have";
        if (hole) {
            return "start needs every listed active domain to have called enable_virq: " + count + ", and a slot"
                    + " of the list was cleared by a disable_virq, so activated can never reach " + listed;
        }
        if (waiting == 0) {
            return "start needs activated == adomains: " + count + " (enable_virq was called more often than"
                    + " domains are listed, or disable_virq by a domain that was never ready wrapped the count)";
        }
        return "start needs every listed active domain to have called enable_virq: " + count + " (" + missing
                + (waiting == 1 ? " has not" : " have not") + ")";
    }

    /** How the primary gets from the current state to {@code target}. */
    String stepsTo(XenoprofState target) {
        XenoprofState state = core.state();
        String p = "domain " + primaryOrHardware();
        switch (target) {
            case INITIALIZED:
                if (state == XenoprofState.PROFILING) {
                    return "run stop and then release_counters first (`opcontrol --stop`, then `opcontrol"
                            + " --shutdown`, in " + p + ")";
                }
                return "run release_counters first (`opcontrol --shutdown` in " + p + ")";
            case COUNTERS_RESERVED:
                if (state == XenoprofState.INITIALIZED) {
                    return p + " runs reserve_counters first (`opcontrol --start-daemon` in " + p + ")";
                }
                if (state == XenoprofState.PROFILING) {
                    return "the counters are already programmed and running: " + p + " runs stop and"
                            + " release_counters (`opcontrol --stop`, `opcontrol --shutdown`), then starts the"
                            + " daemon again";
                }
                return "the counters are already programmed: " + p + " runs release_counters (`opcontrol"
                        + " --shutdown`) and starts the daemon again";
            case READY:
                if (state == XenoprofState.INITIALIZED) {
                    return p + " runs reserve_counters, counter and setup_events first (`opcontrol"
                            + " --start-daemon` in " + p + ")";
                }
                if (state == XenoprofState.COUNTERS_RESERVED) {
                    return p + " runs setup_events first";
                }
                if (state == XenoprofState.PROFILING) {
                    return "profiling is already running; " + p + " runs stop first (`opcontrol --stop` in " + p
                            + ")";
                }
                return p + " runs init first";
            default:
                return nextStep();
        }
    }

    /** For a call refused in the current state: how the primary gets to a state where it is legal. */
    String wrongStateNext(XenoprofOp op) {
        XenoprofState state = core.state();
        String p = "domain " + primaryOrHardware();
        switch (op) {
            case SET_ACTIVE:
                String nobody = core.activeListSize() > 0 ? ""
                        : "; meanwhile the active list is empty (reset_active_list is allowed in every state, and"
                                + " opcontrol calls it before set_active), so a start now would profile nobody";
                return "to change the active list, " + stepsTo(XenoprofState.INITIALIZED) + nobody;
            case SET_PASSIVE:
                return "to change the passive list, " + stepsTo(XenoprofState.INITIALIZED);
            case RESERVE_COUNTERS:
                return "the counters are already reserved; to reserve them afresh, "
                        + stepsTo(XenoprofState.INITIALIZED);
            case COUNTER:
            case IBS_COUNTER:
            case SETUP_EVENTS:
                return stepsTo(XenoprofState.COUNTERS_RESERVED);
            case ENABLE_VIRQ:
                if (state == XenoprofState.PROFILING) {
                    return "profiling is already running with the NMI callback installed; nothing to enable";
                }
                return stepsTo(XenoprofState.READY);
            case START:
                if (state == XenoprofState.PROFILING) {
                    return "profiling is already running; nothing to start (" + nextStep() + ")";
                }
                return stepsTo(XenoprofState.READY) + ", then enable_virq in every listed active domain";
            case STOP:
                return "profiling is not running, so there is nothing to stop; " + nextStep();
            case RELEASE_COUNTERS:
                if (state == XenoprofState.PROFILING) {
                    return p + " runs stop first (`opcontrol --stop` in " + p + "), then release_counters";
                }
                return "no counters are reserved, so there is nothing to release; " + nextStep();
            case SHUTDOWN:
                return stepsTo(XenoprofState.INITIALIZED) + ", then shutdown (`opcontrol --deinit` in " + p + ")";
            default:
                return nextStep();
        }
    }

    /** The value for opcontrol's {@code --active-domains} that adds {@code caller} to the current list. */
    String activeDomainsWith(int caller) {
        StringBuilder b = new StringBuilder();
        boolean hasCaller = false;
        for (int d : core.activeList()) {
            if (d == NOBODY) {
                continue;
            }
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(d);
            hasCaller |= d == caller;
        }
        if (!hasCaller) {
            b.append(b.length() > 0 ? "," : "").append(caller);
        }
        return b.toString();
    }

    String hardwareDomainName() {
        return machine.hardwareDomain(0) ? "domain 0" : "the hardware domain";
    }

    /** The primary, or the hardware domain that would become primary. */
    int primaryOrHardware() {
        int primary = core.primary();
        return primary == NOBODY ? 0 : primary;
    }

    // ---------------------------------------------------------------------------------------------
    // Refusals that several operations share
    // ---------------------------------------------------------------------------------------------

    /** An argument of the wrong type: to Xen, a bad guest pointer. */
    static HypercallOutcome badArgument(XenoprofOp op, String expected, Object got) {
        return failed(Errno.EFAULT, op.cName() + " expects a " + expected + " argument, got "
                + (got == null ? "null" : "a " + got.getClass().getSimpleName())
                + ": to Xen that is a bad guest pointer", "call it again with a " + expected);
    }

    /** A privileged op called by a domain that is not the primary. */
    HypercallOutcome notPrimary(int caller, XenoprofOp op) {
        int primary = core.primary();
        String hw = hardwareDomainName();
        if (primary == NOBODY) {
            String who = machine.hardwareDomain(caller) ? ""
                    : "; domain " + caller + " can never become primary: only the hardware domain can";
            return failed(Errno.EPERM, "no primary profiler yet: " + hw + " must call init first; " + opName(op)
                    + " is reserved to the primary" + who,
                    hw + " runs `opcontrol --init` (init), then " + opcontrolOf(op) + " in " + hw);
        }
        String driverNote = op == XenoprofOp.START || op == XenoprofOp.STOP
                ? " (a non-primary domain's `opcontrol --" + opName(op) + "` makes no hypercall)" : "";
        return failed(Errno.EPERM, "only the primary (domain " + primary + ") may call " + opName(op) + "; domain "
                + caller + " is not the primary" + driverNote, "domain " + primary + " runs " + opcontrolOf(op));
    }

    /** An op called outside the states where it is legal. */
    HypercallOutcome wrongState(XenoprofOp op) {
        XenoprofState state = core.state();
        return failed(Errno.EPERM, opName(op) + " is only legal in " + legalText(op) + "; the session is in "
                + state + stateBecause(state), wrongStateNext(op));
    }

    /** {@code enable_virq} by a domain the primary has not listed as active. */
    HypercallOutcome enableVirqNotListed(int caller, String primaryPart) {
        int primary = core.primary();
        XenoprofState state = core.state();
        int hw = primaryOrHardware();
        String prefix = beforeCheck(primaryPart);
        if (primary == NOBODY) {
            return failed(Errno.EPERM, prefix + "no primary profiler yet: domain " + hw + " must call init first,"
                    + " then list domain " + caller + " as active; enable_virq needs the caller in the active list",
                    "domain " + hw + " runs `opcontrol --start-daemon --active-domains="
                            + activeDomainsWith(caller) + "`; then domain " + caller
                            + " runs `opcontrol --start-daemon`");
        }
        String listing = "domain " + primary + " adds domain " + caller + " with set_active (`opcontrol"
                + " --start-daemon --active-domains=" + activeDomainsWith(caller) + "` in domain " + primary
                + ")";
        String order = state == XenoprofState.INITIALIZED ? ""
                : ", which is only possible in INITIALIZED (the session is in " + state + ": "
                        + stepsTo(XenoprofState.INITIALIZED) + ")";
        return failed(Errno.EPERM, prefix + "domain " + caller + " is not in the active list ("
                + listText(core.activeList()) + "); enable_virq needs the caller to be"
                + " listed by the primary, so the daemon of domain " + caller + " exits with \"Failed to open"
                + " profile device: Operation not permitted\"",
                listing + order + "; then domain " + caller + " runs `opcontrol --start-daemon`");
    }

    // ---------------------------------------------------------------------------------------------
    // The op table in words (section 3.2 of the facts)
    // ---------------------------------------------------------------------------------------------

    static String legalText(XenoprofOp op) {
        return switch (op) {
            case COUNTER, IBS_COUNTER -> "COUNTERS_RESERVED with a non-empty active list";
            case SETUP_EVENTS -> "COUNTERS_RESERVED";
            case ENABLE_VIRQ -> "READY when the primary calls it";
            case START -> "READY once every listed active domain has called enable_virq";
            case STOP -> "PROFILING";
            case RELEASE_COUNTERS -> "COUNTERS_RESERVED or READY";
            default -> "INITIALIZED";
        };
    }

    static String ruleOf(XenoprofOp op) {
        return switch (op) {
            case INIT -> "init is open to every domain in every state; it fails only without a CPU model (-ENODEV)";
            case GET_BUFFER -> "get_buffer is open to every domain; it fails with -EBUSY while the guests hold the PMU"
                    + " (the policy gives it to them) or while the pages are still shared";
            case ENABLE_VIRQ -> "enable_virq needs the caller in the active list with a buffer (and the session READY"
                    + " when the primary calls it)";
            case DISABLE_VIRQ -> "disable_virq needs the caller in the active list with a buffer, and is refused to an"
                    + " active domain while PROFILING";
            case RESET_ACTIVE_LIST, RESET_PASSIVE_LIST, SET_BACKTRACE, GET_IBS_CAPS ->
                opName(op) + " is reserved to the primary and legal in every state";
            default -> opName(op) + " is reserved to the primary and only legal in " + legalText(op);
        };
    }

    static String stateBecause(XenoprofState s) {
        return switch (s) {
            case IDLE -> " because no primary has called init yet";
            case COUNTERS_RESERVED -> " because counters are reserved";
            case READY -> " because counters are reserved and programmed";
            case PROFILING -> " because the counters are running";
            default -> "";
        };
    }

    static String opName(XenoprofOp op) {
        return op.name().toLowerCase(Locale.ROOT);
    }

    /** The opcontrol step whose driver code issues the op. */
    static String opcontrolOf(XenoprofOp op) {
        return switch (op) {
            case START -> "`opcontrol --start`";
            case STOP -> "`opcontrol --stop`";
            case SET_ACTIVE, RESET_ACTIVE_LIST -> "`opcontrol --start-daemon --active-domains=...`";
            case SET_PASSIVE, RESET_PASSIVE_LIST -> "`opcontrol --start-daemon --passive-domains=...`";
            case RELEASE_COUNTERS -> "`opcontrol --shutdown`";
            case SHUTDOWN -> "`opcontrol --deinit`";
            case SET_BACKTRACE -> "`opcontrol --callgraph=N --start-daemon`";
            default -> "`opcontrol --start-daemon`";
        };
    }

    /** The primary's part of enable_virq happens before the caller's list check, as in Xen. */
    static String beforeCheck(String primaryPart) {
        return primaryPart.isEmpty() ? ""
                : "(" + primaryPart.substring(0, primaryPart.length() - 2) + " before the check, as Xen does) ";
    }

    static String listText(int[] list) {
        if (list.length == 0) {
            return "the list is empty";
        }
        StringBuilder b = new StringBuilder("the list holds ");
        for (int i = 0; i < list.length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(list[i] == NOBODY ? "a cleared slot" : Integer.toString(list[i]));
        }
        return b.toString();
    }
}
