package org.hyperprof.pmu.kit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.junit.jupiter.api.Test;

/** Checking event specifications against a table and placing the events on counters. */
class CounterAllocatorTest {
    private static final String EVENTS = """
            event:0x79 counters:0,1,2,3 um:zero minimum:6000 name:CPU_CLK_UNHALTED signal:CYCLES : clocks
            event:0xc0 counters:0,1,2,3 um:zero minimum:6000 name:INST_RETIRED signal:INSTRUCTIONS : instructions
            event:0xc1 counters:0 um:zero minimum:3000 name:FLOPS signal:FP_OPERATIONS : flops on counter 0
            event:0x93 counters:0 um:zero minimum:3000 name:COMP_FLOP_RET signal:FP_OPERATIONS : flops again
            event:0x12 counters:1 um:zero minimum:1000 name:MUL signal:FP_OPERATIONS : multiplies on counter 1
            event:0x13 counters:0,1 um:zero minimum:1000 name:DIV signal:FP_OPERATIONS : divides
            event:0x14 counters:0,1,2 um:zero minimum:1000 name:CYCLES_DIV_BUSY signal:DIV_BUSY_CYCLES : busy
            event:0x2e counters:0,1 um:mesi minimum:500 name:L2_RQSTS signal:L2_REQUESTS : L2 requests
            event:0x62 counters:0,1 um:ebl minimum:500 name:BUS_DRDY_CLOCKS signal:BUS_TRANSACTIONS : bus
            event:0x48 counters:3 um:zero minimum:500 name:COUNTER3_ONLY signal:L1D_MISSES : counter 3 only
            event:0x4a counters:0 um:zero minimum:0 name:NO_MINIMUM signal:L1D_MISSES : minimum 0
            event:0x4b counters:63 um:zero minimum:10 name:LAST_COUNTER signal:L1D_MISSES : counter 63 only
            """;
    private static final String UNIT_MASKS = """
            name:zero type:mandatory default:0x0
            \t0x0 No unit mask
            name:mesi type:bitmask default:0x0f
            \t0x08 (M)odified cache state
            \t0x04 (E)xclusive cache state
            \t0x02 (S)hared cache state
            \t0x01 (I)nvalid cache state
            name:ebl type:exclusive default:0x20
            \t0x00 self-generated transactions
            \t0x20 transactions from any processor
            """;
    private static final EventTable TABLE = table();
    private static final String REASON = "the handler sees overflow as bit 31 of the -count preload clearing";

