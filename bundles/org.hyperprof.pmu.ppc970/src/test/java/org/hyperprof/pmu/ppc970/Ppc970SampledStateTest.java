package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Fixture.HV;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.PR;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.SUP;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.pmc;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FC;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA_BIT35;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA_BIT36;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMCJCE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMXE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.SIAR;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SIAR and MMCRA's sampled HV/PR bits, latched at the alert, under both bit assignments. */
class Ppc970SampledStateTest {
    private final Ppc970Fixture fixture = Ppc970Fixture.create();

    /** Raises one alert from PMC2 while code at {@code cpl} runs, on a PMU with {@code options}. */
    private Ppc970Pmu alertAt(Map<String, String> options, int cpl) {
        Ppc970Pmu pmu = fixture.allCounting(options, PMXE | PMCJCE);
        pmu.write(MMCRA, 0x2001);
        pmu.write(pmc(1), 0x7FFF_FFFFL);
        pmu.advance(1, onePerCycle(), cpl);
        return pmu;
    }

    @ParameterizedTest(name = "CPL {0}: MMCRA bits 0x{1}, read back as CPL {2}")
    @CsvSource({"0, 10000000, 0", "1, 0, 1", "2, 0, 1", "3, 08000000, 3"})
    void byDefaultTheHardwareSetsBit35ForHvAndBit36ForPrAndSoftwareReadsThemSo(int cpl, String bits, int read) {
        Ppc970Pmu pmu = alertAt(Map.of(), cpl);
        assertEquals(Long.parseLong(bits, 16), pmu.read(MMCRA) & (MMCRA_BIT35 | MMCRA_BIT36));
        assertEquals(0x2001, pmu.read(MMCRA) & ~(MMCRA_BIT35 | MMCRA_BIT36), "the other MMCRA bits are kept");
        assertEquals(read, pmu.sampledCpl());
    }

    @ParameterizedTest(name = "CPL {0}: MMCRA bits 0x{1}")
    @CsvSource({"0, 08000000", "1, 0", "3, 10000000"})
    void anXnuPartSetsBit36ForHvAndBit35ForPr(int cpl, String bits) {
        Ppc970Pmu pmu = alertAt(Map.of("mmcra.hvpr.hardware", "xnu", "mmcra.hvpr", "xnu"), cpl);
        assertEquals(Long.parseLong(bits, 16), pmu.read(MMCRA) & (MMCRA_BIT35 | MMCRA_BIT36));
        assertEquals(cpl, pmu.sampledCpl(), "read with the matching assignment: attributed right");
    }

    @ParameterizedTest(name = "sample at CPL {0} is read as CPL {1}")
    @CsvSource({"0, 3", "1, 1", "2, 1", "3, 0"})
    void readingLinuxBitsWithTheXnuAssignmentSwapsHypervisorAndProblemState(int cpl, int read) {
        Ppc970Pmu pmu = alertAt(Map.of("mmcra.hvpr", "xnu"), cpl);
        assertEquals(read, pmu.sampledCpl());
    }

    @ParameterizedTest(name = "sample at CPL {0} is read as CPL {1}")
    @CsvSource({"0, 3", "1, 1", "3, 0"})
    void readingXnuBitsWithTheLinuxAssignmentSwapsThemToo(int cpl, int read) {
        Ppc970Pmu pmu = alertAt(Map.of("mmcra.hvpr.hardware", "xnu"), cpl);
        assertEquals(read, pmu.sampledCpl());
    }

    @Test
    void problemStateWinsWhenBothSampledBitsAreSet() {
        assertEquals(PR, MmcraSampledBits.LINUX.decode(MMCRA_BIT35 | MMCRA_BIT36));
        assertEquals(PR, MmcraSampledBits.XNU.decode(MMCRA_BIT35 | MMCRA_BIT36));
    }

    @Test
    void aSoftwareWriteOfMmcraEndsTheLatchedSample() {
        Ppc970Pmu pmu = alertAt(Map.of(), HV);
        assertEquals(HV, pmu.sampledCpl());
        pmu.write(MMCRA, pmu.read(MMCRA));
        assertEquals(-1, pmu.sampledCpl(), "the bits now hold what software wrote, not a sample");
    }

    @Test
    void siarLatchesTheProgramCounterOfTheCodeThatRaisedTheAlert() {
        Ppc970Pmu pmu = fixture.allCounting(PMXE | PMCJCE);
        pmu.write(pmc(1), 0x7FFF_FFF0L);
        pmu.setProgramCounter(0xC000_0000_0001_0000L);
        pmu.advance(8, onePerCycle(), SUP);
        assertEquals(-1, pmu.sampledAddress(), "no alert yet");
        pmu.setProgramCounter(0xC000_0000_0002_0000L);
        pmu.advance(8, onePerCycle(), SUP);
        assertEquals(0xC000_0000_0002_0000L, pmu.sampledAddress());
        assertEquals(0xC000_0000_0002_0000L, pmu.read(SIAR));
    }

    @Test
    void withoutAProgramCounterAnAlertLatchesNoAddress() {
        Ppc970Pmu pmu = alertAt(Map.of(), SUP);
        assertEquals(-1, pmu.sampledAddress(), "the simulation gave no PC, so SIAR holds no sample");
        assertEquals(0, pmu.read(SIAR));
        assertEquals(SUP, pmu.sampledCpl(), "the privilege is latched regardless");
    }

    @Test
    void whileFrozenNothingIsLatched() {
        Ppc970Pmu pmu = fixture.allCounting(PMXE | PMCJCE | FC);
        pmu.write(pmc(1), 0x7FFF_FFFFL);
        pmu.setProgramCounter(0x4000);
        pmu.advance(100, onePerCycle(), PR);
        assertEquals(-1, pmu.sampledAddress());
        assertEquals(-1, pmu.sampledCpl());
    }
}
