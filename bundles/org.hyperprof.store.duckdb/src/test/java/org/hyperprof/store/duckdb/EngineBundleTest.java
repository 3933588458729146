package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.store.StoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Version;

/**
 * DuckDB's bundle at the store's first use: an installed one is used, else the jar
 * hyperprof.store.engine names is installed in place, once however many sessions start together;
 * with neither, the session is not stored, with one line that says which bundle to install.
 */
class EngineBundleTest {
    @TempDir
    Path folder;

    /** A framework's bundles, properties and the locations installed, as the store sees them. */
    static final class Framework {
        final List<Bundle> bundles = Collections.synchronizedList(new ArrayList<>());
        final Map<String, String> properties = new HashMap<>();
        final List<String> installed = Collections.synchronizedList(new ArrayList<>());
        final List<String> started = Collections.synchronizedList(new ArrayList<>());

        Bundle bundle(String name, String version, String location) {
            return (Bundle) Proxy.newProxyInstance(Bundle.class.getClassLoader(), new Class<?>[] {Bundle.class},
                    (p, m, args) -> switch (m.getName()) {
                        case "getSymbolicName" -> name;
                        case "getVersion" -> Version.parseVersion(version);
                        case "getLocation", "toString" -> location;
                        case "start" -> {
                            started.add(location);
                            yield null;
                        }
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }

        BundleContext context() {
            return (BundleContext) Proxy.newProxyInstance(BundleContext.class.getClassLoader(),
                    new Class<?>[] {BundleContext.class}, (p, m, args) -> switch (m.getName()) {
                        case "getBundles" -> bundles.toArray(new Bundle[0]);
                        case "getProperty" -> properties.get((String) args[0]);
                        case "installBundle" -> {
                            Bundle b = bundle(EngineBundle.SYMBOLIC_NAME, "2.0.0.1", (String) args[0]);
                            installed.add((String) args[0]);
                            bundles.add(b);
                            yield b;
                        }
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }
    }

    private final ByteArrayOutputStream problems = new ByteArrayOutputStream();

    /** The store component of {@code fixture}'s file in framework {@code f}; its "not stored" lines in problems. */
    private SessionStoreComponent storeIn(Framework f, StoreFixture fixture) {
        return new SessionStoreComponent(new StoreSettings(fixture.path, true, "testhost", 2000),
                new EngineBundle(f.context()), new PrintStream(problems, true, StandardCharsets.UTF_8));
    }

    @Test
    void anInstalledDuckDbBundleIsStartedAndNothingIsInstalled() throws Exception {
        Framework f = new Framework();
        f.bundles.add(f.bundle("org.hyperprof.api", "2.0.0", "mvn:api"));
        f.bundles.add(f.bundle(EngineBundle.SYMBOLIC_NAME, "2.0.0.1", "mvn:duckdb"));
        f.properties.put(EngineBundle.LOCATION, folder.resolve("unused.jar").toString());

        new EngineBundle(f.context()).ready();

        assertEquals(List.of(), f.installed);
        assertEquals(List.of("mvn:duckdb"), f.started);
    }

    @Test
    void aDuckDbBundleOfAnotherMajorVersionIsNotTakenForIt() throws Exception {
        Framework f = new Framework();
        f.bundles.add(f.bundle(EngineBundle.SYMBOLIC_NAME, "1.4.0", "mvn:old-duckdb"));
        Path jar = Files.createFile(folder.resolve("duckdb_jdbc-2.0.0.1.jar"));
        f.properties.put(EngineBundle.LOCATION, jar.toString());

        new EngineBundle(f.context()).ready();

        assertEquals(List.of("reference:file:" + jar), f.installed);
    }

    @Test
    void withNoneInstalledTheNamedJarIsInstalledInPlaceOnceForSessionsStartingTogether() throws Exception {
        Framework f = new Framework();
        Path jar = Files.createFile(folder.resolve("duckdb_jdbc-2.0.0.1.jar"));
        f.properties.put(EngineBundle.LOCATION, jar.toString());
        EngineBundle engine = new EngineBundle(f.context());
        List<Throwable> failed = Collections.synchronizedList(new ArrayList<>());
        List<Thread> sessions = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                try {
                    engine.ready();
                } catch (StoreException | RuntimeException e) {
                    failed.add(e);
                }
            });
            sessions.add(t);
            t.start();
        }
        for (Thread t : sessions) {
            t.join();
        }

        assertEquals(List.of(), failed);
        assertEquals(List.of("reference:file:" + jar), f.installed, "a reference: location, read in place");
        assertEquals(List.of("reference:file:" + jar), f.started);
    }

    @Test
    void withNeitherTheSessionIsNotStoredWithOneLineNamingTheBundleToInstall() {
        Framework f = new Framework();
        StoreFixture fixture = new StoreFixture(folder.resolve("store.duckdb"));
        SessionStoreComponent store = storeIn(f, fixture);

        store.sessionStarted(fixture.info(9, "simulator"));
        store.samples(fixture.batch(9));
        store.sessionEnded(StoreFixture.ended(9, 10, 0));

        assertEquals(List.of("hyperprof: session 9 not stored: DuckDB's JDBC bundle (org.duckdb.duckdb_jdbc"
                + " [2.0.0,3.0.0)) is not installed: install it, or name its jar in the framework property"
                + " hyperprof.store.engine"), problems.toString(StandardCharsets.UTF_8).lines().toList());
        assertFalse(Files.exists(fixture.path), "no store file without DuckDB");
    }

    @Test
    void aStoreStoppingWithASessionOpenNeverInstallsDuckDbInItsDeactivation() throws Exception {
        Framework f = new Framework();
        StoreFixture fixture = new StoreFixture(folder.resolve("store.duckdb"));
        SessionStoreComponent store = storeIn(f, fixture);
        store.sessionStarted(fixture.info(9, "simulator"));
        // DuckDB's jar turns up only now: the stopping store must not install it.
        f.properties.put(EngineBundle.LOCATION, Files.createFile(folder.resolve("duckdb_jdbc-2.0.0.1.jar")).toString());

        store.deactivate();

        assertEquals(List.of("hyperprof: session 9 not stored: the store stopped, and DuckDB was never ready in it"),
                problems.toString(StandardCharsets.UTF_8).lines().toList());
        assertEquals(List.of(), f.installed);
    }

    @Test
    void aNamedJarThatIsNoFileIsSaidSo() {
        Framework f = new Framework();
        f.properties.put(EngineBundle.LOCATION, folder.resolve("gone.jar").toString());

        StoreException e = assertThrows(StoreException.class,
                () -> new EngineBundle(f.context()).ready());

        assertTrue(e.getMessage().startsWith("hyperprof.store.engine names " + folder.resolve("gone.jar")
                + ", which is no file"), e.getMessage());
        assertEquals(List.of(), f.installed);
    }
}
