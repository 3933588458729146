package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ProgressPrinterTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final ProgressPrinter printer = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8));

    private String[] lines() {
        String s = bytes.toString(StandardCharsets.UTF_8);
        return s.isEmpty() ? new String[0] : s.split(System.lineSeparator());
    }

    @Test
    void printsOneLinePerTenthWithMillisecondsAndSamples() {
        for (long us = 100_000; us <= 1_000_000; us += 100_000) {
            printer.progress(us, 1_000_000, us / 1000);
        }
        String[] lines = lines();
        assertEquals(10, lines.length);
        assertEquals("   10%  100/1000 ms simulated, 100 samples", lines[0]);
        assertEquals("  100%  1000/1000 ms simulated, 1000 samples", lines[9]);
    }

    @Test
    void reportsWithinTheSameTenthPrintNothingMore() {
        printer.progress(100_000, 1_000_000, 1);
        printer.progress(150_000, 1_000_000, 2);
        printer.progress(199_999, 1_000_000, 3);
        assertEquals(1, lines().length);
    }

    @Test
    void aJumpOverSeveralTenthsPrintsOnlyWhereItLanded() {
        printer.progress(550_000, 1_000_000, 55);
        assertEquals("   50%  550/1000 ms simulated, 55 samples", lines()[0]);
        assertEquals(1, lines().length);
    }

    @Test
    void exactTenthsAreReachedWithoutRoundingLoss() {
        printer.progress(300_000, 1_000_000, 0);
        assertEquals("   30%  300/1000 ms simulated, 0 samples", lines()[0]);
    }

    @Test
    void nothingBeforeTheFirstTenthAndNothingForAnEmptyRun() {
        printer.progress(99_999, 1_000_000, 0);
        printer.progress(0, 0, 0);
        assertEquals(0, lines().length);
    }

    @Test
    void linesAreWholeLinesWithoutCarriageReturnsSoPipedOutputReadsWell() {
        printer.progress(500_000, 1_000_000, 5);
        printer.progress(1_000_000, 1_000_000, 9);
        assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("\r"));
    }

    @Test
    void progressPastTheTotalIsShownAsTheTotal() {
        printer.progress(2_000_000, 1_000_000, 7);
        assertEquals("  100%  1000/1000 ms simulated, 7 samples", lines()[0]);
    }
}
