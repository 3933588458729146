package org.hyperprof.pmu.p4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.HashSet;
import java.util.Set;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.pmu.kit.EventTableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The wiring resource: virtual counters, ESCR groups and halves, OProfile's binding table (pmu-facts 3.4, 3.7, 3.9). */
class P4WiringTest {
    private final P4Wiring wiring = P4Fixture.P4.wiring();

    @Test
    void oprofilesVirtualCountersAreHardwareCounters0_4_8_16_2_6_10_17() {
        int[] expected = {0, 4, 8, 16, 2, 6, 10, 17};
        for (int v = 0; v < 8; v++) {
            assertEquals(expected[v], wiring.hardwareCounter(v), "virtual counter " + v);
        }
    }

    @Test
    void countersSplitIntoGroupsAndHalves() {
        assertEquals("BPU_COUNTER0", P4Registers.counterName(0));
        assertEquals("MS_COUNTER2", P4Registers.counterName(6));
        assertEquals("FLAME_COUNTER3", P4Registers.counterName(11));
        assertEquals("IQ_COUNTER5", P4Registers.counterName(17));
        for (int h : new int[] {0, 1, 4, 5, 8, 9, 12, 13, 16}) {
            assertEquals(0, P4Registers.half(h), "counter " + h);
        }
        for (int h : new int[] {2, 3, 6, 7, 10, 11, 14, 15, 17}) {
            assertEquals(1, P4Registers.half(h), "counter " + h);
        }
    }

    @Test
    void thereAre45EscrsAtDistinctAddressesWithIqEscrsOnModels1And2Only() {
        assertEquals(45, wiring.escrCount());
        Set<Integer> addresses = new HashSet<>();
        for (int e = 0; e < wiring.escrCount(); e++) {
            assertTrue(addresses.add(wiring.escrAddress(e)));
            assertEquals(wiring.escrAddress(e) & 1, wiring.escrHalf(e), "ESCR0 at the even, ESCR1 at the odd address");
        }
        int iq = wiring.escrAt(P4Fixture.IQ_ESCR0);
        assertFalse(wiring.escrPresent(iq, 0));
        assertTrue(wiring.escrPresent(iq, 1));
        assertTrue(wiring.escrPresent(iq, 2));
        assertFalse(wiring.escrPresent(iq, 3));
        assertEquals(-1, wiring.escrAt(0x3C6), "0x3C6/0x3C7 are not ESCRs");
    }

    @ParameterizedTest(name = "counter {0} select {1} -> {2}")
    @CsvSource({"0, 6, FSB_ESCR0", "1, 6, FSB_ESCR0", "2, 6, FSB_ESCR1", "3, 7, BSU_ESCR1", "0, 0, BPU_ESCR0",
        "4, 0, MS_ESCR0", "6, 1, TC_ESCR1", "8, 5, DAC_ESCR0", "10, 1, FIRM_ESCR1", "12, 4, CRU_ESCR0",
        "16, 4, CRU_ESCR0", "14, 4, CRU_ESCR1", "17, 5, CRU_ESCR3", "16, 2, RAT_ESCR0", "13, 6, CRU_ESCR4"})
    void aCccrEscrSelectNamesOneEscrOfTheCountersGroupAndHalf(int counter, int select, String escr) {
        assertEquals(escr, wiring.escrName(wiring.escrFeeding(counter, select)));
    }

