package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.testing.host.NoHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A misstep answers ok=false with the real return code and the hypervisor's explanation; never a stack trace. */
class MisstepTest extends OpcontrolOnFakeHost {
    MisstepTest() {
        super(new FakeHost());
    }

    private static void assertNoStackTrace(OpcontrolResult r) {
        assertFalse(r.output().contains("\tat "), r.output());
        assertFalse(r.output().contains("Exception"), r.output());
    }

    @Test
    void failingEnableVirqShowsTheReturnCodeAndTheExplanation() {
        op(0, "--start-daemon");
        xen.fail(1, XenoprofOp.ENABLE_VIRQ, Errno.EPERM.ret());
        OpcontrolResult r = op(1, "--start-daemon");
        assertFalse(r.ok());
        assertTrue(r.output().contains("HYPERVISOR_xenoprof_op(XENOPROF_enable_virq) = -1 (EPERM, Operation not permitted)"),
                r.output());
        assertTrue(r.output().contains("EXPLAIN XENOPROF_enable_virq by domain 1 returned -1"), r.output());
        assertNoStackTrace(r);
    }

    @Test
    void aDaemonThatCouldNotOpenTheDeviceUnbindsAndKeepsItsBuffersForTheRetry() {
        op(0, "--start-daemon", "--active-domains=0,1");
        xen.fail(1, XenoprofOp.ENABLE_VIRQ, Errno.EPERM.ret());
        assertFalse(op(1, "--start-daemon").ok());
        assertEquals(List.of("init", "get_buffer(16)", "[map 1]", "[bind]", "enable_virq", "[unbind]"), xen.callsBy(1));
        xen.calls.clear();
        assertTrue(op(1, "--start-daemon").ok());
        assertEquals(List.of("[bind]", "enable_virq"), xen.callsBy(1), "no second get_buffer: the pages are still mapped");
    }

    @Test
    void failedSetActiveEmptiesTheListAgainAndTheWriteFailsWithEinval() {
        xen.fail(0, XenoprofOp.SET_ACTIVE, Errno.EINVAL.ret());
        OpcontrolResult r = op(0, "--start-daemon", "--active-domains=7");
        assertFalse(r.ok());
        assertEquals(List.of("init", "reset_active_list", "set_active(7)", "reset_active_list"), xen.callsBy(0));
        assertTrue(r.output().contains("= -22 (EINVAL, Invalid argument)"), r.output());
        assertTrue(r.output().contains("the write to /dev/oprofile/active_domains fails with -22"), r.output());
    }

    @Test
    void moreThan25ActiveDomainsFailLikeTheOprofilefsWriteBeforeAnyHypercall() {
        StringBuilder ids = new StringBuilder("0");
        for (int i = 1; i <= 25; i++) {
            ids.append(',').append(i);
        }
        OpcontrolResult r = op(0, "--start-daemon", "--active-domains=" + ids);
        assertFalse(r.ok());
        assertTrue(r.output().contains("-22 (EINVAL, Invalid argument)"), r.output());
        assertTrue(r.output().contains("more than 25"), r.output());
        assertEquals(List.of(), xen.calls);
    }

    @Test
    void junkInTheActiveDomainListFailsWithEinval() {
        OpcontrolResult r = op(0, "--start-daemon", "--active-domains=0,dom1");
        assertFalse(r.ok());
        assertTrue(r.output().contains("-22 (EINVAL, Invalid argument)"), r.output());
        assertTrue(r.output().contains("'dom1' is not a domain id"), r.output());
        assertEquals(List.of(), xen.calls);
    }

    @Test
    void anEventTheModelRefusesShowsItsMessageBeforeAnyHypercall() {
        OpcontrolResult r = op(0, "--start-daemon", "--event=CPU_CLK_UNHALTED:10");
        assertFalse(r.ok());
        assertTrue(r.output().contains("count 10 of CPU_CLK_UNHALTED is below the minimum 6000"), r.output());
        assertEquals(List.of(), xen.calls);
        OpcontrolResult syntax = op(0, "--start-daemon", "--event=CPU_CLK_UNHALTED");
        assertFalse(syntax.ok());
        assertTrue(syntax.output().contains("expected EVENT:count"), syntax.output());
    }

    @Test
    void startBeforeEveryListedDomainEnabledItsVirqFailsWithTheExplanation() {
        op(0, "--start-daemon", "--active-domains=0,1");
        xen.fail(0, XenoprofOp.START, Errno.EPERM.ret());
        OpcontrolResult r = op(0, "--start");
        assertFalse(r.ok());
        assertTrue(r.output().contains("XENOPROF_start) = -1 (EPERM, Operation not permitted)"), r.output());
        assertTrue(r.output().contains("EXPLAIN XENOPROF_start"), r.output());
        assertFalse(r.output().contains("Profiler running."), "unlike the real opcontrol, a failed start says so");
        assertEquals(0, host.groundTruthResets);
    }

