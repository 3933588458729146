package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Fixture.HV;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.pmc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.stream.Collectors;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.pmu.kit.EventTableException;
import org.hyperprof.pmu.kit.EventTableReader;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The model's identity, OProfile's 970 table and its group mappings, read from the bundle's resources. */
class Ppc970EventTableTest {
    private final Ppc970PmuModel model = new Ppc970PmuModel();
    private final EventTable table = model.events();

    @Test
    void modelDescribesThePowerPc970AsOprofileNamesIt() {
        assertEquals("ppc64/970 \"ppc64 970\": 8 counters of 32 bits", PmuFixtures.identity(model));
        assertEquals(0, model.ibsCapabilities(), "no IBS on a PowerPC");
    }

    @Test
    void defaultEventIsCyclesEvery100000InBothModes() throws EventSpecException {
        assertEquals("CYCLES:100000:0:1:1", model.defaultEvent());
        CounterConfig c = model.allocate(List.of(EventSpec.parse(model.defaultEvent())))[0];
        assertEquals("CYCLES", c.event().name());
        assertEquals(0x001, c.event().code());
        assertEquals(10_000, c.event().minimumCount());
        assertEquals("Counted CYCLES events (Processor Cycles) with a unit mask of 0x00 (No unit mask) count 100000",
                c.describe());
    }

    @Test
    void tableHoldsTheDefaultAndTheGroupsTheFactsList() {
        List<String> names = table.events().stream().map(EventDescriptor::name).collect(Collectors.toList());
        assertEquals(List.of("CYCLES", "PM_RUN_CYC_GRP1", "PM_CYC_GRP1", "PM_INST_CMPL_GRP1", "PM_GRP_CMPL_GRP1",
                "PM_INST_CMPL_GRP3", "PM_CYC_GRP3", "PM_LD_MISS_L1_GRP3", "PM_INST_DISP_GRP3", "PM_ST_REF_L1_GRP3",
                "PM_LD_REF_L1_GRP3", "PM_FPU_FDIV_GRP5", "PM_FPU_FIN_GRP5", "PM_DTLB_MISS_GRP23", "PM_ST_MISS_L1_GRP23",
                "PM_BR_ISSUED_GRP25", "PM_BR_MPRED_CR_GRP25", "PM_BR_MPRED_TA_GRP25", "PM_DATA_FROM_MEM_GRP28",
                "PM_ITLB_MISS_GRP29", "PM_HV_CYC_GRP30"), names);
    }

    @ParameterizedTest(name = "{0} = 0x{1} on PMC{2}, minimum {3}")
    @CsvSource({"CYCLES, 001, 2, 10000", "PM_RUN_CYC_GRP1, 010, 1, 10000", "PM_CYC_GRP1, 011, 2, 10000",
            "PM_INST_CMPL_GRP1, 013, 4, 10000", "PM_GRP_CMPL_GRP1, 016, 7, 1000", "PM_INST_CMPL_GRP3, 030, 1, 10000",
            "PM_CYC_GRP3, 031, 2, 10000", "PM_LD_MISS_L1_GRP3, 032, 3, 1000", "PM_INST_DISP_GRP3, 034, 5, 1000",
            "PM_ST_REF_L1_GRP3, 036, 7, 1000", "PM_LD_REF_L1_GRP3, 037, 8, 1000", "PM_DTLB_MISS_GRP23, 170, 1, 1000",
            "PM_ST_MISS_L1_GRP23, 173, 4, 1000", "PM_BR_ISSUED_GRP25, 193, 4, 1000",
            "PM_BR_MPRED_CR_GRP25, 196, 7, 1000", "PM_BR_MPRED_TA_GRP25, 197, 8, 1000",
            "PM_ITLB_MISS_GRP29, 1D1, 2, 1000", "PM_DATA_FROM_MEM_GRP28, 1C2, 3, 1000",
            "PM_FPU_FDIV_GRP5, 050, 1, 1000", "PM_FPU_FIN_GRP5, 053, 4, 1000", "PM_HV_CYC_GRP30, 1E2, 3, 1000"})
    void eachEventHasTheFactsNumberCounterAndMinimum(String name, String code, int pmcNumber, long minimum) {
        EventDescriptor e = table.find(name).orElseThrow();
        assertEquals(Integer.parseInt(code, 16), e.code());
        assertEquals(1L << (pmcNumber - 1), e.counterMask());
        assertEquals(minimum, e.minimumCount());
        assertEquals("zero", e.unitMask().name());
    }

