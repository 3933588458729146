package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.Steps.DOM0;
import static org.hyperprof.hypervisor.xenoprof.Steps.DOMU;
import static org.hyperprof.hypervisor.xenoprof.Steps.OTHER;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The state machine as a table: every op number (0..17, plus -1 and 18 outside the range), in
 * every state, called by the primary, by a listed active domain, by a passive domain and by an
 * unlisted domain. The expected outcome is written from the op table of the facts (section 3.2),
 * not from the code.
 *
 * <p>Fixture per state: dom0 (hardware domain) and dom3 have called get_buffer and are listed
 * active; from INITIALIZED on, dom7 is in the passive list (set_passive with the driver's 2048
 * slots: its buffers exist and are shared with dom0); dom5 exists, has no buffer and is not
 * listed. From READY on, dom0 and dom3 have both called enable_virq, so {@code activated ==
 * adomains}. In IDLE nobody is primary yet, so dom7 is not passive either.
 */
class XenoprofStateTableTest {

    /** The passive domain of the fixture. */
    static final int PASSIVE_DOMID = 7;

    enum Caller {
        PRIMARY(DOM0), LISTED_ACTIVE(DOMU), PASSIVE(PASSIVE_DOMID), UNLISTED(OTHER);

        final int domid;

        Caller(int domid) {
            this.domid = domid;
        }
    }

    record Outcome(long result, XenoprofState state) {
    }