    @Test
    void aGuestShuttingDownWhileThePrimaryProfilesReportsEpermButStillUnbinds() {
        op(0, "--start-daemon", "--active-domains=0,1");
        op(1, "--start-daemon");
        op(0, "--start");
        xen.fail(1, XenoprofOp.DISABLE_VIRQ, Errno.EPERM.ret());
        xen.calls.clear();
        OpcontrolResult r = op(1, "--shutdown");
        assertFalse(r.ok());
        assertEquals(List.of("disable_virq", "[unbind]"), xen.callsBy(1));
        assertTrue(r.output().contains("-1 (EPERM, Operation not permitted)"), r.output());
        assertTrue(r.output().contains("EXPLAIN XENOPROF_disable_virq by domain 1"), r.output());
    }

    @Test
    void noHostLoadedSaysToRunHpLoadFirst() {
        ProfilerImpl p = new ProfilerImpl(new NoHost());
        OpcontrolResult r = p.opcontrol(0, List.of("--start-daemon"));
        assertFalse(r.ok());
        assertTrue(r.output().contains("Run hp:load first"), r.output());
        p.deactivate();
    }

    @Test
    void anUnknownDomainNamesTheDomainsThatExist() {
        OpcontrolResult r = op(9, "--start-daemon");
        assertFalse(r.ok());
        assertTrue(r.output().contains("the domains are 0 (Domain-0), 1 (domU-rcv)"), r.output());
    }

    @Test
    void anUnknownOptionListsWhatOpcontrolUnderstands() {
        OpcontrolResult r = op(0, "--start-daemon", "--callgraf=4");
        assertFalse(r.ok());
        assertTrue(r.output().contains("unknown option '--callgraf=4'"), r.output());
        assertTrue(r.output().contains("--start-daemon"), r.output());
        assertFalse(op(0).ok(), "no action");
        assertFalse(op(0, "--start", "--stop").ok(), "two actions");
        assertFalse(op(0, "--start", "--event=CPU_CLK_UNHALTED:6000").ok(), "setup option without --start-daemon");
    }

    @Test
    void stepsBeforeTheDaemonRunsSayWhatToRunFirst() {
        OpcontrolResult r = op(0, "--start");
        assertFalse(r.ok());
        assertTrue(r.output().contains("Run opcontrol --start-daemon as domain 0 first"), r.output());
        assertEquals(List.of(), xen.calls);
    }

    @Test
    void aSecondStartDaemonWhileRunningTellsToShutDownFirst() {
        op(0, "--start-daemon");
        xen.calls.clear();
        OpcontrolResult r = op(0, "--start-daemon");
        assertFalse(r.ok());
        assertTrue(r.output().contains("already running"), r.output());
        assertEquals(List.of(), xen.calls);
    }

    @Test
    void aHypervisorThatThrowsIsReportedAsADefectNotAsAStackTrace() {
        xen.throwOn = new IllegalStateException("skeleton");
        xen.throwOp = "INIT";
        OpcontrolResult r = op(0, "--start-daemon");
        assertFalse(r.ok());
        assertTrue(r.output().contains("did not return: the hypervisor raised"), r.output());
        assertFalse(r.output().contains("\tat "), r.output());
    }

    @Test
    void aStoppedHostSaysWhyAndWhatToDo() {
        host.stopReason = "bundle org.hyperprof.pmu.p6 departed";
        OpcontrolResult r = op(0, "--status");
        assertFalse(r.ok());
        assertTrue(r.output().contains("has stopped: bundle org.hyperprof.pmu.p6 departed"), r.output());
        assertTrue(r.output().contains("hp:load"), r.output());
    }

    @Test
    void aXenImageOrVmlinuxThatDoesNotExistIsRefusedByNameBeforeAnyHypercall(@TempDir Path dir) throws Exception {
        OpcontrolResult r = op(0, "--start-daemon", "--xen=/nonexistent/xen-syms");
        assertFalse(r.ok());
        assertTrue(r.output().contains("--xen=/nonexistent/xen-syms: the specified Xen image /nonexistent/xen-syms"
                + " does not exist"), r.output());
        OpcontrolResult v = op(0, "--start-daemon", "--vmlinux=" + dir);
        assertFalse(v.ok());
        assertTrue(v.output().contains("the specified vmlinux file " + dir + " is not a regular file"), v.output());
        assertEquals(List.of(), xen.callsBy(0), "opcontrol checks its files first");
        Path xenSyms = Files.writeString(dir.resolve("xen-syms"), "");
        assertTrue(op(0, "--start-daemon", "--xen=" + xenSyms).ok(), "an image that exists is taken");
    }
}
