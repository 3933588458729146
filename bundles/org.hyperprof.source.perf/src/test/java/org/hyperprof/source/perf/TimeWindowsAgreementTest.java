package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hp:import --time} against {@code perf report --time} on a recording made now: for each form
 * (a window in seconds, several, a percent slice, percent ranges, a first percent) the flat profile's
 * rows and total equal perf's, and the books hold the samples inside the windows only.
 */
class TimeWindowsAgreementTest {
    @TempDir
    static Path dir;
    static Path recording;
    static long first;
    static long last;

    @BeforeAll
    static void record() throws Exception {
        Path busy = PerfTool.programToRecord(dir, "busy.c", "busy");
        recording = PerfTool.record(dir.resolve("timed.data"), List.of("-e", "cpu-clock", "-c", "100000"),
                List.of(busy.toString(), "2000", "/bin/sh"));
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            first = r.info().firstSampleTime;
            last = r.info().lastSampleTime;
        }
        assumeTrue(first != 0 && last > first, "this perf writes no SAMPLE_TIME feature");
        // The windows in seconds are cut at the samples' own times, so each holds samples whatever the
        // scheduler did during the recording (a window of the wall clock may fall in a pause).
        List<Long> times = new java.util.ArrayList<>();
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(false), false);
            imp.tap(batch -> {
                for (int i = 0; i < batch.size; i++) {
                    times.add(batch.time[i]);
                }
            });
            imp.run(r, null, "perf.data", null, false);
        }
        sampleTimes = times.stream().mapToLong(Long::longValue).sorted().toArray();
        assumeTrue(sampleTimes.length >= 100, "the recording holds " + sampleTimes.length + " samples");
    }

    static long[] sampleTimes;

    /** The time of the sample at {@code fraction} of the recording's samples, in time order. */
    private static long at(double fraction) {
        return sampleTimes[(int) (fraction * (sampleTimes.length - 1))];
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%d.%09d", nanos / 1_000_000_000L, nanos % 1_000_000_000L);
    }

    private static void assertAgrees(String time) throws Exception {
        assertAgrees(time, true);
    }

    /** @param holdsSamples whether the windows hold samples for sure (one holds the first or last sample) */
    private static void assertAgrees(String time, boolean holdsSamples) throws Exception {
        PerfImport.Result result;
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            result = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(false).withTime(time),
                    false).run(r, null, "perf.data", null, false);
        }
        assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
        assertTrue(result.accounting().balanced(), result.accounting().line());
        Map<PerfTool.Key, Long> perf = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        perf.putAll(PerfTool.flat(PerfTool.report(recording, "--time", time, "--no-children", "--sort", "dso,sym",
                "-n", "-g", "none")));
        long perfTotal = perf.values().stream().mapToLong(Long::longValue).sum();
        assertTrue(perfTotal > 0 || !holdsSamples, "perf report keeps samples in " + time);
        assertEquals(perfTotal, result.accounting().delivered(), "samples perf report counts in " + time);
        assertEquals(perfTotal, result.accounting().taken(), "the books hold the samples inside only");
        AgreementWithPerfTest.assertSameRows("flat rows in --time " + time, perf, PerfTool.rows(result));
        assertTrue(result.notes().stream().anyMatch(n -> n.contains("lie outside --time " + time)), result.notes()
                .toString());
    }

    @Test
    void aWindowInSecondsAgreesWithPerf() throws Exception {
        assertAgrees(seconds(at(1 / 3.0)) + "," + seconds(at(2 / 3.0)));
        assertAgrees("," + seconds(at(1 / 3.0)));
        assertAgrees(seconds(at(0.9)) + ",");
    }

    @Test
    void severalWindowsInSecondsAgreeWithPerf() throws Exception {
        assertAgrees(seconds(at(0.2)) + "," + seconds(at(0.4)) + " " + seconds(at(0.6)) + "," + seconds(at(0.8)));
    }

    @Test
    void percentFormsAgreeWithPerf() throws Exception {
        // A slice in the middle may fall in a pause of the recording: it must agree, even on nothing.
        assertAgrees("10%/2", false);
        assertAgrees("25%/1,25%/4");
        assertAgrees("0%-10%,30%-40%");
        assertAgrees("50%");
    }
}
