package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.StoreException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The differential profile against shares worked out by hand. A (session 1): schedule 600, tcp_v4_rcv
 * 300, main 100 samples in 1 s; B (session 2, its ids in another order): 980, 620 and 400 in 4 s.
 * Every sample stands for 1000 events.
 */
class SessionDiffTest {
    private static final double EXACT = 1e-12;

    @TempDir
    Path folder;

    private StoreFixture f;

    @BeforeEach
    void twoSessions() {
        f = TwoSessions.handWorked(folder);
    }

    private SessionDiff diff(String domain) throws StoreException {
        return f.store.diff(new DiffRequest(1, 2, 0, domain));
    }

    private static DiffFigures figures(SessionDiff d, List<DiffRow> rows, String name) {
        DiffRow row = rows.stream().filter(r -> name.equals(r.symbol() == null ? r.image() : r.symbol())).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + name + " in " + rows));
        return DiffFigures.of(row, d);
    }

    @Test
    void rowsAreMatchedByNameThoughEachSessionNumbersThemItsOwnWay() throws Exception {
        SessionDiff d = diff(null);
        assertEquals(1000, d.baselineSamples());
        assertEquals(2000, d.comparedSamples());
        assertEquals(1_000_000, d.baselineWeight());
        assertEquals(2_000_000, d.comparedWeight());
        assertEquals(1_000_000_000L, d.baselineNanos());
        assertEquals(4_000_000_000L, d.comparedNanos());
        assertEquals(3, d.symbols().size(), d.symbols().toString());
        assertEquals(new DiffRow("Domain-0", "vmlinux", "schedule", 600, 980, 600_000, 980_000),
                d.symbols().stream().filter(r -> r.symbol().equals("schedule")).findFirst().orElseThrow());
        assertEquals(List.of(new DiffRow("Domain-0", "vmlinux", null, 900, 1600, 900_000, 1_600_000),
                new DiffRow("domU", "/usr/bin/app", null, 100, 400, 100_000, 400_000)),
                d.images().stream().sorted(java.util.Comparator.comparing(DiffRow::domain)).toList());
    }

    @Test
    void sharesDeltasRatiosAndRatesAreThoseWorkedOutByHand() throws Exception {
        SessionDiff d = diff(null);
        // schedule: 600/1000 = 0.6 in A, 980/2000 = 0.49 in B: -11 points, ratio 0.49/0.6.
        DiffFigures schedule = figures(d, d.symbols(), "schedule");
        assertEquals(0.6, schedule.shareA(), EXACT);
        assertEquals(0.49, schedule.shareB(), EXACT);
        assertEquals(-11.0, schedule.deltaPoints(), 1e-9);
        assertEquals(0.49 / 0.6, schedule.ratio(), EXACT);
        // 600 samples × 1000 events in 1 s; 980 × 1000 in 4 s.
        assertEquals(600_000, schedule.rateA(), 1e-6);
        assertEquals(245_000, schedule.rateB(), 1e-6);
        assertEquals(245_000.0 / 600_000, schedule.rateRatio(), EXACT);
        // main: 0.1 and 0.2: +10 points, twice the share; 100,000 events/s both times.
        DiffFigures main = figures(d, d.symbols(), "main");
        assertEquals(10.0, main.deltaPoints(), 1e-9);
        assertEquals(2.0, main.ratio(), EXACT);
        assertEquals(1.0, main.rateRatio(), EXACT);
        // The image summary: vmlinux 0.9 and 0.8.
        DiffFigures vmlinux = figures(d, d.images(), "vmlinux");
        assertEquals(-10.0, vmlinux.deltaPoints(), 1e-9);
    }

    @Test
    void aDeltaIsMarkedBeyondThreeStandardErrorsOfTheDifference() throws Exception {
        SessionDiff d = diff(null);
        // schedule: 3·√(0.6·0.4/1000 + 0.49·0.51/2000) = 3·√0.00036495 = 0.0573 < 0.11: marked.
        assertTrue(figures(d, d.symbols(), "schedule").marked());
        // main: 3·√(0.1·0.9/1000 + 0.2·0.8/2000) = 3·√0.00017 = 0.0391 < 0.10: marked.
        assertTrue(figures(d, d.symbols(), "main").marked());
        // tcp_v4_rcv: 0.3 to 0.31, 3·√(0.3·0.7/1000 + 0.31·0.69/2000) = 3·√0.00031695 = 0.0534 > 0.01: not marked.
        assertFalse(figures(d, d.symbols(), "tcp_v4_rcv").marked());
    }

    @Test
    void aDomainByNameOrIdHasSharesOfItsOwnSamples() throws Exception {
        for (String domain : List.of("Domain-0", "0")) {
            SessionDiff d = diff(domain);
            assertEquals(900, d.baselineSamples(), domain);
            assertEquals(1600, d.comparedSamples(), domain);
            assertEquals(2, d.symbols().size(), domain);
            // schedule: 600/900 in A, 980/1600 in B.
            assertEquals(100 * (980.0 / 1600 - 600.0 / 900), figures(d, d.symbols(), "schedule").deltaPoints(), 1e-9);
        }
        StoreException e = assertThrows(StoreException.class, () -> diff("dom7"));
        assertEquals("neither session has a domain 'dom7'; their domains are 0 Domain-0, 1 domU (give a name or"
                + " an id)", e.getMessage());
    }

    @Test
    void sessionsOfDifferentEventsAndUnknownSessionsAreRefused() {
        TwoSessions.profile(f, 3, false, 10, 10, 10, 1, TwoSessions.INSTRUCTIONS);
        StoreException e = assertThrows(StoreException.class, () -> f.store.diff(new DiffRequest(1, 3, 0, null)));
        assertEquals("sessions 1 and 3 counted different events (CPU_CLK_UNHALTED:0x00 and INST_RETIRED:0x00):"
                + " their samples are no measure of the same thing, so they are not compared", e.getMessage());
        e = assertThrows(StoreException.class, () -> f.store.diff(new DiffRequest(1, 9, 0, null)));
        assertEquals("no stored session 9 (hp:sessions lists them)", e.getMessage());
    }
}
