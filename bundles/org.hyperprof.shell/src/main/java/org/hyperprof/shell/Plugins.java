package org.hyperprof.shell;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * The plug-ins of one kind bound right now, each with its name (the kind's service property) and
 * the bundle that provides it. DS adds and removes entries as bundles come and go, from any
 * thread; a listing reads a snapshot.
 *
 * @param <S> the service type
 */
public final class Plugins<S> {
    /**
     * @param key      what identifies the registration (the service reference under DS)
     * @param service  the service object
     * @param name     its name property, e.g. {@code i386/p6}
     * @param provider the providing bundle as {@code symbolic.name version}
     */
    public record Entry<S>(Object key, S service, String name, String provider) {
    }

    private final List<Entry<S>> entries = new CopyOnWriteArrayList<>();

    public void add(Object key, S service, String name, String provider) {
        entries.add(new Entry<>(Objects.requireNonNull(key), Objects.requireNonNull(service), name, provider));
    }

    public void remove(Object key) {
        entries.removeIf(e -> e.key().equals(key));
    }

    /** Sorted by name, then provider. */
    public List<Entry<S>> list() {
        return entries.stream()
                .sorted(Comparator.comparing(Entry<S>::name).thenComparing(Entry<S>::provider))
                .collect(Collectors.toList());
    }

    /** The first plug-in of that name. */
    public Optional<Entry<S>> find(String name) {
        return list().stream().filter(e -> e.name().equals(name)).findFirst();
    }

    /** The entry for that service object. */
    public Optional<Entry<S>> of(Object service) {
        return list().stream().filter(e -> e.service() == service).findFirst();
    }

    /** The names, for "installed are ..." messages. */
    public String names() {
        String s = list().stream().map(Entry::name).distinct().collect(Collectors.joining(", "));
        return s.isEmpty() ? "none" : s;
    }

    /** The plug-in's name, its kind's identity property, or {@code (no <property>)} to list one registered without. */
    public static String name(ServiceReference<?> ref, PluginIdentity identity) {
        return identity.find(ref::getProperty).orElse("(no " + identity.property() + ")");
    }

    /** {@code symbolic.name version} of the bundle that registered the service. */
    public static String provider(ServiceReference<?> ref) {
        Bundle b = ref.getBundle();
        return b == null ? "(unregistered)" : b.getSymbolicName() + " " + b.getVersion();
    }
}
