package org.hyperprof.store.duckdb;

import java.nio.file.Files;
import java.nio.file.Path;

import org.hyperprof.api.store.StoreException;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.VersionRange;

/**
 * DuckDB's JDBC bundle in a framework, made ready at the store's first use and never before: it is an
 * 80 MB jar, and a framework that stores nothing should not pay for installing it. One that is
 * installed (Karaf's feature, a resolve from the repository index, a test's set-up) is used; else the
 * jar the framework property {@value #LOCATION} names is installed as a {@code reference:} bundle,
 * which Felix reads in place instead of copying it into its cache. Its classes then come through the
 * store bundle's dynamic import of {@code org.duckdb}.
 */
final class EngineBundle implements Engine {
    /** The framework property naming DuckDB's JDBC jar (the launcher sets it). */
    static final String LOCATION = "hyperprof.store.engine";
    static final String SYMBOLIC_NAME = "org.duckdb.duckdb_jdbc";
    /** As the store bundle's DynamicImport-Package (bnd.bnd). */
    static final VersionRange VERSIONS = new VersionRange("[2,3)");

    private final BundleContext context;
    private volatile boolean ready;

    EngineBundle(BundleContext context) {
        this.context = context;
    }

    /**
     * Synchronized: two sessions starting at once install it once. Its callers hold no lock of DS or of
     * the store's, since installing and starting a bundle sends framework events to their listeners.
     */
    @Override
    public synchronized void ready() throws StoreException {
        if (ready) {
            return;
        }
        Bundle duckdb = installed();
        String location = duckdb == null ? location() : duckdb.getLocation();
        try {
            if (duckdb == null) {
                duckdb = context.installBundle(location);
            }
            duckdb.start();
        } catch (BundleException | IllegalStateException | SecurityException e) {
            throw new StoreException("DuckDB's JDBC bundle " + location + " could not be started: " + e.getMessage(), e);
        }
        ready = true;
    }

    private Bundle installed() {
        for (Bundle b : context.getBundles()) {
            if (SYMBOLIC_NAME.equals(b.getSymbolicName()) && VERSIONS.includes(b.getVersion())) {
                return b;
            }
        }
        return null;
    }

    private String location() throws StoreException {
        String jar = context.getProperty(LOCATION);
        if (jar == null || jar.isBlank()) {
            throw new StoreException("DuckDB's JDBC bundle (" + SYMBOLIC_NAME + " " + VERSIONS
                    + ") is not installed: install it, or name its jar in the framework property " + LOCATION);
        }
        Path path = Path.of(jar.strip()).toAbsolutePath();
        if (!Files.isRegularFile(path)) {
            throw new StoreException(LOCATION + " names " + path + ", which is no file: DuckDB's JDBC bundle ("
                    + SYMBOLIC_NAME + " " + VERSIONS + ") is needed there");
        }
        // Felix decodes the escaped path of a reference:file: location.
        return "reference:file:" + path.toUri().getRawPath();
    }
}
