package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * Writes an ended session in one transaction: the names its rows use (its comms and its images'
 * build-ids among them), its mappings, its stacks, its sample rows, its counters, each buffer's and consumer's books, the host's counters and its ground truth through
 * DuckDB's Appender, then its row with the end and the books. Rows a previous write of the session
 * left are replaced. A failure rolls all of it back, so a session's rows are all there or none.
 */
final class SessionWriter {
    private SessionWriter() {
    }

    static Void write(DuckDBConnection c, SessionRow row, SessionInfo info, SampleRows rows, SessionSummary summary)
            throws SQLException, IOException {
        return StoreFile.inTransaction(c, tx -> writeIn(tx, row, info, rows, summary, true));
    }

    /**
     * The same in the caller's transaction (a checkpoint adds its owner to it). {@code rowsStored}: a
     * checkpoint may have stored rows of the session; when none did, only its owner is there to remove
     * (deleting from each table took 13 ms of a 43k-sample session's end).
     */
    static Void writeIn(DuckDBConnection tx, SessionRow row, SessionInfo info, SampleRows rows, SessionSummary summary,
            boolean rowsStored) throws SQLException {
        long id = row.session().id();
        for (String table : rowsStored ? StoreFile.SESSION_TABLES : List.of("owners")) {
            try (PreparedStatement s = tx.prepareStatement("DELETE FROM " + table + " WHERE session = ?")) {
                s.setLong(1, id);
                s.executeUpdate();
            }
        }
        names(tx, id, info, rows);
        mappings(tx, id, info.dictionary());
        stacks(tx, id, rows.stacks());
        samples(tx, id, rows);
        counters(tx, id, info.counters());
        books(tx, id, summary);
        if (summary.groundTruth() != null) {
            truth(tx, id, summary.groundTruth());
        }
        StoreFile.putSession(tx, row);
        return null;
    }

    private static void counters(DuckDBConnection c, long id, List<CounterConfig> counters) throws SQLException {
        try (DuckDBAppender a = c.createAppender("main", "counters")) {
            for (int slot = 0; slot < counters.size(); slot++) {
                CounterConfig k = counters.get(slot);
                EventDescriptor e = k.event();
                a.beginRow().append(id).append(slot).append(k.counter()).append(e.name()).append(e.code());
                text(a, e.description());
                text(a, e.signal() == null ? null : e.signal().name());
                a.append(e.counterMask()).append(e.minimumCount()).append(k.count()).append(k.unitMask())
                        .append(k.kernel()).append(k.user()).endRow();
            }
        }
    }

    /** Each buffer's and consumer's books and the host's counters, as the summary gives them. */
    private static void books(DuckDBConnection c, long id, SessionSummary summary) throws SQLException {
        try (DuckDBAppender a = c.createAppender("main", "buffers")) {
            int position = 0;
            for (BufferAccounting b : summary.buffers()) {
                Accounting k = b.accounting();
                a.beginRow().append(id).append(position++).append(b.domid()).append(b.vcpu()).append(b.role())
                        .append(k.taken()).append(k.delivered()).append(k.lost()).append(k.dropped())
                        .append(k.invalid()).append(b.userSamples()).append(b.kernelSamples())
                        .append(b.xenSamples()).append(b.drained()).append(b.undrained()).endRow();
            }
        }
        try (DuckDBAppender a = c.createAppender("main", "consumers")) {
            int position = 0;
            for (ConsumerAccounting k : summary.consumers()) {
                a.beginRow().append(id).append(position++).append(k.consumer()).append(k.received())
                        .append(k.missed());
                text(a, k.problem());
                a.endRow();
            }
        }
        try (DuckDBAppender a = c.createAppender("main", "host_counters")) {
            for (Map.Entry<String, Long> k : summary.hostCounters().entrySet()) {
                a.beginRow().append(id).append(k.getKey()).append((long) k.getValue()).endRow();
            }
        }
    }

    private static void text(DuckDBAppender a, String value) throws SQLException {
        if (value == null) {
            a.appendNull();
        } else {
            a.append(value);
        }
    }

    private static void samples(DuckDBConnection c, long id, SampleRows rows) throws SQLException {
        try (DuckDBAppender a = c.createAppender("main", "samples")) {
            for (int r = 0; r < rows.size(); r++) {
                // In the table's column order; mode and flags are TINYINT.
                a.beginRow().append(id).append(rows.column(r, SampleRows.EVENT))
                        .append(rows.column(r, SampleRows.DOMAIN)).append(rows.column(r, SampleRows.VCPU))
                        .append(rows.column(r, SampleRows.CPU)).append((byte) rows.column(r, SampleRows.MODE))
                        .append(rows.column(r, SampleRows.PID)).append(rows.column(r, SampleRows.TID))
                        .append(rows.column(r, SampleRows.IMAGE)).append(rows.column(r, SampleRows.SYMBOL))
                        .append(rows.pc(r)).append(rows.column(r, SampleRows.STACK)).append(rows.bucket(r))
                        .append((byte) rows.column(r, SampleRows.FLAGS)).append(rows.count(r)).append(rows.weight(r))
                        .append(rows.column(r, SampleRows.COMM)).endRow();
            }
        }
    }

