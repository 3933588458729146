package org.hyperprof.study;

import static org.hyperprof.study.Synthetic.cycles;
import static org.hyperprof.study.Synthetic.shares;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.junit.jupiter.api.Test;

/** The study's rules for error, truth and overhead, each pinned on figures worked out by hand. */
class MetricsTest {
    private static final double EPS = 1e-9;

    // ------------------------------------------------------------ total-variation distance

    @Test
    void theErrorIsHalfTheSumOfShareDifferencesInPoints() {
        // sampled 75/25, true 50/50: |.25| + |.25| = .5, half of it = 25 points.
        ProfileError e = ProfileError.of(shares("k:a", 3, "k:b", 1), shares("k:a", 500, "k:b", 500));
        assertEquals(25.0, e.totalPoints(), EPS);
        assertEquals(25.0, e.maxSymbolPoints(), EPS);
        assertEquals("k:a", e.maxSymbol(), "on a tie the first symbol in name order");
    }

    @Test
    void sharesNotCountsAreCompared() {
        ProfileError e = ProfileError.of(shares("k:a", 2, "k:b", 2), shares("k:a", 7000, "k:b", 7000));
        assertEquals(0.0, e.totalPoints(), EPS);
    }

    @Test
    void aSymbolMissingOnOneSideCountsWithItsWholeShare() {
        // sampled a=100%; true a=60%, c=40%: |.4| + |.4| = .8 -> 40 points; worst single symbol 40.
        ProfileError e = ProfileError.of(shares("k:a", 10), shares("k:a", 60, "k:c", 40));
        assertEquals(40.0, e.totalPoints(), EPS);
        assertEquals(40.0, e.maxSymbolPoints(), EPS);
    }

    @Test
    void disjointProfilesAreOneHundredPointsOff() {
        ProfileError e = ProfileError.of(shares("domain3-kernel:(no symbols)", 5), shares("vmlinux:schedule", 9));
        assertEquals(100.0, e.totalPoints(), EPS);
    }

    @Test
    void theLargestSingleSymbolErrorIsNamed() {
        // sampled a .5 b .3 c .2; true a .4 b .3 c .1 d .2 -> diffs .1 0 .1 .2 -> total 20, max d 20.
        ProfileError e = ProfileError.of(shares("k:a", 5, "k:b", 3, "k:c", 2),
                shares("k:a", 4, "k:b", 3, "k:c", 1, "k:d", 2));
        assertEquals(20.0, e.totalPoints(), EPS);
        assertEquals(20.0, e.maxSymbolPoints(), EPS);
        assertEquals("k:d", e.maxSymbol());
    }

    @Test
    void anEmptyProfileOrAnEmptyTruthHasNoError() {
        assertNull(ProfileError.of(Map.of(), shares("k:a", 1)));
        assertNull(ProfileError.of(shares("k:a", 1), Map.of()));
    }

    // ------------------------------------------------------------ truth A and B

    private static final int GUEST = 1;

    private static GroundTruth truth() {
        return new GroundTruth(List.of(
                cycles(GUEST, CpuMode.KERNEL, "vmlinux", "tcp_v4_rcv", 1000),
                cycles(GUEST, CpuMode.USER, "httpd", "main", 1000),
                cycles(GUEST, CpuMode.HYPERVISOR, "xen-syms", "do_mmu_update", 5000),
                cycles(2, CpuMode.KERNEL, "vmlinux", "tcp_v4_rcv", 7000),
                cycles(GroundTruth.IDLE_DOMAIN, CpuMode.HYPERVISOR, "xen-syms", "idle_loop", 9000),
                cycles(GroundTruth.IDLE_DOMAIN, CpuMode.KERNEL, "vmlinux", "tcp_v4_rcv", 3000)),
                List.of(cycles(GUEST, CpuMode.KERNEL, "vmlinux", "tcp_v4_rcv", 2000),
                        cycles(2, CpuMode.USER, "httpd", "main", 4000)));
    }

    @Test
    void truthAIsTheGuestsOwnRowsWithoutHypervisorOtherDomainsOrIdle() {
        assertEquals(shares("httpd:main", 1_000_000, "vmlinux:tcp_v4_rcv", 1_000_000),
                Truth.guestOnly(truth(), GUEST, Signal.CYCLES));
    }

    @Test
    void truthBAddsTheHypervisorWorkDoneOnTheGuestsBehalf() {
        assertEquals(shares("httpd:main", 1_000_000, "vmlinux:tcp_v4_rcv", 3_000_000),
                Truth.withHypervisorOnBehalf(truth(), GUEST, Signal.CYCLES));
    }

