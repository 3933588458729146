package org.hyperprof.pmu.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;

import org.hyperprof.api.pmu.EventTable;
import org.junit.jupiter.api.Test;

/** The events file names either the counters of an event or the extended feature that samples it. */
class EventTableReaderTest {
    private static final String MASKS = "name:zero type:mandatory default:0x0\n\t0x0 No unit mask\n";

    private static EventTable read(String events) throws Exception {
        return EventTableReader.parse("test", new StringReader(events), new StringReader(MASKS));
    }

    @Test
    void anExtendedEventHasNoCounters() throws Exception {
        EventTable t = read("event:0x76 counters:0,1 um:zero minimum:500 name:CLK signal:CYCLES : clocks\n"
                + "event:0xf000 ext:ibs_fetch um:zero minimum:50000 name:IBS_FETCH_ALL signal:INSTRUCTIONS : fetches\n");
        assertEquals(0b11, t.find("CLK").orElseThrow().counterMask());
        assertEquals(0, t.find("IBS_FETCH_ALL").orElseThrow().counterMask());
        assertEquals(0xF000, t.find("IBS_FETCH_ALL").orElseThrow().code());
    }

    @Test
    void anEventNamesCountersOrAnExtendedFeatureNotBothNorNeither() {
        String both = assertThrows(EventTableException.class, () -> read(
                "event:0xf000 counters:0 ext:ibs_fetch um:zero minimum:1 name:X signal:CYCLES : x\n")).getMessage();
        assertTrue(both.contains("not both"), both);
        String neither = assertThrows(EventTableException.class, () -> read(
                "event:0xf000 um:zero minimum:1 name:X signal:CYCLES : x\n")).getMessage();
        assertTrue(neither.contains("not neither"), neither);
    }
}
