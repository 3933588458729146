package org.hyperprof.shell;

import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;

/**
 * The bnd launcher's main thread: it calls a Callable registered with {@code main.thread=true} once
 * every bundle has started, then stops the framework and exits with the status it returns (the
 * piped session's, or the resident framework's when it leaves).
 */
final class LauncherMain {
    private LauncherMain() {
    }

    static ServiceRegistration<?> register(BundleContext context, Callable<Integer> main) {
        return context.registerService(Callable.class, new WhenStarted(context, main),
                new Hashtable<>(Map.of("main.thread", "true")));
    }

    /**
     * The main thread's work once the framework is up. A class of its own, not a lambda: the bnd
     * launcher checks that the service's class is a {@code Callable<Integer>} by its declared type.
     */
    private static final class WhenStarted implements Callable<Integer> {
        private final BundleContext context;
        private final Callable<Integer> main;

        WhenStarted(BundleContext context, Callable<Integer> main) {
            this.context = context;
            this.main = main;
        }

        @Override
        public Integer call() throws Exception {
            awaitStartLevel(context);
            return main.call();
        }
    }

    /** How long the first line waits for the last start level before it runs anyway. */
    private static final long START_LEVEL_WAIT_SECONDS = 60;

    /**
     * Waits until the framework has reached the highest start level of its bundles (Gogo's consoles
     * start at level 2, after this bundle): the launcher may call before the framework's start level
     * has climbed, and a first line such as {@code echo} would then find no command.
     */
    private static void awaitStartLevel(BundleContext context) throws InterruptedException {
        Bundle system = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
        FrameworkStartLevel framework = system == null ? null : system.adapt(FrameworkStartLevel.class);
        if (framework == null) {
            return;
        }
        int target = 1;
        for (Bundle b : context.getBundles()) {
            BundleStartLevel level = b.adapt(BundleStartLevel.class);
            if (level != null) {
                target = Math.max(target, level.getStartLevel());
            }
        }
        int wanted = target;
        CountDownLatch reached = new CountDownLatch(1);
        FrameworkListener listener = event -> {
            if (framework.getStartLevel() >= wanted) {
                reached.countDown();
            }
        };
        context.addFrameworkListener(listener);
        try {
            if (framework.getStartLevel() < wanted) {
                reached.await(START_LEVEL_WAIT_SECONDS, TimeUnit.SECONDS);
            }
        } finally {
            context.removeFrameworkListener(listener);
        }
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
