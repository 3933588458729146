package org.hyperprof.shell;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.command.kit.UsageException;

/**
 * A pid a component's Metatype describes: what {@code hp:config} lists and what a file of the
 * configuration folder is checked against before it reaches Configuration Admin.
 *
 * @param pid      the Configuration Admin pid
 * @param name     the Metatype's name for it
 * @param bundle   the symbolic name of the bundle whose Metatype it is
 * @param settings its attributes
 */
record ConfigurablePid(String pid, String name, String bundle, List<Setting> settings) {

    ConfigurablePid {
        settings = List.copyOf(settings);
    }

    /** @throws UsageException for a key the Metatype does not have, naming the keys it has */
    Setting setting(String key) throws UsageException {
        for (Setting s : settings) {
            if (s.key().equals(key)) {
                return s;
            }
        }
        throw new UsageException("unknown key '" + key + "' of " + pid + "; its keys are "
                + String.join(", ", settings.stream().map(Setting::key).toList()));
    }

    /**
     * The values as Configuration Admin keeps them, each checked against its attribute.
     *
     * @throws UsageException for the first unknown key or refused value, naming it
     */
    Map<String, Object> check(Map<String, String> values) throws UsageException {
        Map<String, Object> typed = new TreeMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            typed.put(e.getKey(), setting(e.getKey()).convert(e.getValue()));
        }
        return typed;
    }
}
