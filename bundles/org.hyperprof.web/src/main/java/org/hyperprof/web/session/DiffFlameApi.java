package org.hyperprof.web.session;

import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /api/diff/flame?a=&b=&event=}: the differential stacks of {@code hp:diff --folded} as one tree ({@link DiffTree}). */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/diff/flame",
        Whiteboard.CONTEXT_SELECT})
public final class DiffFlameApi extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient SessionStore store;

    @Activate
    public DiffFlameApi(@Reference(name = "store") SessionStore store) {
        this.store = store;
    }

    @Override
    protected void answer(Params params, Json json) throws Exception {
        long a = params.id("a");
        long b = params.id("b");
        int event = params.integer("event", 0, 63, 0);
        StoredSessions.find(store, a);
        StoredSessions.find(store, b);
        DiffTree.of(store.diffStacks(new DiffRequest(a, b, event, null))).write(json);
    }
}
