package org.hyperprof.command.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.junit.jupiter.api.Test;

/** A session named in the store, and one replayed only when the report does not keep it. */
class SessionStoresTest {
    private final List<Long> replayed = new ArrayList<>();
    private final List<String> looked = new ArrayList<>();
    private final SessionStore store = (SessionStore) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {SessionStore.class}, (proxy, method, args) -> switch (method.getName()) {
                case "named" -> {
                    looked.add((String) args[0]);
                    yield Optional.empty();
                }
                case "replay" -> {
                    replayed.add((Long) args[0]);
                    yield Optional.empty();
                }
                default -> throw new UnsupportedOperationException(method.getName());
            });

    @Test
    void aNameNeedsAStoreThatHasIt() {
        assertEquals("a session is found by its name in the session store, and none is active; give its id, or start"
                + " the bundle org.hyperprof.store.duckdb", assertThrows(IllegalStateException.class,
                        () -> SessionStores.named(null, "base")).getMessage());
        assertEquals("no stored session is named 'base' (hp:sessions lists them)",
                assertThrows(IllegalArgumentException.class, () -> SessionStores.named(store, "base")).getMessage());
    }

    @Test
    void aNameIsLookedUpWithoutItsBlanksAndShownAsGiven() {
        assertEquals("no stored session is named ' base ' (hp:sessions lists them)",
                assertThrows(IllegalArgumentException.class, () -> SessionStores.named(store, " base ")).getMessage());
        assertEquals(List.of("base"), looked);
    }

    @Test
    void onlyASessionTheReportDoesNotKeepIsReplayed() throws StoreException {
        SessionStores.replayIfMissing(store, 7, () -> List.of(7L));
        SessionStores.replayIfMissing(store, ReportRequest.LATEST, () -> {
            throw new AssertionError("not asked for the latest");
        });
        SessionStores.replayIfMissing(null, 8, List::of);
        SessionStores.replayIfMissing(store, 9, List::of);
        assertEquals(List.of(9L), replayed);
    }
}
