package org.hyperprof.hypervisor.xenoprof;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;

/** Drives a {@link XenoprofCore} through opcontrol's hypercall sequence, one legal step at a time. */
final class Steps {
    static final int DOM0 = 0;
    static final int DOMU = 3;
    static final int OTHER = 5;
    static final int CLK_UNHALTED = 0x79;

    final FakeMachine machine;
    final XenoprofCore core;

    Steps(FakeMachine machine) {
        this.machine = machine;
        this.core = new XenoprofCore(machine);
    }

    static Steps standard() {
        return new Steps(FakeMachine.standard());
    }

    long call(int domid, XenoprofOp op, Object arg) {
        return core.hypercall(domid, op, arg);
    }

    /** A step that must succeed; the failure message is Xenoprof's own explanation. */
    long ok(int domid, XenoprofOp op, Object arg) {
        long r = core.hypercall(domid, op, arg);
        assertEquals(0, r, () -> core.explain(domid, op, r));
        return r;
    }

    XenoprofInit init(int domid) {
        XenoprofInit in = new XenoprofInit();
        ok(domid, XenoprofOp.INIT, in);
        return in;
    }

    XenoprofGetBuffer getBuffer(int domid, int maxSamples) {
        XenoprofGetBuffer gb = new XenoprofGetBuffer(maxSamples);
        ok(domid, XenoprofOp.GET_BUFFER, gb);
        return gb;
    }

    XenoprofPassive setPassive(int domid, int maxSamples) {
        XenoprofPassive p = new XenoprofPassive(domid, maxSamples);
        ok(DOM0, XenoprofOp.SET_PASSIVE, p);
        return p;
    }

    static XenoprofCounter counter(int ind, int event, long count) {
        XenoprofCounter c = new XenoprofCounter();
        c.ind = ind;
        c.enabled = 1;
        c.event = event;
        c.count = count;
        c.kernel = 1;
        c.user = 1;
        return c;
    }

    /** dom0 primary, both listed active domains with buffers: INITIALIZED. */
    Steps initialized(int... activeDomains) {
        init(DOM0);
        for (int d : activeDomains) {
            getBuffer(d, 16);
        }
        for (int d : activeDomains) {
            ok(DOM0, XenoprofOp.SET_ACTIVE, d);
        }
        return this;
    }

    Steps reserved() {
        ok(DOM0, XenoprofOp.RESERVE_COUNTERS, null);
        return this;
    }

    /** Counter 0 counts unhalted cycles every {@code period}, then setup_events: READY (no enable_virq yet). */
    Steps programmed(long period) {
        ok(DOM0, XenoprofOp.COUNTER, counter(0, CLK_UNHALTED, period));
        ok(DOM0, XenoprofOp.SETUP_EVENTS, null);
        return this;
    }

    Steps enabled(int... domains) {
        for (int d : domains) {
            ok(d, XenoprofOp.ENABLE_VIRQ, null);
        }
        return this;
    }

    Steps started() {
        ok(DOM0, XenoprofOp.START, null);
        return this;
    }

    /** The usual session: dom0 and dom3 active, counter 0 on unhalted cycles, profiling. */
    static Steps profiling() {
        return standard().initialized(DOM0, DOMU).reserved().programmed(100000).enabled(DOM0, DOMU).started();
    }
}
