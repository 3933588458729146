package org.hyperprof.pmu.kit;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;

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
