package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;

import org.hyperprof.api.store.StoreException;

/**
 * {@code hp:export parquet parquet FILE}: a session's aggregated samples joined with their names, one
 * flat Parquet table to open in pandas, DuckDB or Spark (README: "Archives"). One row per stored
 * row: the event as the session names it, the domain, process, comm, image and symbol by name next to their
 * ids, the callers' symbols (innermost first) as a list, the time bucket's start in nanoseconds.
 * DuckDB writes it in a {@link PrivateFolder}; OutputFiles places it.
 */
final class SamplesParquet {
    /** Every domain's rows. */
    static final int ALL_DOMAINS = -1;

    private SamplesParquet() {
    }

    /** The query over session {@code id} (and {@code domain}, or all): numbers only, nothing of the user's. */
    static String query(long id, int domain) {
        return "WITH callers AS (SELECT st.stack_id, list(coalesce(sy.name, printf('0x%x', st.pc)) ORDER BY st.depth)"
                + " AS callers FROM stacks st LEFT JOIN names sy ON sy.session = st.session AND sy.kind = 'symbol'"
                + " AND sy.id = st.symbol WHERE st.session = " + id + " GROUP BY st.stack_id)"
                + " SELECT s.session, ses.host_id AS host, ses.events[s.event + 1] AS event, s.domain,"
                + " dn.name AS domain_name, s.vcpu, s.cpu,"
                + " CASE s.mode WHEN 0 THEN 'user' WHEN 1 THEN 'kernel' WHEN 2 THEN 'hypervisor' END AS mode,"
                + " s.pid, s.tid, pn.name AS process, s.comm, cn.name AS comm_name, s.image AS image_id, im.name AS image, im.detail AS image_kind,"
                + " s.symbol AS symbol_id, sy.name AS symbol, s.pc, s.stack_id, c.callers,"
                + " CASE WHEN s.time_bucket < 0 THEN NULL ELSE s.time_bucket * ses.time_bucket_ns END AS time_ns,"
                + " s.flags, s.samples, s.weight"
                + " FROM samples s JOIN sessions ses ON ses.id = s.session"
                + " LEFT JOIN names dn ON dn.session = s.session AND dn.kind = 'domain' AND dn.id = s.domain"
                + " LEFT JOIN names pn ON pn.session = s.session AND pn.kind = 'process' AND pn.id = s.pid"
                + " AND pn.owner = s.domain"
                + " LEFT JOIN names cn ON cn.session = s.session AND cn.kind = 'comm' AND cn.id = s.comm"
                + " LEFT JOIN names im ON im.session = s.session AND im.kind = 'image' AND im.id = s.image"
                + " LEFT JOIN names sy ON sy.session = s.session AND sy.kind = 'symbol' AND sy.id = s.symbol"
                + " LEFT JOIN callers c ON c.stack_id = s.stack_id"
                + " WHERE s.session = " + id + (domain == ALL_DOMAINS ? "" : " AND s.domain = " + domain)
                + " ORDER BY s.samples DESC, s.event, s.domain, s.image, s.symbol, s.pc, s.stack_id, s.time_bucket,"
                + " s.vcpu, s.cpu, s.mode, s.pid, s.tid, s.flags, s.comm";
    }

    /** Writes the Parquet file of session {@code id} to {@code out}. */
    static void write(StoreFile store, long id, int domain, OutputStream out) throws IOException {
        try (PrivateFolder folder = PrivateFolder.make("hyperprof-parquet-")) {
            Path file = folder.file("samples.parquet");
            try {
                store.read(c -> {
                    try (Statement s = c.createStatement()) {
                        s.execute("COPY (" + query(id, domain) + ") TO " + PrivateFolder.literal(file)
                                + " (FORMAT parquet)");
                    }
                    return null;
                }, null);
            } catch (StoreException e) {
                throw new IOException(e.getMessage(), e);
            }
            if (!Files.exists(file)) {
                throw new IOException("the session store " + store.path() + " is gone");
            }
            Files.copy(file, out);
        }
    }
}