    private static EventTable table() {
        try {
            return EventTableReader.parse("test/cpu", new StringReader(EVENTS), new StringReader(UNIT_MASKS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A four-counter allocator, like a Core 2 with four general-purpose counters. */
    private static CounterAllocator four() {
        return allocator(4);
    }

    private static CounterAllocator allocator(int counters) {
        return new CounterAllocator(TABLE, "test/cpu", "Test CPU", "CPU_CLK_UNHALTED:100000:0:1:1", counters,
                0x7FFF_FFFFL, REASON);
    }

    private static CounterConfig[] configs(CounterAllocator allocator, String... specs) throws EventSpecException {
        List<EventSpec> parsed = new ArrayList<>();
        for (String s : specs) {
            parsed.add(EventSpec.parse(s));
        }
        return allocator.allocate(parsed);
    }

    private static int[] counters(CounterConfig[] configs) {
        return Arrays.stream(configs).mapToInt(CounterConfig::counter).toArray();
    }

    private static String rejection(CounterAllocator allocator, String... specs) {
        return assertThrows(EventSpecException.class, () -> configs(allocator, specs)).getMessage();
    }

    @Test
    void eventsGoToTheLowestFreeCounterTheyMayUseInOrder() throws EventSpecException {
        CounterConfig[] c = configs(four(), "CPU_CLK_UNHALTED:100000", "INST_RETIRED:6000:0:0:1",
                "CYCLES_DIV_BUSY:1000");
        assertArrayEquals(new int[] {0, 1, 2}, counters(c));
        assertEquals("INST_RETIRED", c[1].event().name());
        assertEquals(6000, c[1].count());
        assertFalse(c[1].kernel());
        assertTrue(c[1].user());
        assertTrue(c[0].kernel() && c[0].user());
    }

    @Test
    void aLaterEventNeedingAnEarlierEventsCounterMovesTheEarlierEventUp() throws EventSpecException {
        assertArrayEquals(new int[] {1, 0}, counters(configs(four(), "CPU_CLK_UNHALTED:100000", "FLOPS:3000")));
        assertArrayEquals(new int[] {0, 1, 2}, counters(configs(four(), "DIV:1000", "MUL:1000", "CPU_CLK_UNHALTED:6000")),
                "DIV keeps counter 0: MUL's counter 1 is taken only after DIV moves, which it need not");
    }

    @Test
    void backtrackingRevisesSeveralEarlierEventsAndKeepsTheLowestCountersForTheFirstOnes() throws EventSpecException {
        CounterConfig[] c = configs(four(), "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000", "MUL:1000", "FLOPS:3000");
        assertArrayEquals(new int[] {2, 3, 1, 0}, counters(c),
                "FLOPS needs 0 and MUL needs 1, so the two any-counter events take 2 and 3, the first the lower");
    }

    @Test
    void theUnitMaskDefaultsToTheEventsOwnWhenNoneIsGiven() throws EventSpecException {
        CounterConfig[] c = configs(four(), "L2_RQSTS:500", "BUS_DRDY_CLOCKS:500", "CPU_CLK_UNHALTED:6000");
        assertEquals(0x0F, c[0].unitMask(), "mesi defaults to all four states");
        assertEquals(0x20, c[1].unitMask(), "ebl defaults to any processor");
        assertEquals(0x00, c[2].unitMask());
    }

    @Test
    void anAllowedUnitMaskIsKept() throws EventSpecException {
        assertEquals(0x0C, configs(four(), "L2_RQSTS:500:0x0c")[0].unitMask());
        assertEquals(0x00, configs(four(), "BUS_DRDY_CLOCKS:500:0x00")[0].unitMask());
    }

    @Test
    void aUnitMaskTheEventDoesNotHaveIsRefusedListingTheAllowedValues() {
        String mesi = rejection(four(), "L2_RQSTS:500:0x10");
        assertTrue(mesi.contains("unit mask 0x10 is not valid for L2_RQSTS (unit mask 'mesi'); allowed: any combination"
                + " of the bits: 0x08 (M)odified cache state"), mesi);
        assertTrue(rejection(four(), "CPU_CLK_UNHALTED:6000:1").contains("only 0x00 No unit mask"));
        assertTrue(rejection(four(), "BUS_DRDY_CLOCKS:500:0x10").contains("one of: 0x00 self-generated transactions"));
    }

    @Test
    void anUnknownEventIsRefusedNamingTheCpuTypeAndListingTheTablesEvents() {
        String m = rejection(four(), "CPU_CYCLES:100000");
        assertTrue(m.startsWith("unknown event 'CPU_CYCLES' for CPU type test/cpu (Test CPU); allowed events:"
                + " CPU_CLK_UNHALTED, INST_RETIRED, FLOPS"), m);
        assertFalse(m.contains("did you mean"), m);
    }

    @Test
    void aNameThatDiffersOnlyInCaseGetsAHint() {
        String m = rejection(four(), "cpu_clk_unhalted:100000");
        assertTrue(m.contains("(did you mean CPU_CLK_UNHALTED? names are upper case)"), m);
    }

    @Test
    void aNameWithSpacesGetsAHintToDropThem() throws EventSpecException {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> four().allocate(List.of(new EventSpec(" Flops", 3000, -1, true, true))));
        assertTrue(e.getMessage().contains("did you mean FLOPS? names are upper case, without spaces"), e.getMessage());
    }

    @Test
    void anEventWithoutANameIsRefusedListingTheAllowedEvents() {
        for (String name : new String[] {null, " "}) {
            EventSpecException e = assertThrows(EventSpecException.class, () -> four().allocate(
                    List.of(EventSpec.parse("CPU_CLK_UNHALTED:6000"), new EventSpec(name, 6000, -1, true, true))));
            assertTrue(e.getMessage().startsWith("event 2 of 2 has no name; allowed events for CPU type test/cpu"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("CPU_CLK_UNHALTED, INST_RETIRED"), e.getMessage());
        }
    }

    @Test
    void aCountBelowTheEventsMinimumIsRefusedNamingTheMinimumAndCpuType() {
        String m = rejection(four(), "CPU_CLK_UNHALTED:5999");
        assertTrue(m.contains("count 5999 for CPU_CLK_UNHALTED is below its minimum of 6000 on test/cpu; give a count"
                + " of at least 6000"), m);
        assertTrue(rejection(four(), "FLOPS:2999").contains("minimum of 3000"));
    }

    @Test
    void theMinimumCountItselfIsAccepted() throws EventSpecException {
        assertEquals(6000, configs(four(), "CPU_CLK_UNHALTED:6000")[0].count());
        assertEquals(500, configs(four(), "L2_RQSTS:500")[0].count());
    }

    @Test
    void aCountOfZeroIsRefusedEvenWhenTheTableAllowsMinimumZero() throws EventSpecException {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> four().allocate(List.of(new EventSpec("NO_MINIMUM", 0, -1, true, true))));
        assertTrue(e.getMessage().contains("count 0 for NO_MINIMUM is not a sampling period"), e.getMessage());
        assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
        assertEquals(1, configs(four(), "NO_MINIMUM:1")[0].count());
    }

    @Test
    void aCountAboveTheCountersMaximumIsRefusedSayingWhy() throws EventSpecException {
        assertEquals(0x7FFF_FFFFL, configs(four(), "CPU_CLK_UNHALTED:2147483647")[0].count());
        String m = rejection(four(), "CPU_CLK_UNHALTED:2147483648");
        assertEquals("count 2147483648 for CPU_CLK_UNHALTED is above 2147483647: " + REASON
                + "; give a count of at most 2147483647", m);
    }

    @Test
    void anEventCountingInNeitherModeIsRefused() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> four().allocate(List.of(new EventSpec("CPU_CLK_UNHALTED", 6000, -1, false, false))));
        assertEquals("CPU_CLK_UNHALTED counts in neither kernel nor user mode; set kernel or user to 1",
                e.getMessage());
    }

    @Test
    void noEventsAtAllIsRefusedSuggestingTheDefault() {
        for (List<EventSpec> none : Arrays.asList(List.<EventSpec>of(), null)) {
            EventSpecException e = assertThrows(EventSpecException.class, () -> four().allocate(none));
            assertEquals("no event given for the Test CPU (test/cpu); give at least one, e.g. the default"
                    + " CPU_CLK_UNHALTED:100000:0:1:1", e.getMessage());
        }
    }

    @Test
    void aMissingEventIsRefusedNamingItsPosition() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> four().allocate(Arrays.asList(EventSpec.parse("CPU_CLK_UNHALTED:6000"), null)));
        assertTrue(e.getMessage().startsWith("event 2 of 2 is missing (null)"), e.getMessage());
    }

    @Test
    void moreEventsThanCountersAreRefusedBeforeAnyEventIsChecked() {
        String m = rejection(allocator(2), "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000", "NO_SUCH_EVENT:6000");
        assertEquals("3 events given, but the Test CPU (test/cpu) has only 2 counters; give at most 2 events", m);
    }

    @Test
    void theCounterNounAndNamesDescribeTheCountersInTheTooManyMessage() {
        CounterAllocator described = allocator(2).withCounterNoun("general-purpose counters (CPUID.0AH EAX[15:8])")
                .withCounterNames(List.of("IA32_PMC0", "IA32_PMC1"));
        String m = rejection(described, "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000", "DIV:6000");
        assertEquals("3 events given, but the Test CPU (test/cpu) has only 2 general-purpose counters (CPUID.0AH"
                + " EAX[15:8]): 0 (IA32_PMC0), 1 (IA32_PMC1); give at most 2 events", m);
    }

    @Test
    void twoEventsForOneSingleCounterAreRefusedNamingWhoTookIt() {
        String m = rejection(four(), "FLOPS:3000", "COMP_FLOP_RET:3000");
        assertEquals("no free counter for COMP_FLOP_RET: it can use counter(s) 0 and counter 0 is taken by FLOPS"
                + " (FLOPS can use counter(s) 0; COMP_FLOP_RET can use counter(s) 0); choose events that can run on"
                + " different counters", m);
    }

    @Test
    void theMessageBlamesTheFirstEventThatCannotFitAndSaysWhenNoOtherPlacementHelps() {
        String m = rejection(four(), "DIV:1000", "L2_RQSTS:500", "MUL:1000", "CPU_CLK_UNHALTED:6000");
        assertTrue(m.startsWith("no free counter for MUL: it can use counter(s) 1 and counter 1 is taken by L2_RQSTS,"
                + " and no other placement of the events before it frees one"), m);
        assertTrue(m.contains("(DIV can use counter(s) 0,1; L2_RQSTS can use counter(s) 0,1; MUL can use counter(s) 1)"),
                m);
        assertFalse(m.contains("CPU_CLK_UNHALTED can use"), "the later event plays no part: " + m);
    }

    @Test
    void countersTheCpuLacksAreLeftOutOfTheMessages() {
        String m = rejection(allocator(3), "CPU_CLK_UNHALTED:6000", "FLOPS:3000", "COMP_FLOP_RET:3000");
        assertTrue(m.contains("(CPU_CLK_UNHALTED can use counter(s) 0,1,2; FLOPS"), "the table says 0,1,2,3: " + m);
    }

    @Test
    void counterNamesAppearBesideTheNumbersInTheNoCounterMessage() {
        CounterAllocator named = four().withCounterNames(List.of("BPU_COUNTER0", "MS_COUNTER0", "FLAME_COUNTER0",
                "IQ_COUNTER0"));
        String m = rejection(named, "DIV:1000", "L2_RQSTS:500", "FLOPS:3000");
        assertTrue(m.contains("no free counter for FLOPS: it can use counter(s) 0 (BPU_COUNTER0) and counter 0 is"
                + " taken by DIV"), m);
        assertTrue(m.contains("DIV can use counter(s) 0 (BPU_COUNTER0), 1 (MS_COUNTER0);"), m);
    }

    @Test
    void sharingAdviceReplacesTheGenericAdvice() {
        String m = rejection(four().withSharingAdvice("events of one counter group share its counters"), "FLOPS:3000",
                "COMP_FLOP_RET:3000");
        assertTrue(m.endsWith("); events of one counter group share its counters"), m);
        assertFalse(m.contains("different counters"), m);
    }

    @Test
    void anEventWhoseCountersTheCpuLacksIsRefusedBeforePlacement() {
        String m = rejection(allocator(2), "COUNTER3_ONLY:500");
        assertEquals("COUNTER3_ONLY can use counter(s) 3 only, but the Test CPU (test/cpu) has counter(s) 0,1; choose"
                + " an event that one of these counters counts", m);
    }

    @Test
    void aModelWithSixtyFourCountersCanUseCounter63() throws EventSpecException {
        assertEquals(63, configs(allocator(64), "LAST_COUNTER:10")[0].counter());
    }

    @Test
    void theEventCheckRunsForEachFoundEventBeforeTheCountChecks() {
        List<String> seen = new ArrayList<>();
        CounterAllocator checked = four().withEventCheck((event, spec) -> {
            seen.add(event.name() + ":" + spec.count());
            if (event.name().equals("FLOPS")) {
                throw new EventSpecException("FLOPS is not wired on this part");
            }
        });
        assertEquals("FLOPS is not wired on this part", rejection(checked, "DIV:1000", "FLOPS:1"),
                "the check refuses before the count below FLOPS's minimum is looked at");
        assertEquals(List.of("DIV:1000", "FLOPS:1"), seen);
    }

    @Test
    void eventsTheCheckDoesNotOfferAreLeftOutOfTheAllowedListAndRefused() {
        CounterAllocator.EventCheck noFlops = new CounterAllocator.EventCheck() {
            @Override
            public void check(EventDescriptor event, EventSpec spec) {
                // lets every event pass, so the allocator itself must refuse FLOPS
            }

            @Override
            public boolean offers(EventDescriptor event) {
                return !event.name().equals("FLOPS");
            }
        };
        CounterAllocator checked = four().withEventCheck(noFlops);
        String unknown = rejection(checked, "CPU_CYCLES:6000");
        assertTrue(unknown.contains("INST_RETIRED, COMP_FLOP_RET"), unknown);
        String m = rejection(checked, "FLOPS:3000");
        assertTrue(m.startsWith("FLOPS is in the test/cpu event table, but this Test CPU CPU does not count it; events"
                + " it counts: CPU_CLK_UNHALTED, INST_RETIRED, COMP_FLOP_RET"), m);
    }

    @Test
    void anAllocatorIsAValueTheWithMethodsCopy() throws EventSpecException {
        CounterAllocator plain = four();
        CounterAllocator named = plain.withCounterNames(List.of("A", "B", "C", "D"));
        assertTrue(rejection(named, "FLOPS:3000", "COMP_FLOP_RET:3000").contains("0 (A)"));
        assertFalse(rejection(plain, "FLOPS:3000", "COMP_FLOP_RET:3000").contains("0 (A)"), "the original is unchanged");
        assertArrayEquals(counters(configs(plain, "MUL:1000")), counters(configs(named, "MUL:1000")));
    }

    @Test
    void badConstructionIsRefusedSayingWhatIsExpected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> allocator(0));
        assertTrue(e.getMessage().contains("1 to 64 counters, got 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> allocator(65));
        e = assertThrows(IllegalArgumentException.class,
                () -> new CounterAllocator(TABLE, "test/cpu", "Test CPU", "CPU_CLK_UNHALTED:6000", 2, 0, REASON));
        assertTrue(e.getMessage().contains("must be positive, got 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> four().withCounterNames(List.of("PMC0")));
        assertTrue(e.getMessage().contains("4 names, got 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> four().withCounterNames(List.of("A", "B", " ", "D")));
        assertThrows(IllegalArgumentException.class, () -> four().withCounterNoun(" "));
        assertThrows(IllegalArgumentException.class, () -> four().withSharingAdvice(""));
        assertThrows(NullPointerException.class, () -> four().withEventCheck(null));
        assertThrows(NullPointerException.class,
                () -> new CounterAllocator(null, "test/cpu", "Test CPU", "CPU_CLK_UNHALTED:6000", 2, 10, REASON));
    }
}
