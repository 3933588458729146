package org.hyperprof.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.Filter;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Several kinds of plug-in tracked as one ({@link #tracker}: a DS reference has one interface, so it could not):
 * a service goes to the list of each kind it was registered as, named by that kind's identity property.
 */
final class PluginKinds {
    private record Kind<S>(Class<S> type, PluginIdentity identity, Plugins<S> plugins) {
        void add(Object service, ServiceReference<?> ref) {
            plugins.add(ref, type.cast(service), Plugins.name(ref, identity), Plugins.provider(ref));
        }
    }

    private final List<Kind<?>> kinds = new ArrayList<>();

    /** Adds a kind: its services go to {@code plugins}. */
    <S> PluginKinds kind(Class<S> type, PluginIdentity identity, Plugins<S> plugins) {
        kinds.add(new Kind<>(type, identity, plugins));
        return this;
    }

    /** A service bound: to the list of every kind it was registered as (and can be used as here). */
    void bind(Object service, ServiceReference<?> ref) {
        List<String> classes = List.of((String[]) ref.getProperty(Constants.OBJECTCLASS));
        for (Kind<?> kind : kinds) {
            if (classes.contains(kind.type().getName()) && kind.type().isInstance(service)) {
                kind.add(service, ref);
            }
        }
    }

    /** A service gone: out of every list. */
    void unbind(ServiceReference<?> ref) {
        kinds.forEach(kind -> kind.plugins().remove(ref));
    }

    /**
     * What keeps the lists while it is open: services of these kinds come and go from any thread, as DS would
     * bind them (each is got when added and let go when removed).
     */
    ServiceTracker<Object, Object> tracker(BundleContext context) {
        Filter filter;
        try {
            filter = context.createFilter(filter());
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e); // made of class names: cannot be
        }
        return new ServiceTracker<>(context, filter, null) {
            @Override
            public Object addingService(ServiceReference<Object> ref) {
                Object service = super.addingService(ref);
                if (service != null) {
                    bind(service, ref);
                }
                return service;
            }

            @Override
            public void removedService(ServiceReference<Object> ref, Object service) {
                unbind(ref);
                super.removedService(ref, service);
            }
        };
    }

    /** The filter that selects the services of these kinds. */
    String filter() {
        return kinds.stream().map(kind -> "(objectClass=" + kind.type().getName() + ")")
                .collect(Collectors.joining("", "(|", ")"));
    }
}
