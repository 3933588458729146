package org.hyperprof.api.plugin;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a kind of plug-in is known: by the value of one service property, stated once by the
 * plug-in's component (for example {@code cpu.type=i386/p6}). Whoever binds plug-ins of the kind
 * reads their identity here, and only from that property, so that a plug-in is found under the
 * name it registered with. Each plug-in interface holds its kind as {@code IDENTITY}.
 *
 * @param property the service property, e.g. {@code cpu.type}
 * @param kind     the kind in words, for messages, e.g. {@code CPU model}
 * @param example  a value the property may have, for messages, e.g. {@code i386/p6}
 */
public record PluginIdentity(String property, String kind, String example) {

    public PluginIdentity {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(example, "example");
    }

    /**
     * The identity of {@code plugin}, from the properties it was registered with.
     *
     * @throws IllegalArgumentException when the property is missing or blank, naming the plug-in's
     *                                  class and the property it must register with
     */
    public String of(Map<String, ?> serviceProperties, Object plugin) {
        return of(serviceProperties::get, plugin);
    }

    /**
     * As {@link #of(Map, Object)}, for a caller that holds a lookup of the service's properties
     * (a {@code ServiceReference::getProperty}).
     */
    public String of(Function<String, ?> serviceProperty, Object plugin) {
        return find(serviceProperty).orElseThrow(() -> new IllegalArgumentException("the " + kind + " "
                + (plugin == null ? "(null)" : plugin.getClass().getName()) + " was registered without its "
                + property + " service property, the name it is known by; register it with one (for example "
                + property + "=" + example + ")"));
    }

    /**
     * The identity from a lookup of the service's properties, or empty when the property is missing
     * or blank (for listings that show such a plug-in all the same). A multi-valued property is
     * known by its first value.
     */
    public Optional<String> find(Function<String, ?> serviceProperty) {
        Object value = serviceProperty.apply(property);
        if (value instanceof String[] values) {
            value = values.length == 0 ? null : values[0];
        }
        String text = value == null ? null : value.toString().strip();
        return text == null || text.isEmpty() ? Optional.empty() : Optional.of(text);
    }
}