    static Stream<Arguments> everyOpInEveryStateByEveryCaller() {
        List<Arguments> cases = new ArrayList<>();
        for (XenoprofState s : XenoprofState.values()) {
            for (int op = -1; op <= XenoprofOp.LAST_OP + 1; op++) {
                for (Caller c : Caller.values()) {
                    XenoprofOp o = XenoprofOp.ofNumber(op);
                    cases.add(Arguments.of(s, op, c, (o == null ? "op " + op : o.cName()) + " in " + s + " by " + c));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{3}")
    @MethodSource("everyOpInEveryStateByEveryCaller")
    void resultAndNextStateFollowTheOpTable(XenoprofState state, int op, Caller caller, String name) {
        Steps steps = fixture(state);
        Outcome want = expected(op, state, caller);

        long got = steps.core.hypercall(caller.domid, op, argumentFor(op));

        XenoprofOp o = XenoprofOp.ofNumber(op);
        String why = o == null ? "op out of range" : steps.core.explain(caller.domid, o, got);
        assertEquals(want.result(), got, () -> name + ": " + why);
        assertEquals(want.state(), steps.core.state(), () -> name + ": " + why);
    }

    /** The facts' op table, applied to the fixture above. */
    static Outcome expected(int op, XenoprofState s, Caller c) {
        XenoprofOp o = XenoprofOp.ofNumber(op);
        if (o == null) {
            return fail(Errno.EINVAL, s);
        }
        boolean isPrimary = c == Caller.PRIMARY && s != XenoprofState.IDLE; // nobody is primary before init
        boolean listedWithBuffer = s != XenoprofState.IDLE && (c == Caller.PRIMARY || c == Caller.LISTED_ACTIVE);
        // set_passive allocated its buffers and shared them with the primary.
        boolean passiveWithBuffer = s != XenoprofState.IDLE && c == Caller.PASSIVE;
        if (o.privileged() && !isPrimary) {
            return fail(Errno.EPERM, s);
        }
        switch (o) {
            case INIT:
                // The hardware domain becomes (or stays) primary, and the primary's init forces INITIALIZED.
                return new Outcome(0, c == Caller.PRIMARY ? XenoprofState.INITIALIZED : s);
            case RESET_ACTIVE_LIST:
            case RESET_PASSIVE_LIST:
            case SET_BACKTRACE:
            case GET_IBS_CAPS:
                return new Outcome(0, s);
            case SET_ACTIVE:
            case SET_PASSIVE:
                return s == XenoprofState.INITIALIZED ? new Outcome(0, s) : fail(Errno.EPERM, s);
            case RESERVE_COUNTERS:
                return s == XenoprofState.INITIALIZED ? new Outcome(0, XenoprofState.COUNTERS_RESERVED)
                        : fail(Errno.EPERM, s);
            case COUNTER:
            case IBS_COUNTER:
                return s == XenoprofState.COUNTERS_RESERVED ? new Outcome(0, s) : fail(Errno.EPERM, s);
            case SETUP_EVENTS:
                return s == XenoprofState.COUNTERS_RESERVED ? new Outcome(0, XenoprofState.READY)
                        : fail(Errno.EPERM, s);
            case ENABLE_VIRQ:
                if (isPrimary && s != XenoprofState.READY) {
                    return fail(Errno.EPERM, s);
                }
                return listedWithBuffer ? new Outcome(0, s) : fail(Errno.EPERM, s);
            case START:
                return s == XenoprofState.READY ? new Outcome(0, XenoprofState.PROFILING) : fail(Errno.EPERM, s);
            case STOP:
                return s == XenoprofState.PROFILING ? new Outcome(0, XenoprofState.READY) : fail(Errno.EPERM, s);
            case DISABLE_VIRQ:
                if (s == XenoprofState.PROFILING && listedWithBuffer) {
                    return fail(Errno.EPERM, s); // active while profiling
                }
                return listedWithBuffer ? new Outcome(0, s) : fail(Errno.EPERM, s);
            case RELEASE_COUNTERS:
                return s == XenoprofState.COUNTERS_RESERVED || s == XenoprofState.READY
                        ? new Outcome(0, XenoprofState.INITIALIZED) : fail(Errno.EPERM, s);
            case SHUTDOWN:
                return s == XenoprofState.INITIALIZED ? new Outcome(0, s) : fail(Errno.EPERM, s);
            case GET_BUFFER:
                // Pages still shared: from the caller's earlier get_buffer, or with the primary by set_passive.
                return listedWithBuffer || passiveWithBuffer ? fail(Errno.EBUSY, s) : new Outcome(0, s);
            default:
                throw new AssertionError("no expectation for " + o);
        }
    }

    @ParameterizedTest(name = "get_buffer by the passive domain in {0}")
    @org.junit.jupiter.params.provider.EnumSource(value = XenoprofState.class, names = {"INITIALIZED",
        "COUNTERS_RESERVED", "READY", "PROFILING"})
    void aPassiveDomainsOwnGetBufferIsBusyAndMakesItIgnoredSoItsSamplesAreDropped(XenoprofState state) {
        Steps steps = fixture(state);
        assertEquals(org.hyperprof.api.xenoprof.DomainType.PASSIVE, steps.core.domainType(PASSIVE_DOMID));
        long r = steps.core.hypercall(PASSIVE_DOMID, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(16));
        assertEquals(Errno.EBUSY.ret(), r, () -> steps.core.explain(PASSIVE_DOMID, XenoprofOp.GET_BUFFER, r));
        // Quirk (e): the type is IGNORED before the share check fails; the passive list still names it.
        assertEquals(org.hyperprof.api.xenoprof.DomainType.IGNORED, steps.core.domainType(PASSIVE_DOMID));
        assertEquals(PASSIVE_DOMID, steps.core.passiveList()[0]);
        assertEquals(state, steps.core.state());
    }

    private static Outcome fail(Errno e, XenoprofState s) {
        return new Outcome(e.ret(), s);
    }

    static Steps fixture(XenoprofState state) {
        Steps steps = new Steps(FakeMachine.standard().domain(PASSIVE_DOMID, 1));
        if (state == XenoprofState.IDLE) {
            return steps;
        }
        steps.initialized(DOM0, DOMU);
        steps.setPassive(PASSIVE_DOMID, 2048);
        if (state == XenoprofState.INITIALIZED) {
            return steps;
        }
        steps.reserved();
        if (state == XenoprofState.COUNTERS_RESERVED) {
            return steps;
        }
        steps.programmed(100000).enabled(DOM0, DOMU);
        if (state == XenoprofState.READY) {
            return steps;
        }
        return steps.started();
    }

    static Object argumentFor(int op) {
        XenoprofOp o = XenoprofOp.ofNumber(op);
        if (o == null) {
            return null;
        }
        switch (o) {
            case INIT:
                return new XenoprofInit();
            case SET_ACTIVE:
                return OTHER;
            case SET_PASSIVE:
                return new XenoprofPassive(OTHER, 2048);
            case COUNTER:
                XenoprofCounter c = Steps.counter(1, 0xc0, 50000);
                return c;
            case GET_BUFFER:
                return new XenoprofGetBuffer(16);
            case SET_BACKTRACE:
                return 4L;
            case IBS_COUNTER:
                return new XenoprofIbsCounter();
            default:
                return null;
        }
    }
}
