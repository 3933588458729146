package org.hyperprof.source.perf;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Names of record types, feature bits and generic events, from the {@code perf-names.properties}
 * resource. Immutable once loaded.
 */
final class PerfNames {

    private static final Map<String, String> NAMES = load();

    private PerfNames() {
    }

    private static Map<String, String> load() {
        Properties p = new Properties();
        try (InputStream in = PerfNames.class.getResourceAsStream("perf-names.properties")) {
            if (in == null) {
                throw new IllegalStateException("perf-names.properties is missing from the bundle; it is defective");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("perf-names.properties cannot be read", e);
        }
        Map<String, String> m = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            m.put(k, p.getProperty(k).trim());
        }
        return Map.copyOf(m);
    }

    /** A record type's name, e.g. {@code MMAP2}, or {@code type<N>} for a type the format does not define. */
    static String record(int type) {
        return NAMES.getOrDefault("record." + type, "type" + type);
    }

    /** A feature bit's name, e.g. {@code BUILD_ID}. */
    static String feature(int bit) {
        return NAMES.getOrDefault("feature." + bit, "feature" + bit);
    }

    /** perf's generic name of an event ({@code cpu-clock}), or {@code <type>:0x<config>}. */
    static String event(long type, long config) {
        String n = NAMES.get("event." + type + "." + config);
        if (n != null) {
            return n;
        }
        return NAMES.getOrDefault("type." + type, "pmu" + type) + ":0x" + Long.toHexString(config);
    }
}
