package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** perf report's --time windows, as perf reads them (tools/perf/util/time-utils.c). */
class TimeRangesTest {
    /** A recording from 100 s to 200 s. */
    private static final long FIRST = 100_000_000_000L;
    private static final long LAST = 200_000_000_000L;

    private static TimeRanges of(String text) {
        return TimeRanges.parse(text, FIRST, LAST);
    }

    private static long s(double seconds) {
        return Math.round(seconds * 1e9);
    }

    @Test
    void aWindowInSecondsKeepsItsBoundsAndAnOpenEndKeepsEverythingOnThatSide() {
        TimeRanges w = of("120.5,130");
        assertTrue(w.skips(s(120.499999999)));
        assertFalse(w.skips(s(120.5)));
        assertFalse(w.skips(s(130)));
        assertTrue(w.skips(s(130) + 1));
        assertFalse(of(",130").skips(s(1)));
        assertFalse(of("120,").skips(s(999)));
        assertTrue(of("120,").skips(s(119)));
    }

    @Test
    void aSampleWithoutATimeIsAlwaysKept() {
        assertFalse(of("120,130").skips(0));
        assertFalse(of("120,130 140,150").skips(0));
    }

    @Test
    void secondsTakeUpToNineDecimals() {
        assertFalse(of("120.000000001,121").skips(120_000_000_001L));
        assertTrue(of("120.000000001,121").skips(120_000_000_000L));
        assertThrows(IllegalArgumentException.class, () -> of("120.0000000001,121"));
    }

    @Test
    void severalWindowsInSecondsAreSeparatedBySpacesAndMustNotOverlap() {
        TimeRanges w = of("110,120 130,140");
        assertFalse(w.skips(s(115)));
        assertTrue(w.skips(s(125)));
        assertFalse(w.skips(s(140)));
        assertTrue(w.skips(s(141)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> of("110,130 120,140"));
        assertTrue(e.getMessage().contains("overlap"), e.getMessage());
    }

    @Test
    void aPercentSliceIsItsShareOfTheRecordingsTimeEndingANanosecondBeforeTheNext() {
        TimeRanges second = of("10%/2");
        assertTrue(second.skips(s(110) - 1));
        assertFalse(second.skips(s(110)));
        assertFalse(second.skips(s(120) - 1));
        assertTrue(second.skips(s(120)), "the next slice's first nanosecond is the next slice's");
        // The last slice keeps the last sample.
        assertFalse(of("10%/10").skips(LAST));
    }

    @Test
    void percentRangesAndASinglePercent() {
        TimeRanges two = of("0%-10%,30%-40%");
        assertFalse(two.skips(FIRST));
        assertTrue(two.skips(s(115)));
        assertFalse(two.skips(s(135)));
        assertTrue(two.skips(s(140)));
        TimeRanges half = of("50%");
        assertFalse(half.skips(s(149)));
        assertTrue(half.skips(s(150)));
    }

    @Test
    void percentsNeedTheRecordingsFirstAndLastSampleTime() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TimeRanges.parse("10%/2", 0, 0));
        assertTrue(e.getMessage().contains("SAMPLE_TIME") && e.getMessage().contains("start,stop"), e.getMessage());
    }

    @Test
    void aWrongFormSaysWhatIsWrongAndTheFormsThereAre() {
        for (String bad : new String[] {"120", "130,120", "abc,1", "10%/x", "0%/1", "110%", "10", "5%-200%", "-5%/1",
            "NaN%", "1,2,3"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> of(bad), bad);
            assertTrue(e.getMessage().startsWith("--time " + bad + ": ") && e.getMessage().contains("N%/M"),
                    e.getMessage());
        }
    }

    @Test
    void itDescribesItsWindowsInSeconds() {
        assertEquals("--time 10%/2 (110.000000-119.999999 s)", of("10%/2").describe());
        assertEquals("--time 120, (120.000000- s)", of("120,").describe());
    }
}
