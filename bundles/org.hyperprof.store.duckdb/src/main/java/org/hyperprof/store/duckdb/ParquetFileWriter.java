package org.hyperprof.store.duckdb;

import java.util.List;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code hp:export parquet parquet FILE [--session N] [--domain D]}: a stored session's aggregated
 * samples with their names as one flat Parquet table ({@link SamplesParquet}). It keeps no session
 * of its own and writes any stored one; so that {@code hp:reports} never loads DuckDB, it lists none.
 */
@Component(service = ReportFileWriter.class, property = ReportRenderer.NAME + "=" + ParquetFileWriter.NAME)
public final class ParquetFileWriter implements ReportFileWriter {
    /** Its {@code report.name}, and its one format. */
    static final String NAME = "parquet";

    private final SessionStore store;

    @Activate
    public ParquetFileWriter(@Reference SessionStore store) {
        this.store = store;
    }

    /** None: it writes the stored sessions (hp:sessions lists them), without keeping any. */
    @Override
    public List<Long> sessions() {
        return List.of();
    }

    @Override
    public List<String> formats() {
        return List.of(NAME + ": a stored session's samples with their names, one flat table (pandas, DuckDB, Spark)");
    }

    @Override
    public Content content(ReportRequest request, String format) throws ReportException {
        if (!format.equals(NAME)) {
            throw new ReportException(NAME + " writes parquet, not '" + format + "'");
        }
        if (!request.options().isEmpty()) {
            throw new ReportException(NAME + " takes no report options (" + String.join(" ", request.options())
                    + "): it writes every row; filter in the query over the file");
        }
        try {
            long id = request.sessionId();
            if (id == ReportRequest.LATEST) {
                id = store.sessions(new SessionQuery(false, null, null, 1)).stream().mapToLong(StoredSession::id)
                        .findFirst().orElseThrow(() -> new ReportException(NAME + ": no stored session yet"
                                + " (hp:sessions)"));
            }
            return store.samplesParquet(id, request.domain() == ReportRequest.ALL_DOMAINS
                    ? SamplesParquet.ALL_DOMAINS : request.domain());
        } catch (StoreException e) {
            throw new ReportException(NAME + ": " + e.getMessage());
        }
    }
}
