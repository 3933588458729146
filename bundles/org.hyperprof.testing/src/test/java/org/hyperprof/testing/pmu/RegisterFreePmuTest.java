package org.hyperprof.testing.pmu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.junit.jupiter.api.Test;

/** A PMU with nothing in it: the driver steps do nothing, nothing overflows, no register exists. */
class RegisterFreePmuTest {

    @Test
    void theDriverStepsDoNothingAndNothingEverOverflows() {
        RegisterFreePmu pmu = new RegisterFreePmu(3, null);
        pmu.reserve();
        pmu.setup(new CounterConfig[0]);
        pmu.start();
        pmu.advance(1_000_000, PmuFixtures.rates(Signal.CYCLES, 1000), 0);
        assertEquals(0, pmu.checkCounters(counter -> {
            throw new AssertionError("counter " + counter + " overflowed");
        }));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(PmuFixtures.onePerCycle(), 3));
        assertFalse(pmu.interruptPending());
        pmu.stop();
        pmu.release();
        assertEquals(3, pmu.cpu());
        assertEquals(0, pmu.counterRegisters().length);
        assertEquals(0, pmu.controlRegisters().length);
    }

    @Test
    void aRegisterAccessFailsNamingTheCpuAndTheRegister() {
        RegisterFreePmu pmu = new RegisterFreePmu(1, null);
        assertEquals("the PMU of CPU 1 has no registers (read 0xc1)",
                assertThrows(IllegalArgumentException.class, () -> pmu.read(0xc1)).getMessage());
        assertEquals("the PMU of CPU 1 has no registers (wrote 0x186)",
                assertThrows(IllegalArgumentException.class, () -> pmu.write(0x186, 0)).getMessage());
    }
}
