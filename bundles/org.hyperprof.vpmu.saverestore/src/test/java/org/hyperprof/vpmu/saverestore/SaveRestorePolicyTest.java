package org.hyperprof.vpmu.saverestore;

import static org.hyperprof.testing.vpmu.TestedModel.EN;
import static org.hyperprof.testing.vpmu.TestedModel.USR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.testing.vpmu.FakeHost;
import org.hyperprof.testing.vpmu.Rig;
import org.hyperprof.testing.vpmu.TestedModel;
import org.hyperprof.testing.vpmu.VirtualPmuPolicyContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Save/restore keeps the contract of every virtual-PMU policy, and saves and restores at every vCPU switch. */
class SaveRestorePolicyTest extends VirtualPmuPolicyContract {

    SaveRestorePolicyTest() {
        super(new SaveRestorePolicy(), new TestedModel("P6", new P6PmuModel(), 0xC0, 0x79, "INST_RETIRED"),
                new TestedModel("AMD hammer", new HammerPmuModel(), 0xC0, 0x76, "RETIRED_INSTRUCTIONS"), true);
    }

    // ------------------------------------------------------------------------------ identity

    @Test
    void isRegisteredAsSaverestoreWithAOneLineDescription() {
        assertRegisteredAs("saverestore", policy);
        assertTrue(policy.description().contains("every vCPU switch"), policy.description());
    }

    // ------------------------------------------------------------------------------ accesses per switch

    /**
     * Xen's vPMU at switch-out reads the counter registers only (controls and LVTPC are what the
     * guest wrote, recorded at each intercepted write); switch-in writes the whole context, counters
     * first, controls last.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void everySwitchReadsTheCountersOnlyAndWritesEveryRegisterCountersFirstControlsLast(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = guestACounting(h, s, m);
        rig.enter(0);
        int size = m.contextSize();
        int n = m.model().counterCount();
        long save0 = h.charged(0, FakeHost.SAVE);
        long load0 = h.charged(0, FakeHost.LOAD);
        h.pmus[0].clearLog();
        long guestToGuest = switchAccesses(s, () -> rig.switchTo(0, 2, 0));
        assertEquals(concat(counters(m, "r"), all(m, "w")), h.pmus[0].accesses(),
                "save the counters, then restore counters, controls, LVTPC");
        assertEquals(n * 40, h.charged(0, FakeHost.SAVE) - save0, "counter reads charged as vpmu_save");
        assertEquals(size * 100, h.charged(0, FakeHost.LOAD) - load0, "writes charged as vpmu_load");

        long guestToIdle = switchAccesses(s, () -> rig.switchTo(0, IDLE, 0));
        long idleToGuest = switchAccesses(s, () -> rig.switchTo(0, 1, 0));
        System.out.printf("saverestore %s accesses per switch: guest->guest %d, guest->idle %d, idle->guest %d%n",
                m, guestToGuest, guestToIdle, idleToGuest);
        assertEquals(n + size, guestToGuest);
        assertEquals(2L * n, guestToIdle, "save the counters, then power-on controls");
        assertEquals(size, idleToGuest);
        assertEquals(m == p6 ? 7 : 13, guestToGuest, "P6: 2 reads, 5 writes; hammer: 4 reads, 9 writes");
        assertEquals(m == p6 ? 4 : 8, guestToIdle, "P6: 2 reads, 2 writes; hammer: 4 reads, 4 writes");
    }

    /**
     * Every save, wherever it happens (switch-out to a guest, to idle, and the remote save of a vCPU
     * another CPU takes while its context is still loaded here), reads counter registers only.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void noSaveEverReadsAControlOrInterruptRegister(TestedModel m) {
        FakeHost h = host(m, 2);
        PolicySession s = policy.open(h);
        Rig rig = guestACounting(h, s, m);
        rig.runGuest(1, 2, 0);
        programCounting(rig, 1, m, USR);
        rig.guest(0, 1_000, A_RATES, 3);
        rig.guest(1, 1_000, B_RATES, 3);
        h.pmus[0].clearLog();
        h.pmus[1].clearLog();
        h.pmus[0].reads = 0;
        h.pmus[1].reads = 0;
        rig.enter(0);
        rig.switchTo(0, 2, 0); // A saved on CPU 0; B, still loaded on CPU 1, saved there remotely
        rig.enter(1);
        rig.switchTo(1, 1, 0);
        rig.switchTo(1, IDLE, 0); // A saved on CPU 1
        int n = m.model().counterCount();
        assertOnlyCountersWereRead(h, m);
        assertEquals(n, h.pmus[0].reads, "CPU 0: A's counters");
        assertEquals(2L * n, h.pmus[1].reads, "CPU 1: B's counters (remote save), then A's (to idle)");
        assertEquals(1, stat(s, PolicySession.STAT_IPIS));
    }

    /** Under vpmu.freeze=exit, a control written while frozen is the guest's even if a switch comes before the exit. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aControlWrittenWhileFrozenSurvivesASwitchBeforeTheExit(TestedModel m) {
        FakeHost h = host(m, 1);
        h.options.put("freeze", "exit");
        PolicySession s = policy.open(h);
        Rig rig = guestACounting(h, s, m);
        rig.enter(0);
        assertTrue(s.guestWrite(0, 1, 0, m.control(1), m.instCode() | USR | EN));
        rig.runGuest(0, 2, 0); // the hardware holds power-on controls: a save must not take them for A's
        rig.reschedule(0, 1, 0);
        assertEquals(m.instCode() | USR | EN, h.pmus[0].real.read(m.control(1)), "the write made while frozen");
        assertEquals(m.instCode() | USR | EN, h.pmus[0].real.read(m.control(0)));
        rig.guest(0, 1_000, B_RATES, 3); // 3 instructions per cycle
        assertEquals(3_000, rig.read(0, m.counter(1)), "counter 1 counts instructions since the write, not cycles");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aGuestThatNeverUsesItsPmuStillCostsACounterSaveAndAWholeRestore(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.switchTo(0, 2, 0);
        assertEquals(m.contextSize() + m.model().counterCount() + m.contextSize(),
                stat(s, PolicySession.STAT_SWITCH_ACCESSES), "restore; then save the counters and restore");
    }
}