    @ParameterizedTest(name = "group {0}: MMCR0 0x{1} MMCR1 0x{2}")
    @CsvSource({"0, 0400C51E, 000000000A46F18C", "1, 0000051E, 000000000A46F18C", "3, 0000091E, 4003001005F09000",
            "5, 00000000, 00000000001E0480", "23, 00001404, 000B000004DE9000", "25, 0000091E, 8003C01D0676FD6C"})
    void groupMappingsAreTheFactsValues(int group, String mmcr0, String mmcr1) {
        Ppc970EventGroups.GroupMapping m = model.groups().group(group);
        assertEquals(Long.parseLong(mmcr0, 16), m.mmcr0());
        assertEquals(Long.parseUnsignedLong(mmcr1, 16), m.mmcr1());
        assertEquals(0x2001L, m.mmcra());
    }

    @Test
    void everyEventCountsItsSignalOnItsCounterWhenItsGroupIsProgrammed() throws EventSpecException {
        for (EventDescriptor e : table.events()) {
            Ppc970Pmu pmu = (Ppc970Pmu) model.createPmu(0, java.util.Map.of());
            pmu.setup(model.allocate(List.of(new EventSpec(e.name(), 100_000, -1, true, true))));
            pmu.start();
            int counter = Ppc970EventGroups.counterOf(e.code());
            long before = pmu.read(pmc(counter));
            pmu.advance(1000, PmuFixtures.rates(Signal.CYCLES, 0), HV);
            assertEquals(before, pmu.read(pmc(counter)), e.name() + " counts nothing when its signal is absent");
            pmu.advance(1000, PmuFixtures.rates(e.signal(), 500), HV);
            assertEquals(before + 500, pmu.read(pmc(counter)), e.name() + " counts " + e.signal());
        }
    }

    // ------------------------------------------------------------------- malformed mappings

    private static final String EVENTS = "event:0x010 counters:0 um:zero minimum:1000 name:A signal:CYCLES : a\n"
            + "event:0x011 counters:1 um:zero minimum:1000 name:B signal:INSTRUCTIONS : b\n";
    private static final String UNIT_MASKS = "name:zero type:mandatory default:0x0\n\t0x0 No unit mask\n";

    private static Ppc970EventGroups parse(String events, String mappings) throws IOException {
        EventTable t = EventTableReader.parse("test", new StringReader(events), new StringReader(UNIT_MASKS));
        return Ppc970EventGroups.parse("test", new StringReader(mappings), t);
    }

    private static String rejection(String events, String mappings) {
        return assertThrows(EventTableException.class, () -> parse(events, mappings)).getMessage();
    }

    @Test
    void aWellFormedMappingDecodesItsSelectors() throws IOException {
        Ppc970EventGroups g = parse(EVENTS, "event:0x010 mmcr0:0x0500 mmcr1:0x0 mmcra:0x2001\n"
                + "EVENT:0X011 MMCR0:0X0500 MMCR1:0X0 MMCRA:0X2001\n");
        assertEquals(Signal.CYCLES.ordinal(), g.decode(0, 5, 0));
        assertEquals(Ppc970EventGroups.NO_SIGNAL, g.decode(0, 5, 1L << 32), "another multiplexer setting");
        assertEquals(Ppc970EventGroups.NO_SIGNAL, g.decode(2, 5, 0), "another PMC");
        assertEquals(Signal.INSTRUCTIONS.ordinal(), g.decode(6, 0x09, 0x1234_0000_0000L), "0x09 on any PMC");
        assertEquals(Ppc970EventGroups.NO_SIGNAL, g.decode(0, 0x08, 0));
    }

