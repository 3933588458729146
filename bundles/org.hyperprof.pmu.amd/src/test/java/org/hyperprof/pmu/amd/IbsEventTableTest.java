package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY15H;
import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.hyperprof.testing.pmu.PmuFixtures.rejection;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.junit.jupiter.api.Test;

/**
 * OProfile's IBS-derived events of family 10h (events/x86-64/family10 of OProfile 0.9.5-0.9.9, and
 * opcontrol's verify_ibs): names, codes, unit masks, minimum and maximum counts, and the rules
 * that tie the events of one sampler together.
 */
class IbsEventTableTest {

    private static EventDescriptor event(String name) {
        return FAMILY10.events().find(name).orElseThrow();
    }

    @Test
    void theFetchAndOpEventsCarryOProfilesCodesMinimumsAndUnitMasks() {
        EventDescriptor fetch = event("IBS_FETCH_ALL");
        assertEquals(0xF000, fetch.code());
        assertEquals(50000, fetch.minimumCount());
        assertEquals("zero", fetch.unitMask().name());
        assertEquals(0, fetch.counterMask(), "no counter counts an IBS event");
        assertEquals(Signal.INSTRUCTIONS, fetch.signal(), "the fetch sampler counts one fetch per instruction");

        EventDescriptor op = event("IBS_OP_ALL");
        assertEquals(0xF100, op.code());
        assertEquals(50000, op.minimumCount());
        assertEquals("ibs_op", op.unitMask().name());
        assertEquals(0x01, op.unitMask().defaultValue(), "OProfile's default: dispatched-op count mode");
        assertTrue(op.unitMask().allows(0x00) && op.unitMask().allows(0x01));
        assertFalse(op.unitMask().allows(0x02), "the memory access log has no data in the simulated machine");
        assertEquals(0, op.counterMask());
    }

    @Test
    void onlyFamily10hHasIbsEvents() {
        for (AmdPmuModel m : List.of(AmdFixture.ATHLON, HAMMER, FAMILY15H)) {
            assertTrue(m.events().events().stream().noneMatch(IbsEvents::isIbs), m.cpuType());
        }
        assertEquals(List.of("IBS_FETCH_ALL", "IBS_FETCH_ATTEMPTED", "IBS_OP_ALL"), FAMILY10.events().events().stream()
                .filter(IbsEvents::isIbs).map(EventDescriptor::name).toList());
        assertEquals(0xF002, event("IBS_FETCH_ATTEMPTED").code());
    }

    @Test
    void ibsEventsGetColumnsNoCounterHasAndCountersStayForTheOthers() throws Exception {
        CounterConfig[] c = configs(FAMILY10, "IBS_FETCH_ALL:60000:0:1:1", "CPU_CLK_UNHALTED:100000:0:1:1",
                "IBS_OP_ALL:80000:0:1:1");
        assertEquals(IbsEvents.FETCH_COLUMNS, c[0].counter());
        assertEquals(0, c[1].counter());
        assertEquals(IbsEvents.OP_COLUMNS, c[2].counter());
        assertEquals(PmuModel.IBS_FETCH_SAMPLE, FAMILY10.ibsSample(c[0]));
        assertEquals(0, FAMILY10.ibsSample(c[1]));
        assertEquals(PmuModel.IBS_OP_SAMPLE, FAMILY10.ibsSample(c[2]));
        assertEquals(new IbsConfig(true, true, 60000, 80000, true, false), FAMILY10.ibsConfig(List.of(c)));
        assertNull(FAMILY10.ibsConfig(List.of(c[1])), "no IBS event, no ibs_counter");
    }

    @Test
    void theDispatchedOpModeCountsMicroOps() throws Exception {
        CounterConfig[] c = configs(FAMILY10, "IBS_OP_ALL:50000");
        assertEquals(0x01, c[0].unitMask());
        assertEquals(Signal.UOPS, c[0].event().signal());
        assertTrue(FAMILY10.ibsConfig(List.of(c)).dispatchedOps());
        assertEquals(Signal.CYCLES, configs(FAMILY10, "IBS_OP_ALL:50000:0:1:1")[0].event().signal());
    }

    @Test
    void countsOutsideOProfilesRangeAreRefusedWithTheRange() {
        assertTrue(rejection(FAMILY10, "IBS_FETCH_ALL:49999:0:1:1").contains("below its minimum of 50000"));
        String tooLarge = rejection(FAMILY10, "IBS_OP_ALL:1048576:0:1:1");
        assertTrue(tooLarge.contains("maximum IBS op count") && tooLarge.contains("1048575"), tooLarge);
    }

    @Test
    void theFetchEventsShareOneCountAsOneSamplerServesThem() throws Exception {
        String m = rejection(FAMILY10, "IBS_FETCH_ALL:50000:0:1:1", "IBS_FETCH_ATTEMPTED:60000:0:1:1");
        assertTrue(m.contains("all IBS fetch events must have the same count") && m.contains("give both 50000"), m);
        CounterConfig[] c = configs(FAMILY10, "IBS_FETCH_ALL:50000:0:1:1", "IBS_FETCH_ATTEMPTED:50000:0:1:1",
                "IBS_OP_ALL:70000:0:1:1");
        assertEquals(List.of(IbsEvents.FETCH_COLUMNS, IbsEvents.FETCH_COLUMNS + 1, IbsEvents.OP_COLUMNS),
                List.of(c[0].counter(), c[1].counter(), c[2].counter()), "fetch and op samplers have counts of their own");
    }

    @Test
    void anIbsEventIsGivenOnceWithAUnitMaskOfItsSampler() {
        assertTrue(rejection(FAMILY10, "IBS_FETCH_ALL:50000:0:1:1", "IBS_FETCH_ALL:50000:0:1:1")
                .contains("given twice"));
        String um = rejection(FAMILY10, "IBS_OP_ALL:50000:0x2:1:1");
        assertTrue(um.contains("unit mask 0x2 is not valid for IBS_OP_ALL"), um);
    }

    @Test
    void ibsHasNoPrivilegeFilter() {
        String m = rejection(FAMILY10, "IBS_FETCH_ALL:50000:0:1:0");
        assertTrue(m.contains("every privilege level") && m.contains("IBS_FETCH_ALL:50000:0x0:1:1"), m);
    }

    @Test
    void modelsWithoutIbsNameTheFamilyThatHasIt() {
        String m = rejection(FAMILY15H, "IBS_FETCH_ALL:50000:0:1:1");
        assertTrue(m.contains("has no IBS") && m.contains("--cpu x86-64/family10"), m);
        assertTrue(rejection(HAMMER, "IBS_OP_ALL:50000").contains("has no IBS"));
    }
}
