package org.hyperprof.web.session;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.report.kit.Shares;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet.Answer;
import org.hyperprof.web.http.Params;

/** What the endpoints that need the session store alone answer, from the store and the request's parameters. */
final class StoreAnswers {
    /** Sessions listed at most at once. */
    static final int MAX_LIMIT = 1000;
    /** Diff rows at most, of images and of symbols each. */
    static final int MAX_TOP = 1000;

    private final SessionStore store;

    StoreAnswers(SessionStore store) {
        this.store = store;
    }

    /** Each endpoint's path and its answer. */
    Map<String, Answer> routes() {
        return Map.of("/api/sessions", this::sessions, "/api/diff", this::diff, "/api/diff/flame", this::diffFlame);
    }

    /**
     * {@code /api/sessions?limit=&offset=&all=}: the stored sessions, newest first, as {@code hp:sessions}
     * lists them (a study's sessions only with {@code all=1}); paged, at most {@link #MAX_LIMIT} at once.
     */
    void sessions(Params params, Json json) throws Exception {
        int limit = params.integer("limit", 1, MAX_LIMIT, 200);
        int offset = params.integer("offset", 0, 1_000_000, 0);
        boolean all = params.flag("all", false);
        List<StoredSession> sessions = store.sessions(new SessionQuery(all, null, null, offset + limit + 1));
        json.beginObject().member("offset", offset).member("limit", limit)
                .member("more", sessions.size() > offset + limit).name("sessions").beginArray();
        for (int i = offset; i < Math.min(sessions.size(), offset + limit); i++) {
            SessionsJson.write(json, sessions.get(i));
        }
        json.endArray().endObject();
    }

    /**
     * {@code /api/diff?a=&b=&top=&event=}: session B against session A (the baseline), as {@code hp:diff}
     * computes it from the store: image and symbol rows, largest |delta| first, each with both shares, the
     * delta in points, the ratio and the noise mark (hp:diff's rule, {@link Shares}); at most {@link #MAX_TOP}
     * rows each.
     */
    void diff(Params params, Json json) throws Exception {
        long a = params.id("a");
        long b = params.id("b");
        int top = params.integer("top", 1, MAX_TOP, 100);
        int event = params.integer("event", 0, 63, 0);
        SessionDiff d = store.diff(stored(a, b, event));
        json.beginObject().name("a");
        SessionsJson.write(json, d.baseline());
        json.name("b");
        SessionsJson.write(json, d.compared());
        json.member("event", d.event()).member("samplesA", d.baselineSamples()).member("samplesB", d.comparedSamples())
                .member("rule", Shares.RULE);
        rows(json, "images", d, d.images(), top);
        rows(json, "symbols", d, d.symbols(), top);
        json.endObject();
    }

    /** {@code /api/diff/flame?a=&b=&event=}: the differential stacks of {@code hp:diff --folded} as one tree ({@link DiffTree}). */
    void diffFlame(Params params, Json json) throws Exception {
        long a = params.id("a");
        long b = params.id("b");
        int event = params.integer("event", 0, 63, 0);
        DiffTree.of(store.diffStacks(stored(a, b, event))).write(json);
    }

    /** The diff of sessions a and b, once both are found stored (else 404). */
    private DiffRequest stored(long a, long b, int event) throws Exception {
        StoredSessions.find(store, a);
        StoredSessions.find(store, b);
        return new DiffRequest(a, b, event, null);
    }

    private static void rows(Json json, String name, SessionDiff d, List<DiffRow> rows, int top) {
        record Figures(DiffRow row, double a, double b) {
        }
        List<Figures> figures = new ArrayList<>(rows.size());
        for (DiffRow r : rows) {
            figures.add(new Figures(r, Shares.share(r.baselineSamples(), d.baselineSamples()),
                    Shares.share(r.comparedSamples(), d.comparedSamples())));
        }
        figures.sort(Comparator.comparingDouble((Figures f) -> -Math.abs(f.b() - f.a()))
                .thenComparing(f -> f.row().domain()).thenComparing(f -> f.row().image())
                .thenComparing(f -> String.valueOf(f.row().symbol())));
        json.member(name + "Count", rows.size()).name(name).beginArray();
        for (Figures f : figures.subList(0, Math.min(top, figures.size()))) {
            json.beginObject().member("domain", f.row().domain()).member("image", f.row().image())
                    .member("symbol", f.row().symbol()).member("samplesA", f.row().baselineSamples())
                    .member("samplesB", f.row().comparedSamples()).member("shareA", f.a()).member("shareB", f.b())
                    .member("deltaPoints", 100 * (f.b() - f.a()))
                    .member("ratio", f.a() == 0 ? Double.NaN : f.b() / f.a())
                    .member("marked", Shares.beyondChance(f.a(), d.baselineSamples(), f.b(), d.comparedSamples()))
                    .endObject();
        }
        json.endArray();
    }
}
