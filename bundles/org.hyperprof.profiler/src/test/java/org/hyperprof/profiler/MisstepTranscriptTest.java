package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.profiler.OpcontrolResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Every wrong order at the opcontrol level (xenoprof-facts §8.7 and others), taken against the real
 * hypervisor on the multi-domain scenario (dom0 primary, dom1 PV, dom2 PV, dom3 HVM, dom4 PV): each
 * prints the real return code, the state, the expected step and the domain that must take it. The
 * outputs are written to {@code target/misstep-transcript.txt}.
 */
class MisstepTranscriptTest {
    private static final Map<String, String> TRANSCRIPT = new TreeMap<>();

    /** Runs opcontrol as domain {@code domid} and adds the command and its output to the misstep's transcript. */
    private static OpcontrolResult record(String misstep, RealHost h, int domid, String... args) {
        OpcontrolResult r = h.op(domid, args);
        String as = "opcontrol " + domid + " " + String.join(" ", args);
        synchronized (TRANSCRIPT) {
            TRANSCRIPT.merge(misstep, "$ " + as + System.lineSeparator() + r.output() + System.lineSeparator()
                    + "(ok=" + r.ok() + ")" + System.lineSeparator(), (a, b) -> a + System.lineSeparator() + b);
        }
        return r;
    }

    private static void has(OpcontrolResult r, String... parts) {
        for (String p : parts) {
            assertTrue(r.output().contains(p), "expected '" + p + "' in:\n" + r.output());
        }
        assertFalse(r.output().contains("\tat "), r.output());
    }

