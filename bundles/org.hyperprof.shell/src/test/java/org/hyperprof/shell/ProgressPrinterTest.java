package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

    /** Per case: the rule, the reports given (done, total microseconds, samples) and the lines printed. */
    static Stream<Arguments> reportsAndLines() {
        return Stream.of(
                arguments("reports within the same tenth print nothing more",
                        new long[][] {{100_000, 1_000_000, 1}, {150_000, 1_000_000, 2}, {199_999, 1_000_000, 3}},
                        List.of("   10%  100/1000 ms simulated, 1 samples")),
                arguments("a jump over several tenths prints only where it landed",
                        new long[][] {{550_000, 1_000_000, 55}}, List.of("   50%  550/1000 ms simulated, 55 samples")),
                arguments("exact tenths are reached without rounding loss", new long[][] {{300_000, 1_000_000, 0}},
                        List.of("   30%  300/1000 ms simulated, 0 samples")),
                arguments("nothing before the first tenth and nothing for an empty run",
                        new long[][] {{99_999, 1_000_000, 0}, {0, 0, 0}}, List.of()),
                arguments("progress past the total is shown as the total", new long[][] {{2_000_000, 1_000_000, 7}},
                        List.of("  100%  1000/1000 ms simulated, 7 samples")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("reportsAndLines")
    void printsALineOnlyWhenAReportReachesANewTenth(String rule, long[][] reports, List<String> printed) {
        for (long[] r : reports) {
            printer.progress(r[0], r[1], r[2]);
        }
        assertEquals(printed, List.of(lines()));
    }

    @Test
    void linesAreWholeLinesWithoutCarriageReturnsSoPipedOutputReadsWell() {
        printer.progress(500_000, 1_000_000, 5);
        printer.progress(1_000_000, 1_000_000, 9);
        assertFalse(bytes.toString(StandardCharsets.UTF_8).contains("\r"));
    }
}
