package org.hyperprof.source.perf;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.report.SortedReporter;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code hp:report --sort comm,dso,sym} (or {@code pid,dso,sym}, {@code comm}, {@code pid}): a stored
 * session fed from the session store to a {@link SortedReport} made for the request, the one
 * {@code hp:import --sort} prints, so a session reported later prints as its import did. Made on
 * request, not counted live: no consumer of every session for a report asked for now and then, and
 * the store keeps each sample's comm (schema version 3).
 */
@Component(service = SortedReporter.class)
public final class SortedReports implements SortedReporter {

    /** Rows printed when the request names no number: hp:import's --top default. */
    static final int DEFAULT_TOP = 30;

    /** Where the sessions are read from; optional, as every consumer is (null when absent). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    @Activate
    public SortedReports() {
    }

    /** Plain Java: reads from {@code store}. */
    public SortedReports(SessionStore store) {
        this.store = store;
    }

    @Override
    public void print(ReportRequest request, String keys, Appendable out) throws IOException, ReportException {
        SortKeys sortKeys = keys(keys);
        int top = DEFAULT_TOP;
        for (String option : request.options()) {
            String o = option.strip();
            String lower = o.toLowerCase(Locale.ROOT);
            if (lower.startsWith("top=")) {
                top = top(o.substring("top=".length()));
            } else if (!lower.equals("format=text")) {
                throw new ReportException("--sort takes top=N only (the N largest rows, default " + DEFAULT_TOP
                        + "), not '" + o + "'");
            }
        }
        if (request.domain() != ReportRequest.ALL_DOMAINS) {
            throw new ReportException("--sort reports every domain, as perf report does; leave out --domain");
        }
        SessionStore sessions = store;
        if (sessions == null) {
            throw new ReportException("--sort reads the session from the session store, and none is active; start"
                    + " the bundle org.hyperprof.store.duckdb (sessions are stored from then on)");
        }
        SortedReport report = new SortedReport(sortKeys);
        try {
            long id = id(sessions, request.sessionId());
            // The report counts as the import's did; the session it saw names its events.
            sessions.replay(id, report).orElseThrow(() -> new ReportException(
                    "the session store holds no session " + id + " (hp:sessions lists them)"));
        } catch (StoreException e) {
            throw new ReportException("--sort: " + e.getMessage());
        }
        StringBuilder text = new StringBuilder();
        report.print(text, events(report.session()), top);
        out.append(text);
    }

    /** The session asked for: the newest stored one for {@link ReportRequest#LATEST}. */
    private static long id(SessionStore sessions, long asked) throws StoreException, ReportException {
        if (asked != ReportRequest.LATEST) {
            return asked;
        }
        List<StoredSession> newest = sessions.sessions(new SessionQuery(true, null, null, 1));
        if (newest.isEmpty()) {
            throw new ReportException("the session store holds no session yet; import or record one (hp:import,"
                    + " hp:record), then ask again");
        }
        return newest.get(0).id();
    }

    private static SortKeys keys(String list) throws ReportException {
        SortKeys keys;
        try {
            keys = SortKeys.parse(list);
        } catch (IllegalArgumentException e) {
            throw new ReportException(e.getMessage());
        }
        if (!keys.byProcess()) {
            throw new ReportException("--sort " + keys + " is perf report's default flat profile, which hp:import"
                    + " prints; hp:report --sort takes comm,dso,sym, pid,dso,sym, comm or pid");
        }
        return keys;
    }

    private static int top(String n) throws ReportException {
        try {
            int top = Integer.parseInt(n.strip());
            if (top > 0) {
                return top;
            }
        } catch (NumberFormatException e) {
            // Said below.
        }
        throw new ReportException("top=" + n + " is no number of rows; give one from 1, e.g. top=30");
    }

    /** The session's events as the import names them: perf's event names, comma-separated. */
    private static String events(SessionInfo info) {
        StringJoiner names = new StringJoiner(",");
        for (CounterConfig c : info.counters()) {
            names.add(c.event().name());
        }
        return names.toString();
    }
}
