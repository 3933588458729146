package org.hyperprof.web.session;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.report.kit.Shares;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * {@code /api/diff?a=&b=&top=&event=}: session B against session A (the baseline), as {@code hp:diff}
 * computes it from the store: image and symbol rows, largest |delta| first, each with both shares, the
 * delta in points, the ratio and the noise mark (hp:diff's rule, {@link Shares}); at most {@link #MAX_TOP} rows each.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/diff",
        Whiteboard.CONTEXT_SELECT})
public final class DiffApi extends JsonServlet {
    private static final long serialVersionUID = 1L;
    static final int MAX_TOP = 1000;

    private final transient SessionStore store;

    @Activate
    public DiffApi(@Reference(name = "store") SessionStore store) {
        this.store = store;
    }

    @Override
    protected void answer(Params params, Json json) throws Exception {
        long a = params.id("a");
        long b = params.id("b");
        int top = params.integer("top", 1, MAX_TOP, 100);
        int event = params.integer("event", 0, 63, 0);
        StoredSessions.find(store, a);
        StoredSessions.find(store, b);
        SessionDiff d = store.diff(new DiffRequest(a, b, event, null));
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
