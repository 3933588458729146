package org.hyperprof.web.pages;

import java.util.List;

import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.hyperprof.web.session.SessionsJson;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * {@code /api/sessions?limit=&offset=&all=}: the stored sessions, newest first, as {@code hp:sessions}
 * lists them (a study's sessions only with {@code all=1}); paged, at most {@link #MAX_LIMIT} at once.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/sessions",
        Whiteboard.CONTEXT_SELECT})
public final class SessionsApi extends JsonServlet {
    private static final long serialVersionUID = 1L;
    static final int MAX_LIMIT = 1000;

    private final transient SessionStore store;

    @Activate
    public SessionsApi(@Reference(name = "store") SessionStore store) {
        this.store = store;
    }

    @Override
    protected void answer(Params params, Json json) throws Exception {
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
}
