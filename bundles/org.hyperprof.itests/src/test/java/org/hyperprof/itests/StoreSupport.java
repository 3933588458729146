package org.hyperprof.itests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Hashtable;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.service.cm.ConfigurationAdmin;

/** What the tests of the session store share: a store of their own, and a session once it is stored. */
final class StoreSupport {
    private StoreSupport() {
    }

    /** Points the store at a new file in the build's output (tests never touch the default store). */
    static Path ownStore(BundleContext context, String hostId) throws Exception {
        Path store = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "store-it").resolve("store.duckdb");
        return storeAt(context, store, hostId);
    }

    /** Points the store at {@code store}, its sessions stored under {@code hostId}. */
    static Path storeAt(BundleContext context, Path store, String hostId) throws Exception {
        Hashtable<String, Object> settings = new Hashtable<>();
        settings.put("path", store.toString());
        settings.put("host.id", hostId);
        Services.await(context, ConfigurationAdmin.class, "").getConfiguration("org.hyperprof.store", "?")
                .update(settings);
        return store;
    }

    /**
     * Whether the store has loaded DuckDB in this framework: its dynamic import of {@code org.duckdb} is wired
     * (at the first use of a DuckDB class) and DuckDB's native library is mapped into the JVM. The mapping
     * alone would not tell: the frameworks of earlier tests in this JVM may have loaded theirs.
     */
    static boolean duckDbLoaded(Bundle store) throws Exception {
        boolean wired = store.adapt(BundleWiring.class).getRequiredWires(PackageNamespace.PACKAGE_NAMESPACE).stream()
                .anyMatch(w -> "org.duckdb".equals(w.getCapability().getAttributes()
                        .get(PackageNamespace.PACKAGE_NAMESPACE)));
        return wired && Files.readString(Path.of("/proc/self/maps")).contains("libduckdb_java");
    }

    /** The session once the store has written its end (the store writes on its own thread, after the profile returns). */
    static StoredSession ended(SessionStore store, long id) throws Exception {
        for (int i = 0; i < 600; i++) {
            StoredSession s = store.session(id).orElse(null);
            if (s != null && !s.status().equals(StoredSession.RUNNING)) {
                return s;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("session " + id + " was not stored within 30 s: " + store.session(id));
    }
}
