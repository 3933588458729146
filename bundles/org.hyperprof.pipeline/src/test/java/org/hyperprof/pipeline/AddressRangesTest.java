package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Ranges are found by unsigned address, only within their own ends and the table's count. */
class AddressRangesTest {
    private final long[] starts = {0x1000, 0x2000, 0x7fff_ffff_ffff_f000L, 0xffff_ffff_8100_0000L, 0xdead};
    private final long[] ends = {0x1100, 0x3000, 0x8000_0000_0000_0000L, 0xffff_ffff_8200_0000L, 0xbeef};

    @Test
    void anAddressIsFoundInTheRangeHoldingIt() {
        assertEquals(0, AddressRanges.holding(starts, ends, 4, 0x1000));
        assertEquals(0, AddressRanges.holding(starts, ends, 4, 0x10ff));
        assertEquals(1, AddressRanges.holding(starts, ends, 4, 0x2fff));
        assertEquals(2, AddressRanges.holding(starts, ends, 4, 0x7fff_ffff_ffff_ffffL));
        assertEquals(3, AddressRanges.holding(starts, ends, 4, 0xffff_ffff_8100_0010L), "a kernel address, above 2^63");
    }

    @Test
    void gapsEndsAndAddressesBeforeTheFirstAreInNoRange() {
        assertEquals(-1, AddressRanges.holding(starts, ends, 4, 0x0fff));
        assertEquals(-1, AddressRanges.holding(starts, ends, 4, 0x1100), "an end is outside its range");
        assertEquals(-1, AddressRanges.holding(starts, ends, 4, 0x8000_0000_0000_0000L));
        assertEquals(-1, AddressRanges.holding(starts, ends, 4, -1L));
        assertEquals(-1, AddressRanges.holding(starts, ends, 0, 0x1000), "an empty table");
    }

    @Test
    void theFloorIsTheLastStartAtOrBelowTheAddressAmongTheCountedOnes() {
        assertEquals(-1, AddressRanges.floor(starts, 4, 0));
        assertEquals(1, AddressRanges.floor(starts, 4, 0x7000));
        assertEquals(3, AddressRanges.floor(starts, 4, -1L), "entries past count are not read");
        assertEquals(1, AddressRanges.floor(starts, 2, -1L));
    }
}
