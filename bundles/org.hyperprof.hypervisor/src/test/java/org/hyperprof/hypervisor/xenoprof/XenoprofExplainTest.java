package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.Steps.DOM0;
import static org.hyperprof.hypervisor.xenoprof.Steps.DOMU;
import static org.hyperprof.hypervisor.xenoprof.Steps.OTHER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.junit.jupiter.api.Test;

/**
 * explain(): every misstep of section 8.7 (and the other wrong orders) answers with the state,
 * why the call failed with the real error text, and which domain must take which step next.
 */
class XenoprofExplainTest {

    /** Calls and returns the explanation, checking the result first. */
    private static String explainCall(Steps s, int domid, XenoprofOp op, Object arg, Errno expected) {
        long r = s.call(domid, op, arg);
        String text = s.core.explain(domid, op, r);
        assertEquals(expected == null ? 0 : expected.ret(), r, text);
        return text;
    }

    private static void assertMentions(String text, String... parts) {
        for (String p : parts) {
            assertTrue(text.contains(p), () -> "expected \"" + p + "\" in: " + text);
        }
    }

    @Test
    void aDomuDaemonStartedBeforeDom0ListedItIsToldToGetListed() {
        Steps s = Steps.standard().initialized(DOM0).reserved().programmed(1000).enabled(DOM0);
        s.getBuffer(DOMU, 16);
        String text = explainCall(s, DOMU, XenoprofOp.ENABLE_VIRQ, null, Errno.EPERM);
        assertMentions(text, "-EPERM Operation not permitted", "State READY", "domain 3 is not in the active list",
                "domain 0 adds domain 3 with set_active", "--active-domains=0,3", "only possible in INITIALIZED",
                "release_counters", "then domain 3 runs `opcontrol --start-daemon`");
    }

    @Test
    void buffersOfZeroSlotsAreExplainedAsHoldingNoSampleForAsLongAsTheDomainLives() {
        Steps s = Steps.standard();
        s.init(DOM0);
        String text = explainCall(s, DOM0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(DOMU, 0), null);
        assertMentions(text, "(0 slots each)", "buffers of 0 slots hold no sample (one slot always stays empty):"
                + " every sample for domain 3 will be counted as corrupted, and Xen keeps these buffers, whatever"
                + " later get_buffer or set_passive calls ask for, until domain 3 is destroyed");
        String own = explainCall(s, DOM0, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(1), null);
        assertMentions(own, "(1 slots each)", "buffers of 1 slot hold no sample", "counted as lost");
        String fine = explainCall(s, OTHER, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(2), null);
        assertTrue(!fine.contains("hold no sample"), fine);
    }

    @Test
    void aDomuDaemonStartedBeforeAnyPrimaryIsToldDom0MustInitFirst() {
        Steps s = Steps.standard();
        s.getBuffer(DOMU, 16);
        String text = explainCall(s, DOMU, XenoprofOp.ENABLE_VIRQ, null, Errno.EPERM);
        assertMentions(text, "State IDLE", "no primary profiler yet: domain 0 must call init first", "domain 3");
    }

    @Test
    void startBeforeEveryListedDomainStartedItsDaemonNamesTheMissingDomain() {
        Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(1000).enabled(DOM0);
        String text = explainCall(s, DOM0, XenoprofOp.START, null, Errno.EPERM);
        assertMentions(text, "State READY", "start needs every listed active domain to have called enable_virq",
                "1 of 2 have (domain 3 has not)", "Next: domain 3 runs `opcontrol --start-daemon`",
                "then domain 0 calls start");
    }

    @Test
    void changingTheActiveListAfterCountersAreReservedSaysToReleaseFirst() {
        Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(1000).enabled(DOM0, DOMU);
        s.ok(DOM0, XenoprofOp.RESET_ACTIVE_LIST, null); // what opcontrol's active_domains write does first
        String text = explainCall(s, DOM0, XenoprofOp.SET_ACTIVE, DOMU, Errno.EPERM);
        assertMentions(text, "set_active is only legal in INITIALIZED",
                "the session is in READY because counters are reserved",
                "to change the active list, run release_counters first (`opcontrol --shutdown` in domain 0)",
                "a start now would profile nobody");
    }

    @Test
    void changingThePassiveListWhileProfilingSaysStopThenRelease() {
        Steps s = Steps.profiling();
        String text = explainCall(s, DOM0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(OTHER, 2048), Errno.EPERM);
        assertMentions(text, "State PROFILING", "set_passive is only legal in INITIALIZED", "`opcontrol --stop`",
                "`opcontrol --shutdown`", "domain 0");
    }

