package org.hyperprof.pmu.kit;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;

import org.hyperprof.api.pmu.EventTable;

/**
 * The data files a model bundle ships beside its classes (event tables, unit masks, wiring). A
 * model bundle is named as its package ({@code org.hyperprof.pmu.p6}), so messages name the bundle
 * to rebuild from the class that owns the resources.
 */
public final class ModelResources {
    private ModelResources() {
    }

    /**
     * Opens {@code path}, relative to {@code owner}'s package, as UTF-8 text.
     *
     * @throws IllegalStateException naming the resource and the bundle when it is missing
     */
    public static Reader open(Class<?> owner, String path) {
        InputStream in = owner.getResourceAsStream(path);
        if (in == null) {
            throw new IllegalStateException("resource " + owner.getPackageName().replace('.', '/') + "/" + path
                    + " is missing from bundle " + bundle(owner) + "; rebuild the bundle");
        }
        return new InputStreamReader(in, StandardCharsets.UTF_8);
    }

    /** What reads one data file. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(Reader in) throws IOException;
    }

    /**
     * The event table of {@code cpuType}, read from OProfile's {@code events} and {@code unit_masks}
     * files at {@code eventsPath} and {@code unitMasksPath} (relative to {@code owner}'s package).
     *
     * @throws IllegalStateException when a file is missing or malformed, naming it and the bundle
     */
    public static EventTable eventTable(Class<?> owner, String cpuType, String eventsPath, String unitMasksPath) {
        try (Reader events = open(owner, eventsPath); Reader unitMasks = open(owner, unitMasksPath)) {
            return EventTableReader.parse(cpuType, events, unitMasks);
        } catch (IOException e) {
            throw unreadable(cpuType + " event table", owner, e);
        }
    }

    /**
     * What {@code parser} makes of the data file at {@code path} (relative to {@code owner}'s package).
     *
     * @param what the data, for the message when it cannot be read ({@code i386/p4 wiring})
     * @throws IllegalStateException when the file is missing or malformed, naming it and the bundle
     */
    public static <T> T parse(Class<?> owner, String path, String what, Parser<T> parser) {
        try (Reader in = open(owner, path)) {
            return parser.parse(in);
        } catch (IOException e) {
            throw unreadable(what, owner, e);
        }
    }

    /**
     * The error for model data that is there but cannot be read: "the {@code what} shipped in
     * bundle ... is unreadable: ...".
     */
    public static IllegalStateException unreadable(String what, Class<?> owner, IOException e) {
        return new IllegalStateException("the " + what + " shipped in bundle " + bundle(owner) + " is unreadable: "
                + e.getMessage(), e);
    }

    private static String bundle(Class<?> owner) {
        return owner.getPackageName();
    }
}
