package org.hyperprof.store.duckdb;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;

/**
 * What is said of a session after it is made: its name, its labels, the study that made it. Each is
 * kept in the open session while it runs ({@link OpenSession}) and updated in its stored row after.
 */
final class SessionMarks {
    /** A word the commands would read as a session id: decimal or 0x hex, as the grammar's numbers. */
    static final Pattern NUMBER = Pattern.compile("[-+]?[0-9]+|0[xX][0-9a-fA-F]+");
    private static final int LONGEST = 200;

    private SessionMarks() {
    }

    /** The name stripped, or null to take it away; refused when it could not name one session. */
    static String checkName(String name) throws StoreException {
        if (name == null) {
            return null;
        }
        String n = name.strip();
        if (n.isEmpty() || n.length() > LONGEST || n.chars().anyMatch(Character::isISOControl)) {
            throw new StoreException("a session's name is 1 to " + LONGEST + " characters on one line, not '" + name
                    + "'");
        }
        if (NUMBER.matcher(n).matches()) {
            throw new StoreException("a session's name cannot be a number ('" + n + "'): a number names a session"
                    + " by its id");
        }
        return n;
    }

    /** The labels, each one word without commas (hp:sessions prints them joined by commas). */
    static List<String> checkLabels(Collection<String> labels) throws StoreException {
        Set<String> out = new LinkedHashSet<>();
        for (String l : labels) {
            String t = l == null ? "" : l.strip();
            if (t.isEmpty() || t.length() > LONGEST || t.contains(",") || t.chars().anyMatch(
                    c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
                throw new StoreException("a label is one word of 1 to " + LONGEST + " characters without commas, not"
                        + " '" + l + "'");
            }
            out.add(t);
        }
        return List.copyOf(out);
    }

    /** {@code labels} with {@code given} added, or taken away, in their order. */
    static List<String> relabel(List<String> labels, List<String> given, boolean remove) {
        Set<String> out = new LinkedHashSet<>(labels);
        if (remove) {
            given.forEach(out::remove);
        } else {
            out.addAll(given);
        }
        return List.copyOf(out);
    }

    /** Refuses a name that {@code holder}, another session than {@code id}, has. */
    static void checkFree(Optional<StoredSession> holder, long id, String name) throws StoreException {
        if (name != null && holder.isPresent() && holder.get().id() != id) {
            throw taken(name, holder.get().id());
        }
    }

    static StoreException taken(String name, long holder) {
        return new StoreException("the name '" + name + "' is taken by session " + holder + " (names are unique in"
                + " a store; hp:name " + holder + " --clear frees it)");
    }

    static boolean name(DuckDBConnection c, long id, String name) throws SQLException {
        return update(c, id, "name = ?", name);
    }

    static boolean label(DuckDBConnection c, long id, List<String> labels, boolean remove) throws SQLException {
        Optional<StoredSession> s = StoreFile.session(c, id);
        if (s.isEmpty()) {
            return false;
        }
        return update(c, id, "labels = ?", StoreFile.strings(c, relabel(s.get().labels(), labels, remove)));
    }

    static boolean study(DuckDBConnection c, long id, String study) throws SQLException {
        return update(c, id, "study = ?, hidden = true", study);
    }

    private static boolean update(DuckDBConnection c, long id, String set, Object value) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE sessions SET " + set + " WHERE id = ?")) {
            s.setObject(1, value);
            s.setLong(2, id);
            return s.executeUpdate() > 0;
        }
    }
}
