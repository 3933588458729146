package org.hyperprof.command.kit;

import java.io.PrintStream;
import java.util.Optional;
import java.util.regex.Pattern;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;

/**
 * {@code --name}: a session named when a command makes it, as OProfile's {@code opcontrol --save=NAME}
 * named a saved session. The name is kept by the session store (an optional service, null when absent:
 * a command works without it, and then says the name cannot be kept); it is checked before the work, so
 * a taken name costs no run, and given to the session once the command has it.
 */
public final class SessionName {
    /** The option, the same on every command that makes a session. */
    public static final Option OPTION = Option.value("--name", "name", "name the session in the session store"
            + " (unique there, not a number; hp:sessions --name lists it, hp:name renames it)");

    /** A word the grammar reads as a session id: decimal or 0x hex. */
    private static final Pattern NUMBER = Pattern.compile("[-+]?[0-9]+|0[xX][0-9a-fA-F]+");

    private SessionName() {
    }

    /**
     * Before the work: refuses a name that is a number or that a stored session has; says on {@code talk}
     * when no store is installed to keep it. Null (no {@code --name}) passes.
     */
    public static void check(SessionStore store, String name, PrintStream talk) throws UsageException {
        if (name == null) {
            return;
        }
        if (name.isBlank() || NUMBER.matcher(name.strip()).matches()) {
            throw new UsageException("--name takes a name that is not a number (a number names a session by its"
                    + " id), not '" + name + "'");
        }
        if (store == null) {
            talk.println("note: no session store is installed (bundle org.hyperprof.store.duckdb), so the name "
                    + name.strip() + " cannot be kept");
            return;
        }
        Optional<StoredSession> holder;
        try {
            holder = store.named(name.strip());
        } catch (StoreException e) {
            // The store cannot be read now: the name is tried again when the session is made.
            return;
        }
        if (holder.isPresent()) {
            throw new UsageException("--name " + name.strip() + " is taken by stored session " + holder.get().id()
                    + " (names are unique; hp:name " + holder.get().id() + " --clear frees it)");
        }
    }

    /** After the work: gives session {@code id} the name, or says on {@code talk} why it could not be kept. */
    public static void keep(SessionStore store, long id, String name, PrintStream talk) {
        if (name == null || store == null) {
            return;
        }
        try {
            if (!store.name(id, name)) {
                talk.println("note: the name " + name.strip() + " was not kept: the session store holds no session "
                        + id + " (is it off? hp:config org.hyperprof.store)");
            }
        } catch (StoreException e) {
            talk.println("note: the name " + name.strip() + " was not kept: " + e.getMessage());
        }
    }
}
