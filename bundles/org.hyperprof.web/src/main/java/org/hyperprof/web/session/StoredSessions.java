package org.hyperprof.web.session;

import java.util.List;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.web.http.JsonServlet.NotFound;

/**
 * A stored session made ready for a consumer's report: a consumer keeps only the last few sessions,
 * so one it no longer holds is replayed from the store first, as {@code hp:report --session} does.
 */
public final class StoredSessions {
    private StoredSessions() {
    }

    /** The stored session, or {@link NotFound} naming the id. */
    public static StoredSession find(SessionStore store, long id) throws NotFound, StoreException {
        return store.session(id).orElseThrow(() -> new NotFound("no stored session has the id " + id
                + " (the sessions page, or hp:sessions, lists them)"));
    }

    /** Replays the session when the consumer does not keep it. */
    public static synchronized void ready(SessionStore store, long id, List<Long> kept) throws NotFound, StoreException {
        find(store, id);
        if (!kept.contains(id)) {
            store.replay(id);
        }
    }
}
