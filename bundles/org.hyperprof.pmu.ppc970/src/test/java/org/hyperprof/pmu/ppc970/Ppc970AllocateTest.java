package org.hyperprof.pmu.ppc970;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;

/** OProfile's 970 rules for a session's events: one group, each event on its own counter. */
class Ppc970AllocateTest {
    private final Ppc970Fixture fixture = Ppc970Fixture.create();

    private String rejection(String... specs) {
        return PmuFixtures.rejection(fixture.model, specs);
    }

    @Test
    void theDefaultEventGoesToCounter1() throws EventSpecException {
        CounterConfig c = fixture.configs("CYCLES:100000")[0];
        assertEquals(1, c.counter(), "CYCLES is event 0x001: default group, PMC2");
        assertEquals(100_000, c.count());
        assertEquals(0, c.unitMask());
        assertTrue(c.kernel() && c.user());
    }

    @Test
    void eachEventGoesToTheCounterItsNumberNames() throws EventSpecException {
        CounterConfig[] c = fixture.configs("PM_LD_REF_L1_GRP3:5000", "PM_INST_CMPL_GRP3:10000",
                "PM_LD_MISS_L1_GRP3:1000", "PM_INST_DISP_GRP3:1000");
        assertEquals(7, c[0].counter(), "0x037: PMC8");
        assertEquals(0, c[1].counter(), "0x030: PMC1");
        assertEquals(2, c[2].counter(), "0x032: PMC3");
        assertEquals(4, c[3].counter(), "0x034: PMC5");
    }

    @Test
    void aWholeGroupFitsAtOnce() throws EventSpecException {
        CounterConfig[] c = fixture.configs("PM_INST_CMPL_GRP3:10000", "PM_CYC_GRP3:10000", "PM_LD_MISS_L1_GRP3:1000",
                "PM_INST_DISP_GRP3:1000", "PM_ST_REF_L1_GRP3:1000", "PM_LD_REF_L1_GRP3:1000");
        assertEquals(6, c.length);
    }

    @Test
    void eventsFromTwoGroupsAreRejectedWithTheGroupsListed() {
        String m = rejection("PM_INST_CMPL_GRP3:10000", "PM_BR_ISSUED_GRP25:1000");
        assertTrue(m.contains("PM_BR_ISSUED_GRP25 is in group 25 but PM_INST_CMPL_GRP3 is in group 3"), m);
        assertTrue(m.contains("all events of a session must come from one group"), m);
        assertTrue(m.contains("group 25: PM_BR_ISSUED_GRP25 on counter 3 (PMC4), PM_BR_MPRED_CR_GRP25 on counter 6"
                + " (PMC7), PM_BR_MPRED_TA_GRP25 on counter 7 (PMC8)"), m);
        assertTrue(m.contains("group 0 (default): CYCLES on counter 1 (PMC2)"), m);
    }

    @Test
    void theDefaultGroupIsAGroupOfItsOwn() {
        String m = rejection("CYCLES:100000", "PM_INST_CMPL_GRP1:10000");
        assertTrue(m.contains("PM_INST_CMPL_GRP1 is in group 1 but CYCLES is in the default group (group 0)"), m);
    }

    @Test
    void theSameEventTwiceIsRejectedBecauseItsCounterIsTaken() {
        String m = rejection("PM_CYC_GRP1:10000", "PM_CYC_GRP1:20000");
        assertTrue(m.contains("PM_CYC_GRP1 needs counter 1 (PMC2), which PM_CYC_GRP1 already uses"), m);
        assertTrue(m.contains("group 1 has PM_RUN_CYC_GRP1 on counter 0 (PMC1)"), m);
    }

    @Test
    void differentKernelOrUserFlagsAreRejected() {
        String m = rejection("PM_INST_CMPL_GRP3:10000:0:1:1", "PM_CYC_GRP3:10000:0:0:1");
        assertTrue(m.contains("MMCR0 FCS and FCP"), m);
        assertTrue(m.contains("give every event the same kernel and user flags"), m);
    }

    @Test
    void anUnknownEventListsTheModelsEvents() {
        String m = rejection("CPU_CLK_UNHALTED:100000");
        assertTrue(m.contains("unknown event 'CPU_CLK_UNHALTED' for CPU type ppc64/970 (ppc64 970)"), m);
        assertTrue(m.contains("allowed events: CYCLES, PM_RUN_CYC_GRP1"), m);
        assertTrue(rejection("cycles:100000").contains("did you mean CYCLES?"));
    }

    @Test
    void aCountBelowTheMinimumIsRejected() {
        assertTrue(rejection("CYCLES:9999").contains("below its minimum of 10000"));
        assertTrue(rejection("PM_DTLB_MISS_GRP23:999").contains("below its minimum of 1000"));
    }

    @Test
    void aCountAbove2To31IsRejectedAnd2To31Accepted() throws EventSpecException {
        String m = rejection("CYCLES:2147483649");
        assertTrue(m.contains("at most 2147483648"), m);
        assertEquals(0x8000_0000L, fixture.configs("CYCLES:2147483648")[0].count());
    }

    @Test
    void onlyTheZeroUnitMaskIsAllowed() throws EventSpecException {
        String m = rejection("CYCLES:100000:0x01");
        assertTrue(m.contains("unit mask 0x1 is not valid for CYCLES (unit mask 'zero'); allowed: only 0x00 No unit mask"),
                m);
        assertEquals(0, fixture.configs("CYCLES:100000:0")[0].unitMask());
    }

    @Test
    void moreThanEightEventsAreRejected() {
        List<EventSpec> nine = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            nine.add(new EventSpec("CYCLES", 100000, -1, true, true));
        }
        EventSpecException e = assertThrows(EventSpecException.class, () -> fixture.model.allocate(nine));
        assertTrue(e.getMessage().contains("only 8 counters (PMC1-PMC8)"), e.getMessage());
    }

    @Test
    void noEventsOrAMissingEventAreRejected() {
        assertThrows(EventSpecException.class, () -> fixture.model.allocate(List.of()));
        assertThrows(EventSpecException.class, () -> fixture.model.allocate(null));
        List<EventSpec> withNull = new ArrayList<>();
        withNull.add(null);
        assertThrows(EventSpecException.class, () -> fixture.model.allocate(withNull));
    }

    @Test
    void neitherKernelNorUserIsRejected() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> fixture.model.allocate(List.of(new EventSpec("CYCLES", 100000, -1, false, false))));
        assertTrue(e.getMessage().contains("neither kernel nor user"), e.getMessage());
    }

    @Test
    void kernelOnlyAndUserOnlySessionsAreAllowed() throws EventSpecException {
        CounterConfig[] c = fixture.configs("PM_INST_CMPL_GRP3:10000:0:0:1", "PM_CYC_GRP3:10000:0:0:1");
        assertFalse(c[0].kernel() || c[1].kernel());
    }
}
