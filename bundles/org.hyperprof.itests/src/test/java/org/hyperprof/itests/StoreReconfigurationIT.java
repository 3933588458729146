package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.junit.Test;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;

/**
 * The store's settings change in place: between two sessions, a new host id (hp:config's way, through
 * Configuration Admin) never takes the store's services away, so the profile that follows at once is
 * stored under the new settings and the one before it stays listed. A store disposed and made anew
 * for the change left a window in which a profile ran with no store bound, unstored and unsaid, and
 * hp:sessions was "not found".
 */
public class StoreReconfigurationIT extends InFramework {

    public StoreReconfigurationIT() {
        super("opreport", "metatype", "fileinstall", "gogo", "shell");
    }

    @Test
    public void settingsChangedBetweenTwoSessionsKeepTheStoreAndStoreBoth() throws Exception {
        Path file = StoreSupport.ownStore(context, "before");
        installAndStart("duckdb");
        installAndStart("store");
        SessionStore store = Services.await(context, SessionStore.class, "");
        hosts().load(org.hyperprof.api.host.HostService.DEFAULT_SCENARIO, null);
        List<ServiceEvent> left = new CopyOnWriteArrayList<>();
        ServiceListener listener = e -> {
            if (e.getType() == ServiceEvent.UNREGISTERING) {
                left.add(e);
            }
        };
        context.addServiceListener(listener, "(objectClass=" + SessionStore.class.getName() + ")");
        try {
            long first = profile(profiler(), 20_000).sessionId();
            StoreSupport.storeAt(context, file, "after");
            // Configuration Admin delivers the change on a thread of its own: it is in force once the
            // service says the new host id.
            ServiceReference<SessionStore> ref = context.getServiceReference(SessionStore.class);
            for (int i = 0; i < 200 && !"after".equals(ref.getProperty("host.id")); i++) {
                Thread.sleep(50);
            }
            assertEquals("the new host id is in force", "after", ref.getProperty("host.id"));
            long second = profile(profiler(), 20_000).sessionId();
            assertEquals("before", StoreSupport.ended(store, first).hostId());
            StoredSession s = StoreSupport.ended(store, second);
            assertEquals("after", s.hostId());
            assertEquals(StoredSession.COMPLETED, s.status());
            assertEquals("the store's service never left: " + left, List.of(), left);
            String listed = gogo("hp:sessions");
            assertTrue(listed, listed.contains(Long.toString(first)) && listed.contains(Long.toString(second)));
        } finally {
            context.removeServiceListener(listener);
        }
    }
}