    @AfterAll
    static void writeTranscript() throws IOException {
        StringBuilder b = new StringBuilder("Hyperprof opcontrol missteps against the real hypervisor (xen-multi-domain)")
                .append(System.lineSeparator());
        TRANSCRIPT.forEach((k, v) -> b.append(System.lineSeparator()).append("### ").append(k)
                .append(System.lineSeparator()).append(v));
        Path out = Path.of("target", "misstep-transcript.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, b.toString());
    }

    @Test
    void aGuestStartingItsDaemonBeforeTheHardwareDomainIsPrimaryGetsEpermAndTheStepsOfDomain0() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult r = record("01 domU --start-daemon before dom0 set up anything", h, 1, "--start-daemon");
            assertFalse(r.ok());
            has(r, "XENOPROF_enable_virq) = -1 (EPERM, Operation not permitted)", "State IDLE",
                    "domain 0 runs `opcontrol --start-daemon --active-domains=1`",
                    "then domain 1 runs `opcontrol --start-daemon`");
        }
    }

    @Test
    void aGuestThePrimaryDidNotListGetsEpermAndHowDomain0ListsIt() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--active-domains=0,1");
            OpcontrolResult r = record("02 domU --start-daemon, but dom0 never listed it", h, 4, "--start-daemon");
            assertFalse(r.ok());
            has(r, "XENOPROF_enable_virq) = -1 (EPERM", "State READY", "domain 4 is not in the active list",
                    "domain 0 adds domain 4 with set_active", "`opcontrol --shutdown` in domain 0",
                    "then domain 4 runs `opcontrol --start-daemon`");
        }
    }

    @Test
    void thePrimaryStartingBeforeEveryListedDomainIsReadyGetsEpermAndWhoMustStartADaemon() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--active-domains=0,1");
            OpcontrolResult r = record("03 dom0 --start before every listed active domain started its daemon",
                    h, 0, "--start");
            assertFalse(r.ok());
            has(r, "XENOPROF_start) = -1 (EPERM, Operation not permitted)", "State READY", "1 of 2 have",
                    "domain 1 (web-pv): domain 1 runs opcontrol --start-daemon", "Then domain 0 runs opcontrol --start again");
            assertFalse(r.output().contains("Profiler running."), "unlike the real opcontrol, nothing claims success");
        }
    }

    @Test
    void changingTheActiveListWhileTheDaemonRunsFailsWithEinvalAndSaysTheListIsNowEmpty() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--active-domains=0,1");
            h.op(1, "--start-daemon");
            OpcontrolResult r = record("04 changing --active-domains while the daemon runs",
                    h, 0, "--active-domains=0,1,4");
            assertFalse(r.ok());
            has(r, "XENOPROF_reset_active_list) = 0", "XENOPROF_set_active, 0) = -1 (EPERM", "State READY",
                    "fails with -22 (EINVAL, Invalid argument)", "a following --start succeeds with nobody profiled",
                    "the active domUs run opcontrol --shutdown, then domain 0 runs --shutdown and --start-daemon with the"
                            + " new lists");
            assertEquals(0, h.host.xenoprof().activeListSize(), "the driver's two resets emptied the list");
        }
    }

    @Test
    void changingThePassiveListWhileTheDaemonRunsLeavesNoPassiveDomain() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--passive-domains=2,3");
            OpcontrolResult r = record("05 changing --passive-domains while the daemon runs",
                    h, 0, "--passive-domains=2");
            assertFalse(r.ok());
            has(r, "XENOPROF_reset_passive_list) = 0",
                    "XENOPROF_set_passive, {domain_id 2, max_samples 2048}) = -1 (EPERM", "State READY",
                    "no domain is profiled passively now", "domain 0 runs --shutdown and --start-daemon --passive-domains",
                    "passive_domains fails with -22 (EINVAL");
            assertEquals(0, h.host.xenoprof().passiveList().length);
        }
    }

    @Test
    void aGuestTryingPrivilegedControlMakesNoHypercallAndIsToldWhatXenWouldAnswer() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--active-domains=0,1");
            h.op(1, "--start-daemon");
            OpcontrolResult start = record("06 a guest tries privileged control", h, 1, "--start");
            has(start, "domain 1 is not the primary: its driver makes no hypercall for --start",
                    "XENOPROF_start by domain 1 would return -1 (EPERM, Operation not permitted)", "State READY",
                    "domain 0 calls start (`opcontrol --start` in domain 0)");
            OpcontrolResult lists = record("06 a guest tries privileged control", h, 1, "--passive-domains=2");
            has(lists, "ignores passive_domains", "XENOPROF_set_passive by domain 1 would return -1 (EPERM",
                    "only the primary (domain 0) lists passive domains");
            assertEquals(0, h.host.xenoprof().passiveList().length);
        }
    }

    @Test
    void anActiveGuestShuttingDownWhileThePrimaryProfilesWarnsAndCanLeaveOnceThePrimaryStopped() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--active-domains=0,1");
            h.op(1, "--start-daemon");
            h.op(0, "--start");
            h.run(2_000);
            OpcontrolResult r = record("07 an active guest shuts down while dom0 profiles", h, 1, "--shutdown");
            assertFalse(r.ok());
            has(r, "XENOPROF_disable_virq) = -1 (EPERM, Operation not permitted)", "State PROFILING",
                    "WARNING: xenoprof_shutdown", "Xen keeps its pages shared and the domain ACTIVE",
                    "domain 0 runs opcontrol --stop, then domain 1 runs --shutdown again");
            OpcontrolResult again = record("07 an active guest shuts down while dom0 profiles", h, 1, "--start-daemon");
            assertFalse(again.ok());
            has(again, "XENOPROF_get_buffer, {max_samples 16}) = -16 (EBUSY, Device or resource busy)",
                    "Its pages are still shared with it", "then domain 1 runs --shutdown (the driver retries disable_virq)");
            record("07 an active guest shuts down while dom0 profiles", h, 0, "--stop");
            OpcontrolResult out = record("07 an active guest shuts down while dom0 profiles", h, 1, "--shutdown");
            assertTrue(out.ok(), out.output());
            has(out, "XENOPROF_disable_virq) = 0", "Domain 1 left the session; its pages are unshared");
        }
    }

    @Test
    void anHvmGuestStartingADaemonIsToldItHasNoXenoprofDriverAndHowDomain0ProfilesItPassively() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult r = record("08 an HVM guest runs --start-daemon", h, 3, "--start-daemon");
            assertFalse(r.ok());
            has(r, "Domain 3 (mail-hvm) is an HVM guest", "Xen would return 0 with no usable buffer address",
                    "-16 (EBUSY)", "domain 0 runs opcontrol --start-daemon --passive-domains=3");
            assertEquals(-1, h.host.xenoprof().primary(), "no hypercall was made");
        }
    }

    @Test
    void theSameDomainListedActiveAndPassiveIsWarnedThenItsGetBufferFailsWithEbusy() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult setup = record("09 the same domain as active and passive",
                    h, 0, "--start-daemon", "--active-domains=0,1,2", "--passive-domains=2");
            has(setup, "XENOPROF_set_passive, {domain_id 2, max_samples 2048}) = 0",
                    "domain 2 is in both the active and the passive list",
                    "domain 2's --start-daemon (get_buffer) will fail with -16 (EBUSY)");
            OpcontrolResult guest = record("09 the same domain as active and passive", h, 2, "--start-daemon");
            assertFalse(guest.ok());
            has(guest, "XENOPROF_get_buffer, {max_samples 16}) = -16 (EBUSY", "State READY",
                    "still shared with domain 0 by an earlier set_passive", "Domain 2 is in the passive list of domain 0",
                    "Domain 0 runs --shutdown, then --start-daemon with domain 2 in only one of");
            h.op(1, "--start-daemon");
            OpcontrolResult start = record("09 the same domain as active and passive", h, 0, "--start");
            assertFalse(start.ok());
            has(start, "XENOPROF_start) = -1 (EPERM", "domain 2 (db-pv): also in the passive list");
        }
    }

    @Test
    void anHvmGuestListedAsActiveIsWarnedAndTheStartNamesItAsImpossible() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult setup = record("10 an HVM guest listed as active",
                    h, 0, "--start-daemon", "--active-domains=0,3");
            has(setup, "XENOPROF_set_active, 3) = 0", "domain 3 (mail-hvm) is an HVM guest: it cannot be active on x86",
                    "--passive-domains=3");
            OpcontrolResult start = record("10 an HVM guest listed as active", h, 0, "--start");
            assertFalse(start.ok());
            has(start, "XENOPROF_start) = -1 (EPERM", "State READY",
                    "domain 3 (mail-hvm): an HVM guest, which can never call enable_virq: domain 0 runs --shutdown and"
                            + " --start-daemon with it in --passive-domains instead");
        }
    }

    @Test
    void aPassiveDomainThatDoesNotExistFailsTheWriteWithEinvalAndNamesTheDomains() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult r = record("11 a passive domain that does not exist",
                    h, 0, "--start-daemon", "--passive-domains=2,9");
            assertFalse(r.ok());
            has(r, "XENOPROF_set_passive, {domain_id 9, max_samples 2048}) = -22 (EINVAL, Invalid argument)",
                    "State INITIALIZED", "no domain 9 exists", "[0 (Domain-0), 1 (web-pv), 2 (db-pv), 3 (mail-hvm), 4"
                            + " (batch-pv)]: domain 0 lists only existing domains in --passive-domains",
                    "passive_domains fails with -22 (EINVAL");
            assertEquals(0, h.host.xenoprof().passiveList().length, "Xen's list is empty again");
        }
    }

    @Test
    void thePrimaryListingItselfAsPassiveIsRefusedWithTheReason() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult r = record("12 the primary lists itself as passive",
                    h, 0, "--start-daemon", "--passive-domains=0");
            assertFalse(r.ok());
            has(r, "XENOPROF_set_passive, {domain_id 0, max_samples 2048}) = 0", "domain 0 is the primary itself",
                    "its get_buffer would fail with -16 (EBUSY)", "Domain 0 writes --passive-domains again without 0",
                    "passive_domains fails with -22 (EINVAL");
            OpcontrolResult retry = record("12 the primary lists itself as passive",
                    h, 0, "--start-daemon", "--passive-domains=2");
            assertTrue(retry.ok(), retry.output());
        }
    }

    @Test
    void aPassiveImageThatIsNotTheDomainsKernelIsRefusedBeforeAnyWrite() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult r = record("13 --passive-images names a process, not the kernel",
                    h, 0, "--start-daemon", "--passive-domains=2", "--passive-images=mysqld");
            assertFalse(r.ok());
            has(r, "'mysqld' is a user image of domain 2, not its kernel",
                    "domain 2's kernel is vmlinux-syms-2.6.18-53.el5xen");
            assertEquals(0, h.host.xenoprof().passiveList().length);
        }
    }

    @Test
    void thePrimaryShuttingDownBeforeTheGuestsEndsTheSessionAndSaysWhichDaemonsStillRun() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--active-domains=0,1");
            h.op(1, "--start-daemon");
            h.op(0, "--start");
            h.run(1_000);
            h.op(0, "--stop");
            OpcontrolResult r = record("14 dom0 --shutdown before the domUs", h, 0, "--shutdown");
            assertTrue(r.ok(), r.output());
            has(r, "XENOPROF_release_counters) = 0", "the daemons of domains [1] still run; shut them down first next"
                    + " time (domUs before dom0)");
        }
    }

    @Test
    void opcontrolInADestroyedOrPausedDomainIsRefusedWithWhatToDo() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon", "--active-domains=0,1,4");
            h.op(1, "--start-daemon");
            h.op(4, "--start-daemon");
            h.host.destroyDomain(4);
            OpcontrolResult gone = record("15 opcontrol in a destroyed domain", h, 4, "--shutdown");
            assertFalse(gone.ok());
            has(gone, "Domain 4 (batch-pv) was destroyed: nothing runs in it any more",
                    "domain 0 (the primary) ends it as usual");
            h.host.pauseDomain(1);
            OpcontrolResult paused = record("16 opcontrol in a paused domain", h, 1, "--stop");
            assertFalse(paused.ok());
            has(paused, "Domain 1 (web-pv) is paused (xl pause)", "Unpause it first (xl unpause 1), then run opcontrol"
                    + " --stop as domain 1");
            h.host.unpauseDomain(1);
        }
    }

    @Test
    void aSecondStartDaemonWhileRunningSaysTheListsOnlyChangeWithANewDaemon() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            h.op(0, "--start-daemon");
            OpcontrolResult r = record("17 dom0 --start-daemon again while its daemon runs",
                    h, 0, "--start-daemon", "--active-domains=0,1");
            assertFalse(r.ok());
            has(r, "already running (state READY)", "run opcontrol --shutdown as domain 0 first (after the other"
                    + " domains' --shutdown)");
        }
    }

    @Test
    void holdingADaemonThatIsNotRunningSaysToStartItFirst() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            OpcontrolResult r = record("18 --hold without a running daemon", h, 1, "--hold");
            assertFalse(r.ok());
            has(r, "is not running, so --hold has nothing to act on. Run opcontrol --start-daemon as domain 1 first");
        }
    }
}