    private static void stacks(DuckDBConnection c, long id, StackTable stacks) throws SQLException {
        try (DuckDBAppender a = c.createAppender("main", "stacks")) {
            stacks.forEachFrame((stack, depth, pc, image, symbol, mode) -> a.beginRow().append(id).append(stack)
                    .append(depth).append(pc).append(image).append(symbol).append(mode).endRow());
        }
    }

    /**
     * The domains, the images, symbols and processes the rows and stacks use, the images' build-ids,
     * and every comm (few: one per thread and name; kept whole so that their ids stay the session's).
     */
    private static void names(DuckDBConnection c, long id, SessionInfo info, SampleRows rows) throws SQLException {
        UsedNames used = UsedNames.of(info.dictionary(), rows);
        SessionDictionary d = info.dictionary();
        try (DuckDBAppender a = c.createAppender("main", "names")) {
            for (var domain : new java.util.TreeMap<>(info.domains()).entrySet()) {
                name(a, id, "domain", domain.getKey(), domain.getKey(), domain.getValue(), null);
            }
            for (int image : used.images()) {
                name(a, id, "image", image, d.imageDomain(image), d.imageName(image), d.imageKind(image).name());
            }
            for (int symbol : used.symbols()) {
                a.beginRow().append(id).append("symbol").append((long) symbol).append(d.symbolImage(symbol))
                        .append(d.symbolName(symbol)).appendNull();
                long start = SessionDictionary.isAddress(symbol) ? d.symbolAddress(symbol) : d.symbolStart(symbol);
                if (SessionDictionary.isAddress(symbol) || start != org.hyperprof.api.sample.SampleBatch.UNKNOWN) {
                    a.append(start); // a symbol's: its start in its image's file (perf script's sym+0x1a)
                } else {
                    a.appendNull();
                }
                a.endRow();
            }
            for (long process : used.processes()) {
                int domain = (int) (process >> 32);
                int pid = (int) process;
                String name = d.processName(domain, pid);
                if (name != null) {
                    name(a, id, "process", pid, domain, name, null);
                }
            }
            for (int image : used.images()) {
                String buildId = d.imageBuildId(image);
                if (buildId != null) {
                    name(a, id, "build_id", image, d.imageDomain(image), buildId, null);
                }
            }
            for (int comm = 0; comm < d.commCount(); comm++) {
                String name = d.commName(comm);
                name(a, id, "comm", comm, d.commThread(comm), name == null ? "" : name, null);
            }
        }
    }

    /** The dictionary's mappings, in the order the source met them. */
    private static void mappings(DuckDBConnection c, long id, SessionDictionary d) throws SQLException {
        try (DuckDBAppender a = c.createAppender("main", "mappings")) {
            for (int position = 0; position < d.mappingCount(); position++) {
                ImageMapping m = d.mapping(position);
                a.beginRow().append(id).append(position).append(m.domain()).append(m.pid()).append(m.image())
                        .append(m.start()).append(m.limit()).append(m.fileOffset()).endRow();
            }
        }
    }

    private static void name(DuckDBAppender a, long id, String kind, long key, int owner, String name, String detail)
            throws SQLException {
        a.beginRow().append(id).append(kind).append(key).append(owner).append(name);
        text(a, detail);
        a.appendNull().endRow();
    }

    private static void truth(DuckDBConnection c, long id, GroundTruth truth) throws SQLException {
        try (DuckDBAppender a = c.createAppender("main", "truth")) {
            truthRows(a, id, false, truth.rows());
            truthRows(a, id, true, truth.onBehalf());
        }
    }

    private static void truthRows(DuckDBAppender a, long id, boolean onBehalf, java.util.List<GroundTruth.Row> rows)
            throws SQLException {
        for (GroundTruth.Row r : rows) {
            for (Signal s : Signal.values()) {
                long milli = s.ordinal() < r.signalMilli().length ? r.milli(s) : 0;
                if (milli != 0) {
                    a.beginRow().append(id).append(onBehalf).append(r.domid()).append(r.vcpu())
                            .append((byte) r.mode().code()).append(r.image()).append(r.kind().name())
                            .append(r.symbol()).append(s.name()).append(milli).endRow();
                }
            }
        }
    }
}
