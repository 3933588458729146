package org.hyperprof.shell;

import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.Callable;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * The bnd launcher's main thread: it calls a Callable registered with {@code main.thread=true} once
 * every bundle has started, then stops the framework and exits with the status it returns (the
 * piped session's, or the resident framework's when it leaves).
 */
final class LauncherMain {
    private LauncherMain() {
    }

    static ServiceRegistration<?> register(BundleContext context, Callable<Integer> main) {
        return context.registerService(Callable.class, main, new Hashtable<>(Map.of("main.thread", "true")));
    }

    /** Takes the registration back, if there is one. */
    static void unregister(ServiceRegistration<?> main) {
        if (main != null) {
            try {
                main.unregister();
            } catch (IllegalStateException alreadyGone) {
                // The framework unregisters it itself when the bundle stops first.
            }
        }
    }
}
