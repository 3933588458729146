package org.hyperprof.web.session;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * {@code /api/flame?id=&domain=}: a stored session's flame graph as the flame graph bundle's compact
 * JSON (the tree aggregated on the server, frames too narrow to see left out, the SVG's colours).
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/flame",
        Whiteboard.CONTEXT_SELECT})
public final class FlameApi extends JsonServlet {
    private static final long serialVersionUID = 1L;

    /** Flame graphs of ended sessions kept, so that opening one again costs no new query nor tree. */
    static final int CACHED = 4;

    private final transient SessionStore store;
    private final transient ReportFileWriter flamegraph;
    /** By session and domain; only sessions that ended (their samples no longer change). */
    private final transient Map<String, String> cache = new LinkedHashMap<>(8, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > CACHED;
        }
    };

    @Activate
    public FlameApi(@Reference(name = "store") SessionStore store,
            @Reference(name = "flamegraph", target = "(report.name=flamegraph)") ReportFileWriter flamegraph) {
        this.store = store;
        this.flamegraph = flamegraph;
    }

    @Override
    protected void answer(Params params, Json json) throws Exception {
        long id = params.id("id");
        int domain = params.integer("domain", -1, 65535, ReportRequest.ALL_DOMAINS);
        String key = id + "/" + domain;
        String cached;
        synchronized (cache) {
            cached = cache.get(key);
        }
        if (cached == null) {
            boolean ended = !StoredSession.RUNNING.equals(StoredSessions.find(store, id).status());
            if (ended) {
                try {
                    // the consumer draws an ended session it does not keep from the store's summed stacks
                    cached = render(id, domain);
                } catch (ReportException notFromTheStore) {
                    cached = null;
                }
            }
            if (cached == null) {
                StoredSessions.ready(store, id, flamegraph.sessions());
                cached = render(id, domain);
            }
            if (ended) {
                synchronized (cache) {
                    cache.put(key, cached);
                }
            }
        }
        json.raw(cached);
    }

    private String render(long id, int domain) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
        flamegraph.content(new ReportRequest(id, domain, Set.of()), "json").writeTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
