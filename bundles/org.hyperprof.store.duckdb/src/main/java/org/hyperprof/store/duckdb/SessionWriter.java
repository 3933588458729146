package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.sql.SQLException;

import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;

/**
 * Writes an ended session in one transaction: the names its rows use, its stacks, its sample rows
 * and its ground truth through DuckDB's Appender, then its row with the end and the books. A failure
 * rolls all of it back, so a session's rows are all there or none.
 */
final class SessionWriter {
    private SessionWriter() {
    }

    static Void write(DuckDBConnection c, SessionRow row, SessionInfo info, SampleRows rows, GroundTruth truth)
            throws SQLException, IOException {
        long id = row.session().id();
        return StoreFile.inTransaction(c, tx -> {
            names(tx, id, info, rows);
            stacks(tx, id, rows.stacks());
            samples(tx, id, rows);
            if (truth != null) {
                truth(tx, id, truth);
            }
            StoreFile.putSession(tx, row);
            return null;
        });
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
                        .endRow();
            }
        }
    }

    private static void stacks(DuckDBConnection c, long id, StackTable stacks) throws SQLException {
        try (DuckDBAppender a = c.createAppender("main", "stacks")) {
            stacks.forEachFrame((stack, depth, pc, image, symbol, mode) -> a.beginRow().append(id).append(stack)
                    .append(depth).append(pc).append(image).append(symbol).append(mode).endRow());
        }
    }

    /** The domains, and the images, symbols and processes the rows and stacks use. */
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
                if (SessionDictionary.isAddress(symbol)) {
                    a.append(d.symbolAddress(symbol));
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
        }
    }

    private static void name(DuckDBAppender a, long id, String kind, long key, int owner, String name, String detail)
            throws SQLException {
        a.beginRow().append(id).append(kind).append(key).append(owner).append(name);
        if (detail == null) {
            a.appendNull();
        } else {
            a.append(detail);
        }
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
