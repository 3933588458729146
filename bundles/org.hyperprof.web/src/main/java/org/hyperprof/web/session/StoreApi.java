package org.hyperprof.web.session;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.web.http.JsonRoutes;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * The endpoints that need the session store alone, as JSON ({@link StoreAnswers}): {@code /api/sessions} (the
 * stored sessions), {@code /api/diff} (two sessions' differential table) and {@code /api/diff/flame} (their
 * differential stacks as one tree).
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/sessions",
        "osgi.http.whiteboard.servlet.pattern=/api/diff", "osgi.http.whiteboard.servlet.pattern=/api/diff/flame",
        Whiteboard.CONTEXT_SELECT})
public final class StoreApi extends JsonRoutes {
    private static final long serialVersionUID = 1L;

    @Activate
    public StoreApi(@Reference(name = "store") SessionStore store) {
        super(new StoreAnswers(store).routes());
    }
}
