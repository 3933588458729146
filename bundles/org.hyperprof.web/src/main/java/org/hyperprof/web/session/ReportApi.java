package org.hyperprof.web.session;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * {@code /api/report?id=&domain=&top=}: a stored session's report as {@code hp:report --format json}
 * gives it (opreport's rows: the merged report of all domains, then each domain's; images and symbols;
 * samples, share, true share and error where the source is the simulator; the books), plus the store's
 * record of the session (notes, labels). At most {@link #MAX_TOP} symbol rows per section.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/report",
        Whiteboard.CONTEXT_SELECT})
public final class ReportApi extends JsonServlet {
    private static final long serialVersionUID = 1L;
    static final int MAX_TOP = 500;

    private final transient SessionStore store;
    private final transient ReportRenderer opreport;

    @Activate
    public ReportApi(@Reference(name = "store") SessionStore store,
            @Reference(name = "opreport", target = "(report.name=opreport)") ReportRenderer opreport) {
        this.store = store;
        this.opreport = opreport;
    }

    @Override
    protected void answer(Params params, Json json) throws Exception {
        long id = params.id("id");
        int domain = params.integer("domain", -1, 65535, ReportRequest.ALL_DOMAINS);
        int top = params.integer("top", 1, MAX_TOP, 100);
        var session = StoredSessions.find(store, id);
        StoredSessions.ready(store, id, opreport.sessions());
        Set<String> options = new LinkedHashSet<>(List.of("images", "symbols", "format=json", "top=" + top));
        StringBuilder report = new StringBuilder();
        opreport.render(new ReportRequest(id, domain, options), report);
        json.beginObject().name("stored");
        SessionsJson.write(json, session);
        json.name("notes").beginArray();
        session.notes().forEach(json::value);
        json.endArray().member("books", session.accounting() == null ? null : session.accounting().line());
        json.name("report").raw(report.toString().strip()).endObject();
    }
}
