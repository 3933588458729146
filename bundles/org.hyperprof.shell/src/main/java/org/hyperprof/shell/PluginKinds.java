package org.hyperprof.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

/**
 * Several kinds of plug-in bound through one DS reference, whose target names their interfaces ({@link #filter()}):
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

    /** The target that selects the services of these kinds, as the DS reference spells it. */
    String filter() {
        return kinds.stream().map(kind -> "(objectClass=" + kind.type().getName() + ")")
                .collect(Collectors.joining("", "(|", ")"));
    }
}