    @Test
    void anEventWithoutAMappingIsAnError() {
        String m = rejection(EVENTS, "event:0x010 mmcr0:0x0500 mmcr1:0x0 mmcra:0x2001\n");
        assertTrue(m.contains("event B (0x011) has no line in event_mappings"), m);
    }

    @Test
    void aMappingForAnUnknownEventIsAnError() {
        String m = rejection(EVENTS, "event:0x012 mmcr0:0x0500 mmcr1:0x0 mmcra:0x2001\n");
        assertTrue(m.contains("test/event_mappings:1: event 0x012 has a mapping but is not in the events file"), m);
    }

    @Test
    void linesOfOneGroupMustAgree() {
        String m = rejection(EVENTS, "event:0x010 mmcr0:0x0500 mmcr1:0x0 mmcra:0x2001\n"
                + "event:0x011 mmcr0:0x0600 mmcr1:0x0 mmcra:0x2001\n");
        assertTrue(m.contains(":2: group 1 is mapped to mmcr0 0x00000500"), m);
    }

    @Test
    void anEventsNumberMustNameItsCounter() {
        String m = rejection("event:0x012 counters:0 um:zero minimum:1000 name:A signal:CYCLES : a\n",
                "event:0x012 mmcr0:0x0500 mmcr1:0x0 mmcra:0x2001\n");
        assertTrue(m.contains("number 0x012 names counter 2, but its counters: field is 0"), m);
    }

    @Test
    void anEventOnAUniversalSelectorMustNameItsSignal() {
        String m = rejection("event:0x010 counters:0 um:zero minimum:1000 name:A signal:BRANCHES : a\n",
                "event:0x010 mmcr0:0x0F00 mmcr1:0x0 mmcra:0x2001\n");
        assertTrue(m.contains("selector 0x0f on PMC1, which counts CYCLES on every PMC"), m);
    }

    @Test
    void twoEventsMayNotClaimOneSelectorForDifferentSignals() {
        String m = rejection("event:0x010 counters:0 um:zero minimum:1000 name:A signal:BRANCHES : a\n"
                + "event:0x020 counters:0 um:zero minimum:1000 name:B signal:L2_MISSES : b\n",
                "event:0x010 mmcr0:0x0300 mmcr1:0x0 mmcra:0x2001\nevent:0x020 mmcr0:0x0300 mmcr1:0x0 mmcra:0x2001\n");
        assertTrue(m.contains("event B and event A select the same thing (PMC1, selector 0x03"), m);
    }

    @Test
    void malformedLinesNameFileAndLine() {
        assertTrue(rejection(EVENTS, "event:0x010 mmcr0:0x0500 mmcra:0x2001\n").contains("missing 'mmcr1:'"));
        assertTrue(rejection(EVENTS, "event:0x010 mmcr0:zz mmcr1:0 mmcra:0\n").contains("'zz' is not a number"));
        assertTrue(rejection(EVENTS, "event:0x010 mmcr0:0x100000000 mmcr1:0 mmcra:0\n").contains("32-bit"));
        assertTrue(rejection(EVENTS, "event:0x010 mmcr0:0 mmcr1:0 mmcra:0 state:guest\n")
                .contains("state 'guest' is not one of any, hypervisor"));
        assertTrue(rejection(EVENTS, "event:0x010 mmcr0:0 mmcr1:0 mmcra:0\nevent:0x010 mmcr0:0 mmcr1:0 mmcra:0\n")
                .contains("event 0x010 is mapped twice"));
    }
}