    @Test
    void theSameProfileIsRightUnderOneTruthAndWrongUnderTheOther() {
        Map<SymbolKey, Long> profile = shares("vmlinux:tcp_v4_rcv", 3, "httpd:main", 1);
        assertEquals(25.0, ProfileError.of(profile, Truth.guestOnly(truth(), GUEST, Signal.CYCLES)).totalPoints(), EPS);
        assertEquals(0.0, ProfileError.of(profile, Truth.withHypervisorOnBehalf(truth(), GUEST, Signal.CYCLES))
                .totalPoints(), EPS);
    }

    @Test
    void theTruthIsTakenInTheSignalOfTheProfilesCounter() {
        GroundTruth t = new GroundTruth(List.of(
                Synthetic.row(GUEST, CpuMode.KERNEL, "vmlinux", "a", Signal.CYCLES, 100),
                Synthetic.row(GUEST, CpuMode.KERNEL, "vmlinux", "b", Signal.INSTRUCTIONS, 100)));
        assertEquals(shares("vmlinux:b", 100_000), Truth.guestOnly(t, GUEST, Signal.INSTRUCTIONS));
        assertEquals(shares("vmlinux:a", 100_000), Truth.guestOnly(t, GUEST, Signal.CYCLES));
    }

    @Test
    void aTruthRowWithoutSymbolIsComparedAsNoSymbols() {
        GroundTruth t = new GroundTruth(List.of(cycles(GUEST, CpuMode.KERNEL, "e1000", null, 10)));
        assertEquals(shares("e1000:(no symbols)", 10_000), Truth.guestOnly(t, GUEST, Signal.CYCLES));
    }

    // ------------------------------------------------------------ overhead

    @Test
    void hypervisorShareIsHypervisorCyclesOfEveryDomainOverAllUnhaltedCycles() {
        // all = 1000+1000+5000+7000+9000+3000 = 26000; hypervisor = 5000 + 9000 (idle's) = 14000.
        Overhead o = Overhead.of(truth(), Map.of(StudyKeys.HALTED_CYCLES, 1_000_000L));
        assertEquals(26_000, o.allCycles());
        assertEquals(14_000, o.hypervisorCycles());
        assertEquals(100.0 * 14_000 / 26_000, o.hypervisorPercent(), EPS);
        assertEquals(1_000_000L, o.haltedCycles(), "reported beside the figures");
    }

    @Test
    void haltedCyclesAreNotPartOfAllCycles() {
        Overhead few = Overhead.of(truth(), Map.of(StudyKeys.HALTED_CYCLES, 0L));
        Overhead many = Overhead.of(truth(), Map.of(StudyKeys.HALTED_CYCLES, 1_000_000_000L));
        assertEquals(few.hypervisorPercent(), many.hypervisorPercent());
    }

    @Test
    void thePolicysShareAndAccessesPerSwitchComeFromTheHostCounters() {
        Overhead o = Overhead.of(truth(), Map.of(StudyKeys.POLICY_CYCLES, 2600L, StudyKeys.POLICY_SWITCHES, 10L,
                StudyKeys.POLICY_SWITCH_ACCESSES, 45L));
        assertEquals(10.0, o.policyPercent(), EPS);
        assertEquals(4.5, o.accessesPerSwitch(), EPS);
    }

    @Test
    void withoutTheTotalThePolicysCyclesAreTheSumOfTheReportedParts() {
        assertEquals(30L, Overhead.policyCycles(Map.of(StudyKeys.POLICY_CHARGED_CYCLES, 10L,
                StudyKeys.GUEST_TRAP_CYCLES, 20L)));
        assertEquals(10L, Overhead.policyCycles(Map.of(StudyKeys.POLICY_CHARGED_CYCLES, 10L)));
        assertEquals(7L, Overhead.policyCycles(Map.of(StudyKeys.POLICY_CYCLES, 7L,
                StudyKeys.POLICY_CHARGED_CYCLES, 10L)), "the total wins over its parts");
    }

    @Test
    void missingCountersAreUnknownNotZero() {
        Overhead o = Overhead.of(truth(), Map.of());
        assertNull(o.haltedCycles());
        assertNull(o.policyCycles());
        assertNull(o.policyPercent());
        assertNull(o.accessesPerSwitch());
        assertEquals("n/a", Numbers.fixed(o.policyPercent(), 2));
        assertEquals("n/a", Numbers.integer(o.haltedCycles()));
    }

    @Test
    void accessesPerSwitchWithoutSwitchesIsUnknown() {
        Overhead o = Overhead.of(truth(), Map.of(StudyKeys.POLICY_SWITCHES, 0L, StudyKeys.POLICY_SWITCH_ACCESSES, 0L));
        assertNull(o.accessesPerSwitch());
    }

    @Test
    void anEmptyTruthHasNoShares() {
        Overhead o = Overhead.of(new GroundTruth(List.of()), Map.of());
        assertNull(o.hypervisorPercent());
    }
}
