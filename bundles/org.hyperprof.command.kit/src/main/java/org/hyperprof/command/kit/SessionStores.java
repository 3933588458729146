package org.hyperprof.command.kit;

import java.util.Collection;
import java.util.function.Supplier;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;

/**
 * What a report command asks of the session store (an optional service: null when absent): the session a
 * {@code --session NAME} names, and a stored session replayed for a report that no longer keeps it.
 */
public final class SessionStores {
    private SessionStores() {
    }

    /**
     * The id of the stored session named {@code name} (blanks around it ignored; the message shows it as given).
     *
     * @throws IllegalStateException    with no store
     * @throws IllegalArgumentException when no stored session has that name
     */
    public static long named(SessionStore store, String name) throws StoreException {
        if (store == null) {
            throw new IllegalStateException("a session is found by its name in the session store, and none is"
                    + " active; give its id, or start the bundle org.hyperprof.store.duckdb");
        }
        return store.named(name.strip()).orElseThrow(() -> new IllegalArgumentException("no stored session is named '"
                + name + "' (hp:sessions lists them)")).id();
    }

    /**
     * Replays session {@code id} from the store when the report does not keep it ({@code kept}, asked only
     * then), so that it renders it; nothing for the latest session or with no store.
     */
    public static void replayIfMissing(SessionStore store, long id, Supplier<? extends Collection<Long>> kept)
            throws StoreException {
        if (id != ReportRequest.LATEST && store != null && !kept.get().contains(id)) {
            store.replay(id);
        }
    }
}