    @Test
    void aGuestCallingAPrivilegedOpIsToldOnlyThePrimaryMay() {
        Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(1000).enabled(DOM0, DOMU);
        String text = explainCall(s, DOMU, XenoprofOp.START, null, Errno.EPERM);
        assertMentions(text, "only the primary (domain 0) may call start", "State READY",
                "Next: domain 0 runs `opcontrol --start`");
    }

    @Test
    void beforeAnyPrimaryEvenDom0IsToldToInitFirst() {
        Steps s = Steps.standard();
        String text = explainCall(s, DOM0, XenoprofOp.RESERVE_COUNTERS, null, Errno.EPERM);
        assertMentions(text, "State IDLE", "no primary profiler yet: domain 0 must call init first",
                "`opcontrol --init`");
    }

    @Test
    void anActiveGuestShuttingDownWhileProfilingIsToldDom0MustStopFirst() {
        Steps s = Steps.profiling();
        String text = explainCall(s, DOMU, XenoprofOp.DISABLE_VIRQ, null, Errno.EPERM);
        assertMentions(text, "State PROFILING", "disable_virq is refused while profiling",
                "domain 0 stops profiling first (`opcontrol --stop` in domain 0)",
                "then domain 3 runs `opcontrol --shutdown`");
    }

    @Test
    void whatHoldsThePmuForTheGuestsIsNamedAndTheGuestsOwnProfilersSuggested() {
        Steps s = Steps.standard();
        s.machine.guestsHoldPmu = "the counter-virtualization policy lazy gives the guests the PMU: the profiler of"
                + " domain 3 (domU) uses its virtual counters";
        String text = explainCall(s, DOMU, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(16), Errno.EBUSY);
        assertMentions(text, "-EBUSY Device or resource busy", "State IDLE",
                "policy lazy gives the guests the PMU: the profiler of domain 3 (domU) uses its virtual counters,"
                        + " so Xenoprof cannot acquire it",
                "hp:profile --guests-only", "--host-option vpmu.policy=systemwide",
                "domain 3 runs `opcontrol --start-daemon` again");
    }

    @Test
    void aSecondGetBufferIsToldToDisableTheVirqFirst() {
        Steps s = Steps.standard();
        s.getBuffer(DOMU, 16);
        String text = explainCall(s, DOMU, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(16), Errno.EBUSY);
        assertMentions(text, "still shared with domain 3 by an earlier get_buffer", "made domain 3 IGNORED",
                "domain 3 calls disable_virq (`opcontrol --shutdown` in domain 3)");
    }

    @Test
    void aDomainActiveElsewhereUsedAsPassiveIsEbusyNamingItsGetBuffer() {
        Steps s = Steps.standard();
        s.getBuffer(DOMU, 16);
        s.init(DOM0);
        String text = explainCall(s, DOM0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(DOMU, 2048), Errno.EBUSY);
        assertMentions(text, "State INITIALIZED", "pages of domain 3 are still shared with domain 3",
                "get_buffer", "domain 3 calls disable_virq");
    }

    @Test
    void noCpuModelExplainsTheTimerFallback() {
        XenoprofCore core = new XenoprofCore(new FakeMachine(null, 1).domain(0, 1));
        long r = core.hypercall(DOM0, XenoprofOp.INIT, new XenoprofInit());
        String text = core.explain(DOM0, XenoprofOp.INIT, r);
        assertMentions(text, "-ENODEV No such device", "State IDLE", "timer", "CPU model");
    }

    @Test
    void otherWrongOrdersNameTheLegalStateAndTheWayThere() {
        Steps s = Steps.standard().initialized(DOM0, DOMU);
        assertMentions(explainCall(s, DOM0, XenoprofOp.SETUP_EVENTS, null, Errno.EPERM),
                "setup_events is only legal in COUNTERS_RESERVED", "State INITIALIZED",
                "domain 0 runs reserve_counters first");
        assertMentions(explainCall(s, DOM0, XenoprofOp.START, null, Errno.EPERM),
                "start is only legal in READY", "reserve_counters, counter and setup_events first",
                "enable_virq in every listed active domain");
        assertMentions(explainCall(s, DOM0, XenoprofOp.STOP, null, Errno.EPERM), "stop is only legal in PROFILING",
                "nothing to stop");
        assertMentions(explainCall(s, DOM0, XenoprofOp.RELEASE_COUNTERS, null, Errno.EPERM),
                "nothing to release");
        s.reserved().programmed(1000);
        assertMentions(explainCall(s, DOM0, XenoprofOp.SHUTDOWN, null, Errno.EPERM),
                "shutdown is only legal in INITIALIZED", "State READY", "run release_counters first",
                "`opcontrol --deinit` in domain 0");
        assertMentions(explainCall(s, DOM0, XenoprofOp.START, null, Errno.EPERM), "0 of 2 have",
                "domain 0 calls enable_virq", "domain 3 runs `opcontrol --start-daemon`");
        s.enabled(DOM0, DOMU).started();
        assertMentions(explainCall(s, DOM0, XenoprofOp.RELEASE_COUNTERS, null, Errno.EPERM), "State PROFILING",
                "domain 0 runs stop first (`opcontrol --stop` in domain 0), then release_counters");
    }

