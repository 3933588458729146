package org.hyperprof.web.server;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;

/**
 * The bundles that serve HTTP, started by {@code hp:serve} only. The launcher installs them at a start
 * level after this bundle's; {@link #keepStopped} stops them (persistently) before that level comes, as
 * the shell keeps the unused Gogo console from starting, so a start that serves nothing neither loads
 * Jetty nor opens a port. SPI Fly first: it must be there when slf4j, which Jetty logs through, loads.
 */
final class HttpBundles {
    /** The service-loader mediator slf4j 2 needs in OSGi. */
    static final String SPI_FLY = "org.apache.aries.spifly.dynamic.bundle";
    /** Felix HTTP: Jetty 12 and the Servlet whiteboard. */
    static final String JETTY = "org.apache.felix.http.jetty12";
    /** In the order they start. */
    static final List<String> ON_DEMAND = List.of(SPI_FLY, JETTY);

    private final BundleContext context;
    /**
     * SPI Fly's java.util.logging logger, kept at warnings: its lines of INFO (each provider it registers)
     * would land in the shell's output. Held here, since java.util.logging keeps loggers weakly.
     */
    private final Logger spiFlyLog = Logger.getLogger("org.apache.aries.spifly");

    HttpBundles(BundleContext context) {
        this.context = context;
        spiFlyLog.setLevel(Level.WARNING);
    }

    /** Stops every installed one that is not running yet, so that its start level does not start it. */
    void keepStopped() {
        for (Bundle b : installed()) {
            if (b.getState() != Bundle.ACTIVE && b.getState() != Bundle.STARTING) {
                try {
                    b.stop();
                } catch (BundleException | IllegalStateException e) {
                    System.err.println("hyperprof: " + b.getSymbolicName() + " could not be kept from starting ("
                            + e.getMessage() + "); the web view's server may start before hp:serve");
                }
            }
        }
    }

    /** Starts them, in order, now (their start level lowered to the framework's where it is above). */
    void start() throws ServeException {
        List<Bundle> bundles = installed();
        if (bundles.stream().noneMatch(b -> JETTY.equals(b.getSymbolicName()))) {
            throw new ServeException("the web server bundle " + JETTY + " is not installed; install it (and "
                    + SPI_FLY + ") to serve the view");
        }
        int active = context.getBundle(Constants.SYSTEM_BUNDLE_ID).adapt(FrameworkStartLevel.class).getStartLevel();
        for (Bundle b : bundles) {
            BundleStartLevel level = b.adapt(BundleStartLevel.class);
            if (level != null && level.getStartLevel() > active) {
                level.setStartLevel(active);
            }
            try {
                b.start(Bundle.START_TRANSIENT);
            } catch (BundleException e) {
                throw new ServeException("the web server bundle " + b.getSymbolicName() + " did not start: "
                        + e.getMessage());
            }
        }
    }

    /** Stops them (transiently: the next framework start keeps them stopped again). */
    void stop() {
        List<Bundle> bundles = installed();
        for (int i = bundles.size() - 1; i >= 0; i--) {
            Bundle b = bundles.get(i);
            if (JETTY.equals(b.getSymbolicName())) {
                try {
                    b.stop(Bundle.STOP_TRANSIENT);
                } catch (BundleException | IllegalStateException e) {
                    System.err.println("hyperprof: the web server bundle did not stop: " + e.getMessage());
                }
            }
        }
    }

    private List<Bundle> installed() {
        List<Bundle> found = new ArrayList<>();
        for (String name : ON_DEMAND) {
            for (Bundle b : context.getBundles()) {
                if (name.equals(b.getSymbolicName()) && b.getState() != Bundle.UNINSTALLED) {
                    found.add(b);
                }
            }
        }
        return found;
    }
}
