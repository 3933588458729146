package org.hyperprof.itests;

import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.util.tracker.ServiceTracker;

/** Waits for services instead of sleeping. */
final class Services {
    private Services() {
    }

    static <T> T await(BundleContext context, Class<T> type, String filter) throws InterruptedException {
        String f = "(&(objectClass=" + type.getName() + ")" + (filter == null ? "" : filter) + ")";
        Filter parsed;
        try {
            parsed = FrameworkUtil.createFilter(f);
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException(f, e);
        }
        ServiceTracker<T, T> tracker = new ServiceTracker<>(context, parsed, null);
        tracker.open();
        T service = tracker.waitForService(TimeUnit.SECONDS.toMillis(20));
        if (service == null) {
            throw new AssertionError("no " + f + " service within 20 s");
        }
        return service;
    }
}