    @Test
    void counterWithAnEmptyActiveListSaysWhy() {
        Steps s = Steps.standard();
        s.init(DOM0);
        s.reserved();
        String text = explainCall(s, DOM0, XenoprofOp.COUNTER, Steps.counter(0, 0x79, 1000), Errno.EPERM);
        assertMentions(text, "State COUNTERS_RESERVED", "needs a non-empty active list",
                "domain 0 runs release_counters");
    }

    @Test
    void aCounterIndexTooBigNamesTheLimitAndTheModel() {
        Steps s = Steps.standard().initialized(DOM0).reserved();
        String text = explainCall(s, DOM0, XenoprofOp.COUNTER, Steps.counter(8, 0x79, 1000), Errno.E2BIG);
        assertMentions(text, "-E2BIG Argument list too long", "counter index 8 is not below 8",
                "this model has 2 counters", "domain 0 configures counters 0..1");
    }

    @Test
    void aBadArgumentNamesTheExpectedType() {
        Steps s = Steps.standard();
        String text = explainCall(s, DOMU, XenoprofOp.GET_BUFFER, "16", Errno.EFAULT);
        assertMentions(text, "-EFAULT Bad address", "expects a XenoprofGetBuffer", "got a String");
    }

    @Test
    void reservingAgainAfterAReinitWhileProfilingExplainsTheWedgedLapicNmi() {
        Steps s = Steps.profiling();
        String reinit = explainCall(s, DOM0, XenoprofOp.INIT, new XenoprofInit(), null);
        assertMentions(reinit, "State PROFILING -> INITIALIZED", "the counters keep running");
        String text = explainCall(s, DOM0, XenoprofOp.RESERVE_COUNTERS, null, Errno.EBUSY);
        assertMentions(text, "State INITIALIZED", "the LAPIC NMI is still reserved", "reboot");
    }

    @Test
    void aSuccessSaysWhatChanged() {
        Steps s = Steps.standard().initialized(DOM0, DOMU);
        String text = explainCall(s, DOM0, XenoprofOp.RESERVE_COUNTERS, null, null);
        assertMentions(text, "succeeded (0)", "State INITIALIZED -> COUNTERS_RESERVED", "reserved the LAPIC NMI",
                "Next: domain 0 sets each counter");
        String init = explainCall(s, DOMU, XenoprofOp.INIT, new XenoprofInit(), null);
        assertMentions(init, "State COUNTERS_RESERVED (unchanged)", "is_primary=0", "the primary is domain 0");
    }

    @Test
    void stopExplainsTheFlush() {
        Steps s = Steps.profiling();
        String text = explainCall(s, DOM0, XenoprofOp.STOP, null, null);
        assertMentions(text, "State PROFILING -> READY", "VIRQ_XENOPROF sent to 4 vCPU(s)");
    }

    @Test
    void aResultThatWasNotRecordedIsExplainedByTheRule() {
        Steps s = Steps.standard().initialized(DOM0);
        String text = s.core.explain(DOMU, XenoprofOp.STOP, Errno.EPERM.ret());
        assertMentions(text, "-EPERM Operation not permitted", "State INITIALIZED",
                "stop is reserved to the primary and only legal in PROFILING", "Next: domain 0");
    }

    @Test
    void everyFailureOfTheStateTableNamesStateErrnoReasonAndNextStep() {
        List<String> missing = new ArrayList<>();
        for (XenoprofState state : XenoprofState.values()) {
            for (XenoprofOp op : XenoprofOp.values()) {
                for (XenoprofStateTableTest.Caller c : XenoprofStateTableTest.Caller.values()) {
                    Steps s = XenoprofStateTableTest.fixture(state);
                    long r = s.core.hypercall(c.domid, op, XenoprofStateTableTest.argumentFor(op.number()));
                    if (r >= 0) {
                        continue;
                    }
                    String text = s.core.explain(c.domid, op, r);
                    Errno e = Errno.ofResult(r);
                    for (String part : new String[] {"State " + s.core.state() + ".", "-" + e.name() + " " + e.text(),
                            "Why: ", "Next: ", "domain "}) {
                        if (!text.contains(part)) {
                            missing.add(op.cName() + " in " + state + " by " + c + " lacks \"" + part + "\": " + text);
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), missing);
    }
}
