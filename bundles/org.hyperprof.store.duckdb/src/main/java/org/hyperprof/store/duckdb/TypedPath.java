package org.hyperprof.store.duckdb;

import java.nio.file.Path;

import org.hyperprof.shell.session.WorkingFolder;

/** The file a typed name means, for every command here that takes one. */
final class TypedPath {
    private TypedPath() {
    }

    /**
     * From the command line's folder (the shell's WorkingFolder: a resident framework's client's, {@code ~/})
     * when the shell is installed, else from this process's.
     */
    static Path of(String typed) {
        try {
            return WorkingFolder.resolve(typed);
        } catch (NoClassDefFoundError e) {
            // org.hyperprof.shell.session is imported optionally (bnd.bnd): no shell, no client folders.
            return Path.of(typed).toAbsolutePath();
        }
    }
}
