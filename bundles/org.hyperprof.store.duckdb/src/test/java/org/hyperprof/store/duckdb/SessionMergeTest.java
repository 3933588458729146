package org.hyperprof.store.duckdb;

import static org.hyperprof.store.duckdb.StoreFixture.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** hp:merge as opreport merges sample files: names interned anew, rows and books added up. */
class SessionMergeTest {
    @TempDir
    Path folder;

    @Test
    void aMergeAddsUpRowsByNameAndBooksAndNamesItsOrigin() throws Exception {
        StoreFixture f = TwoSessions.handWorked(folder);
        long id = f.store.merge(List.of(1L, 2L), "both");
        assertTrue(id > 0 && id != 1 && id != 2);

        StoredSession m = f.store.session(id).orElseThrow();
        assertEquals("merge", m.source());
        assertEquals("both", m.name());
        assertEquals(StoredSession.COMPLETED, m.status());
        assertEquals(List.of(1L, 2L), m.origin());
        assertEquals(3000, m.samples());
        assertEquals(5_000_000_000L, m.profiledNanos());
        // Each session's books: taken = delivered + 4 (1 lost, 3 dropped).
        assertEquals(new Accounting(3008, 3000, 2, 6, 0), m.accounting());
        assertEquals(List.of("CPU_CLK_UNHALTED:100000:0x00"), m.events());
        // The consumers' books summed by consumer; the counters are the first session's (the same events).
        assertEquals(List.of("store 3000 0"), query(f.path, "SELECT consumer, received, missed FROM consumers WHERE"
                + " session = " + id));
        assertEquals(List.of("0 CPU_CLK_UNHALTED 100000"), query(f.path, "SELECT slot, event, count FROM counters"
                + " WHERE session = " + id));

        // One image per (domain, name, kind), one symbol per (image, name), one stack: ids from 0 (stacks from
        // 1); schedule (symbol 0) is called from tcp_v4_rcv (stack 1).
        assertEquals(List.of("domain 0 Domain-0", "domain 1 domU", "image 0 vmlinux", "image 1 /usr/bin/app",
                "process 700 app", "symbol 0 schedule", "symbol 1 tcp_v4_rcv", "symbol 2 main"),
                query(f.path, "SELECT kind, id, name FROM names WHERE session = " + id + " ORDER BY kind, id"));
        assertEquals(List.of("1 0 0 1"), query(f.path, "SELECT stack_id, depth, image, symbol FROM stacks WHERE"
                + " session = " + id));
        assertEquals(List.of("0 1 1580 1580000", "1 0 920 920000", "2 0 500 500000"), query(f.path, "SELECT symbol,"
                + " stack_id, sum(samples), sum(weight) FROM samples WHERE session = " + id + " GROUP BY ALL ORDER BY"
                + " symbol"));
    }

    @Test
    void aMergedSessionDiffsAsTheSumOfItsParts() throws Exception {
        StoreFixture f = TwoSessions.handWorked(folder);
        long id = f.store.merge(List.of(1L, 2L), null);
        DiffRow schedule = f.store.diff(new DiffRequest(1, id, 0, null)).symbols().stream()
                .filter(r -> r.symbol().equals("schedule")).findFirst().orElseThrow();
        assertEquals(new DiffRow("Domain-0", "vmlinux", "schedule", 600, 1580, 600_000, 1_580_000), schedule);
    }

    @Test
    void sessionsOfOtherEventsRunningOrUnknownOnesAreNotMerged() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        TwoSessions.profile(f, 1, false, 6, 3, 1, 1);
        TwoSessions.profile(f, 2, false, 6, 3, 1, 1, TwoSessions.INSTRUCTIONS);
        f.store.sessionStarted(f.info(3, "simulator"));
        assertEquals("sessions 1 and 2 counted different events (CPU_CLK_UNHALTED:100000:0x00 and"
                + " INST_RETIRED:100000:0x00); only sessions of the same events merge",
                assertThrows(StoreException.class, () -> f.store.merge(List.of(1L, 2L), null)).getMessage());
        assertEquals("session 3 is still running; merge it once it has ended",
                assertThrows(StoreException.class, () -> f.store.merge(List.of(1L, 3L), null)).getMessage());
        assertEquals("no stored session 8 (hp:sessions lists them); nothing was merged",
                assertThrows(StoreException.class, () -> f.store.merge(List.of(1L, 8L), null)).getMessage());
        assertEquals(3, f.store.info().sessions(), "nothing was added");
    }
}
