package org.hyperprof.store.duckdb;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.store.QueryRows;

/**
 * {@code hp:sql}'s query, run on a connection that can read the store and nothing else. The engine
 * itself refuses the rest, so no text of the user's is ever inspected: the connection is opened
 * read-only (no INSERT, DELETE, CREATE), with external access off (no file read or written:
 * {@code read_text}, {@code read_csv}, {@code COPY ... TO}, {@code ATTACH}, {@code INSTALL}, {@code LOAD})
 * and its configuration locked (no {@code SET} or {@code RESET} turns them back on), all before the
 * query runs; the settings are checked in force before it does.
 */
final class LockedQuery {
    /** The connection's settings, given when it is opened. */
    static Properties lockdown() {
        Properties p = new Properties();
        p.setProperty("access_mode", "READ_ONLY");
        p.setProperty("enable_external_access", "false");
        p.setProperty("lock_configuration", "true");
        return p;
    }

    private static final String IN_FORCE = "SELECT current_setting('access_mode') = 'read_only'"
            + " AND NOT current_setting('enable_external_access') AND current_setting('lock_configuration')";

    private LockedQuery() {
    }

    /** Runs {@code sql} on {@code c}, a connection opened with {@link #lockdown()}; at most {@code maxRows} kept. */
    static QueryRows run(DuckDBConnection c, String sql, int maxRows) throws SQLException, Refused {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(IN_FORCE)) {
            if (!r.next() || !r.getBoolean(1)) {
                throw new Refused("the store's read-only connection is not locked down as it must be;"
                        + " no query was run");
            }
        }
        try (Statement s = c.createStatement()) {
            if (!s.execute(sql)) {
                return new QueryRows(List.of(), List.of(), 0);
            }
            try (ResultSet r = s.getResultSet()) {
                ResultSetMetaData m = r.getMetaData();
                List<String> columns = new ArrayList<>();
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    columns.add(m.getColumnLabel(i));
                }
                List<List<String>> rows = new ArrayList<>();
                long leftOff = 0;
                while (r.next()) {
                    if (rows.size() == maxRows) {
                        leftOff++;
                        continue;
                    }
                    List<String> row = new ArrayList<>(columns.size());
                    for (int i = 1; i <= columns.size(); i++) {
                        row.add(r.getString(i));
                    }
                    rows.add(row);
                }
                return new QueryRows(columns, rows, leftOff);
            }
        } catch (SQLException e) {
            // The engine's refusal or error is the answer: its first line, with no trace.
            throw new Refused("the query was refused: " + StoreFile.message(e));
        }
    }

    /** The engine refused the query, or the connection was not locked down: the message says which. */
    static final class Refused extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }
}
