package org.hyperprof.study;

import static org.hyperprof.study.Synthetic.cycles;
import static org.hyperprof.study.Synthetic.shares;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.GroundTruth;
import org.junit.jupiter.api.Test;

/** Which samples make a guest's profile, and how a run's figures are put together. */
class MeasureTest {
    private static final double EPS = 1e-9;
    private static final Variant VARIANT = Variant.standard("systemwide");

    private static final GroundTruth TRUTH = new GroundTruth(List.of(
            cycles(1, CpuMode.KERNEL, "vmlinux", "schedule", 500),
            cycles(1, CpuMode.KERNEL, "vmlinux", "tcp_v4_rcv", 500),
            cycles(1, CpuMode.HYPERVISOR, "xen-syms", "do_mmu_update", 1000),
            cycles(0, CpuMode.KERNEL, "vmlinux", "schedule", 1000)),
            List.of(cycles(1, CpuMode.KERNEL, "vmlinux", "tcp_v4_rcv", 1000)));

    @Test
    void theTallyCountsPerSymbolAndLeavesHypervisorSamplesOutOfTheProfile() throws Exception {
        SessionTally tally = new SessionTally();
        tally.sessionStarted(Sessions.session(1, StudyKeys.SOURCE_XENOPROF));
        // domU: schedule, tcp_v4_rcv twice, and one sample in Xen (mode 2); dom0: one sample.
        tally.samples(Sessions.batch(1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 2, 1, 2, 0, 1, 0, 0));
        tally.sessionEnded(Sessions.ended(1, 0, TRUTH, Map.of()));
        SessionTally.Seen seen = tally.awaitEnded(1, Duration.ofSeconds(1)).get(0);
        assertEquals(shares("vmlinux:schedule", 1, "vmlinux:tcp_v4_rcv", 2), seen.profile(1, 0));
        assertEquals(3, seen.guestModeSamples(1));
        assertEquals(Map.of(), seen.profile(1, 1), "another counter's samples are not this counter's profile");
    }

    @Test
    void aSampleWithoutSymbolIsProfiledAsNoSymbols() throws Exception {
        SessionTally tally = new SessionTally();
        tally.sessionStarted(Sessions.session(1, StudyKeys.SOURCE_XENOPROF));
        tally.samples(Sessions.batch(1, 1, 1, 0, -1));
        assertEquals(shares("vmlinux:(no symbols)", 1), tally.awaitEnded(1, Duration.ZERO).get(0).profile(1, 0));
    }

    @Test
    void waitingForTheEndGivesUpAfterTheTimeoutAndSaysTheSessionIsPartial() throws Exception {
        SessionTally tally = new SessionTally();
        tally.sessionStarted(Sessions.session(1, StudyKeys.SOURCE_XENOPROF));
        List<SessionTally.Seen> seen = tally.awaitEnded(1, Duration.ofMillis(20));
        Results.Run run = StudyRunner.measure(Sessions.host(TRUTH), VARIANT,
                Sessions.ended(1, 0, TRUTH, Map.of()), seen);
        assertTrue(run.notes().stream().anyMatch(n -> n.contains("had not ended")), run.notes().toString());
    }

    @Test
    void aGuestsOwnProfilerWinsOverXenoprofAndLostSamplesAddUp() throws Exception {
        SessionTally tally = new SessionTally();
        tally.sessionStarted(Sessions.session(1, StudyKeys.SOURCE_XENOPROF));
        tally.sessionStarted(Sessions.session(2, StudyKeys.SOURCE_GUEST_PROFILER));
        // Xenoprof saw domU only in schedule; its own profiler saw tcp_v4_rcv once, schedule once.
        tally.samples(Sessions.batch(1, 1, 1, 0, 0, 0, 1, 0, 0));
        tally.samples(Sessions.batch(2, 1, 1, 0, 1, 1, 0, 0, 0));
        tally.sessionEnded(Sessions.ended(1, 3, TRUTH, Map.of()));
        tally.sessionEnded(Sessions.ended(2, 4, TRUTH, Map.of()));
        Results.Run run = StudyRunner.measure(Sessions.host(TRUTH), VARIANT, Sessions.ended(1, 3, TRUTH, Map.of()),
                tally.awaitEnded(1, Duration.ofSeconds(1)));
        assertEquals(7, run.lost(), "lost samples of both sessions, guest rings included");
        Results.Guest dom0 = run.guests().get(0);
        Results.Guest domU = run.guests().get(1);
        assertEquals("xenoprof", dom0.source(), "dom0 has no samples of its own: Xenoprof's are its profile");
        assertEquals(0.0, dom0.guestOnly().totalPoints(), EPS);
        assertEquals("own", domU.source());
        assertEquals(2, domU.samples());
        // Own profile 50/50; truth A 50/50 -> 0; truth B schedule 500, tcp 1500 -> 25/75 -> 25 points.
        assertEquals(0.0, domU.guestOnly().totalPoints(), EPS);
        assertEquals(25.0, domU.withHypervisor().totalPoints(), EPS);
    }

    @Test
    void aGuestWithoutSamplesHasNoProfileAndNoError() throws Exception {
        SessionTally tally = new SessionTally();
        tally.sessionStarted(Sessions.session(1, StudyKeys.SOURCE_XENOPROF));
        tally.samples(Sessions.batch(1, 0, 1, 0, 0, 1, 2, 1, 2));
        tally.sessionEnded(Sessions.ended(1, 0, TRUTH, Map.of()));
        Results.Run run = StudyRunner.measure(Sessions.host(TRUTH), VARIANT, Sessions.ended(1, 0, TRUTH, Map.of()),
                tally.awaitEnded(1, Duration.ofSeconds(1)));
        Results.Guest domU = run.guests().get(1);
        assertEquals("none", domU.source(), "only a hypervisor sample: nothing of the guest's own code");
        assertNull(domU.guestOnly());
        assertNull(domU.withHypervisor());
    }
}