    @Test
    void selectValuesWithoutAnEscrInTheGroupNameNone() {
        assertEquals(-1, wiring.escrFeeding(4, 3), "the MS group has selects 0-2 only");
        assertEquals(-1, wiring.escrFeeding(14, 3), "SSU has an ESCR0 only");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource({"29, GLOBAL_POWER_EVENTS, 6, 0x13, 0:FSB_ESCR0 4:FSB_ESCR1",
        "35, INSTR_RETIRED, 4, 0x02, 3:CRU_ESCR0 7:CRU_ESCR1",
        "36, UOPS_RETIRED, 4, 0x01, 3:CRU_ESCR0 7:CRU_ESCR1",
        "1, BRANCH_RETIRED, 5, 0x06, 3:CRU_ESCR2 7:CRU_ESCR3",
        "2, MISPRED_BRANCH_RETIRED, 4, 0x03, 3:CRU_ESCR0 7:CRU_ESCR1",
        "39, RETIRED_BRANCH_TYPE, 2, 0x04, 1:TBPU_ESCR0 5:TBPU_ESCR1",
        "38, RETIRED_MISPRED_BRANCH_TYPE, 2, 0x05, 1:TBPU_ESCR0 5:TBPU_ESCR1",
        "3, TC_DELIVER_MODE, 1, 0x01, 1:TC_ESCR0 5:TC_ESCR1",
        "4, BPU_FETCH_REQUEST, 0, 0x03, 0:BPU_ESCR0 4:BPU_ESCR1",
        "5, ITLB_REFERENCE, 3, 0x18, 0:ITLB_ESCR0 4:ITLB_ESCR1",
        "11, PAGE_WALK_TYPE, 4, 0x01, 0:PMH_ESCR0 4:PMH_ESCR1",
        "12, BSQ_CACHE_REFERENCE, 7, 0x0C, 0:BSU_ESCR0 4:BSU_ESCR1",
        "6, MEMORY_CANCEL, 5, 0x02, 2:DAC_ESCR0 6:DAC_ESCR1",
        "10, MOB_LOAD_REPLAY, 2, 0x03, 0:MOB_ESCR0 4:MOB_ESCR1",
        "28, MACHINE_CLEAR, 5, 0x02, 3:CRU_ESCR2 7:CRU_ESCR3",
        "18, X87_ASSIST, 5, 0x03, 3:CRU_ESCR2 7:CRU_ESCR3",
        "26, X87_FP_UOP, 1, 0x04, 2:FIRM_ESCR0 6:FIRM_ESCR1",
        "21, PACKED_DP_UOP, 1, 0x0C, 2:FIRM_ESCR0 6:FIRM_ESCR1",
        "23, SCALAR_DP_UOP, 1, 0x0E, 2:FIRM_ESCR0 6:FIRM_ESCR1",
        "31, UOP_QUEUE_WRITES, 0, 0x09, 1:MS_ESCR0 5:MS_ESCR1",
        "13, IOQ_ALLOCATION, 6, 0x03, 0:FSB_ESCR0",
        "32, FRONT_END_EVENT, 5, 0x08, 3:CRU_ESCR2 7:CRU_ESCR3",
        "33, EXECUTION_EVENT, 5, 0x0C, 3:CRU_ESCR2 7:CRU_ESCR3",
        "34, REPLAY_EVENT, 5, 0x09, 3:CRU_ESCR2 7:CRU_ESCR3"})
    void theBindingTableHoldsTheFactsEntries(int number, String name, int escrSelect, String eventSelect,
            String bindings) {
        P4Wiring.Binding b = wiring.binding(number);
        assertEquals(name, b.name());
        assertEquals(escrSelect, b.escrSelect());
        assertEquals(Integer.decode(eventSelect), b.eventSelect());
        StringBuilder actual = new StringBuilder();
        for (int i = 0; i < b.vcounters().length; i++) {
            actual.append(i == 0 ? "" : " ").append(b.vcounters()[i]).append(':').append(wiring.escrName(b.escrs()[i]));
        }
        assertEquals(bindings, actual.toString());
    }

    @Test
    void eventNumbersRunFrom1To39() {
        assertNull(wiring.binding(0), "event code 0 is forbidden");
        assertNull(wiring.binding(40));
        for (int n = 1; n <= 39; n++) {
            assertNotNull(wiring.binding(n));
        }
    }

    @Test
    void everyP4EventListsExactlyTheVirtualCountersItsBindingHas() {
        for (EventDescriptor e : P4Fixture.P4.events().events()) {
            long mask = 0;
            for (int v : wiring.binding(e.code()).vcounters()) {
                mask |= 1L << v;
            }
            assertEquals(mask, e.counterMask(), e.name());
        }
    }

    @Test
    void everyP4HtEventHasABindingForBothSiblings() {
        for (EventDescriptor e : P4Fixture.P4_HT.events().events()) {
            P4Wiring.Binding b = wiring.binding(e.code());
            for (int c = 0; c < 4; c++) {
                if (e.canUseCounter(c)) {
                    assertTrue(b.escrFor(c) >= 0, e.name() + " thread 0 counter " + c);
                    assertTrue(b.escrFor(c + 4) >= 0, e.name() + " thread 1 counter " + c);
                }
            }
        }
    }

    @Test
    void aBindingWhoseEscrDoesNotFeedItsCounterIsRefusedWithTheLine() {
        String text = "vcounter 0 0\nescr FSB_ESCR1 0x3A3 BPU 1 6 FSB\nbinding 29 GLOBAL_POWER_EVENTS 6 0x13 0:FSB_ESCR1\n";
        EventTableException e = assertThrows(EventTableException.class,
                () -> P4Wiring.parse("test/wiring", new StringReader(text)));
        assertEquals(3, e.line());
        assertTrue(e.getMessage().contains("FSB_ESCR1 does not feed virtual counter 0 (BPU_COUNTER0)"), e.getMessage());
    }

    @Test
    void aBindingWhoseSelectDoesNotNameItsEscrIsRefused() {
        String text = "vcounter 0 0\nescr FSB_ESCR0 0x3A2 BPU 0 6 FSB\nbinding 29 GLOBAL_POWER_EVENTS 7 0x13 0:FSB_ESCR0\n";
        EventTableException e = assertThrows(EventTableException.class,
                () -> P4Wiring.parse("test/wiring", new StringReader(text)));
        assertTrue(e.getMessage().contains("ESCR-select 7 of GLOBAL_POWER_EVENTS does not name FSB_ESCR0"),
                e.getMessage());
    }

    @Test
    void anIncompleteTableIsRefused() {
        StringBuilder text = new StringBuilder();
        int[] hw = {0, 4, 8, 16, 2, 6, 10, 17};
        for (int v = 0; v < 8; v++) {
            text.append("vcounter ").append(v).append(' ').append(hw[v]).append('\n');
        }
        EventTableException e = assertThrows(EventTableException.class,
                () -> P4Wiring.parse("test/wiring", new StringReader(text.toString())));
        assertTrue(e.getMessage().contains("event number 1 has no 'binding' line"), e.getMessage());
        e = assertThrows(EventTableException.class,
                () -> P4Wiring.parse("test/wiring", new StringReader("counter 0 0\n")));
        assertTrue(e.getMessage().contains("expected a 'vcounter', 'escr' or 'binding' line"), e.getMessage());
    }
}
