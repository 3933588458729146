package org.hyperprof.store.duckdb;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;
import org.hyperprof.demangle.Demangler;

/**
 * A stored session's call stacks with their samples, summed by the engine from the samples table in one
 * parameterised query, their call chains read once from the stacks table and named from one read of
 * the names: what a flame graph of a stored session needs, without replaying a million samples
 * through the pipeline. Rows that differ only in what a flame graph does not show (vCPU, CPU, tid,
 * PC, time) are one; two ids that print the same are left to the tree to merge.
 */
final class StackQuery {
    /** The rows summed by what a flame graph tells apart: ids only, named in Java from one read of the names. */
    private static final String ROWS = "SELECT domain, pid, comm, image, symbol, stack_id, sum(samples) FROM samples"
            + " WHERE session = ? AND event = ? AND (? < 0 OR domain = ?) GROUP BY ALL";
    /**
     * Every frame of every call chain in order, outermost caller first (depth 0 is the innermost), image
     * and symbol packed in one BIGINT: two columns, and each chain a run of rows that becomes its array
     * without a lookup per frame. (A list() per chain, 60,000 rows rather than 800,000, read slower:
     * the driver makes a result set of each list.)
     */
    private static final String CHAINS = "SELECT stack_id, (image::BIGINT << 32) | (symbol::BIGINT & 4294967295)"
            + " FROM stacks WHERE session = ? ORDER BY stack_id, depth DESC";
    private static final String DEMANGLED = "SELECT demangled FROM sessions WHERE id = ?";
    private static final String NAMES = "SELECT kind, id, name, detail FROM names WHERE session = ?"
            + " AND kind IN ('domain', 'comm', 'image', 'symbol')";

    private static final DiffStack.Frame[] NO_FRAMES = {};

    private StackQuery() {
    }

    static List<StoredStack> stacks(DuckDBConnection c, long id, int event, int domain)
            throws SQLException, StoreException {
        StoredSession session = StoreFile.session(c, id).orElseThrow(() -> new StoreException(
                "no stored session " + id + " (hp:sessions lists them)"));
        if (event < 0 || event >= session.events().size()) {
            throw new StoreException("session " + id + " has " + session.events().size() + " event(s) ("
                    + String.join(", ", session.events()) + "); there is no event " + event
                    + ": ask for one from 0 to " + (session.events().size() - 1));
        }
        Names names = Names.read(c, id);
        Map<Integer, DiffStack.Frame[]> chains = chains(c, id, names);
        List<StoredStack> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(ROWS)) {
            s.setLong(1, id);
            s.setInt(2, event);
            s.setInt(3, domain);
            s.setInt(4, domain);
            try (ResultSet q = s.executeQuery()) {
                while (q.next()) {
                    int d = q.getInt(1);
                    int comm = q.getInt(3);
                    String process = comm < 0 ? null
                            : names.comms.getOrDefault(comm, "?") + " (" + q.getInt(2) + ")";
                    DiffStack.Frame[] callers = chains.getOrDefault(q.getInt(6), NO_FRAMES);
                    DiffStack.Frame[] frames = Arrays.copyOf(callers, callers.length + 1);
                    frames[callers.length] = names.frame(q.getInt(4), q.getInt(5));
                    // List.of copies the array once; the record's List.copyOf then keeps that list.
                    out.add(new StoredStack(d, names.domains.getOrDefault(d, Integer.toString(d)), process,
                            List.of(frames), q.getLong(7)));
                }
            }
        }
        return out;
    }

    /** Each stack's callers, outermost first (arrays: a million-sample session has some 60,000 chains). */
    private static Map<Integer, DiffStack.Frame[]> chains(DuckDBConnection c, long id, Names names)
            throws SQLException {
        Map<Integer, DiffStack.Frame[]> chains = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(CHAINS)) {
            s.setLong(1, id);
            try (ResultSet q = s.executeQuery()) {
                DiffStack.Frame[] run = new DiffStack.Frame[64];
                int length = 0;
                int stack = 0;
                while (q.next()) {
                    int next = q.getInt(1);
                    if (next != stack && length > 0) {
                        chains.put(stack, Arrays.copyOf(run, length));
                        length = 0;
                    }
                    stack = next;
                    long frame = q.getLong(2);
                    if (length == run.length) {
                        run = Arrays.copyOf(run, length * 2);
                    }
                    run[length++] = names.frame((int) (frame >>> 32), (int) frame);
                }
                if (length > 0) {
                    chains.put(stack, Arrays.copyOf(run, length));
                }
            }
        }
        return chains;
    }

    /** The session's names by id; each frame made once and shared by every stack that has it. */
    private static final class Names {
        final Map<Integer, String> domains = new HashMap<>();
        final Map<Integer, String> comms = new HashMap<>();
        final Map<Integer, String> images = new HashMap<>();
        final Map<Integer, ImageKind> kinds = new HashMap<>();
        final Map<Integer, String> symbols = new HashMap<>();
        final Map<Long, DiffStack.Frame> frames = new HashMap<>();
        /** The session's reports showed names demangled (as the replay's dictionary does), or null. */
        Demangler demangler;

        static Names read(DuckDBConnection c, long id) throws SQLException {
            Names n = new Names();
            try (PreparedStatement s = c.prepareStatement(DEMANGLED)) {
                s.setLong(1, id);
                try (ResultSet q = s.executeQuery()) {
                    // Rows older than version 3 do not say: reports demangled then, as they do by default.
                    Boolean on = q.next() ? (Boolean) q.getObject(1) : Boolean.TRUE;
                    n.demangler = on == null || on ? new Demangler() : null;
                }
            }
            try (PreparedStatement s = c.prepareStatement(NAMES)) {
                s.setLong(1, id);
                try (ResultSet q = s.executeQuery()) {
                    while (q.next()) {
                        int key = (int) q.getLong(2);
                        String name = q.getString(3);
                        switch (q.getString(1)) {
                            case "domain" -> n.domains.put(key, name);
                            case "comm" -> n.comms.put(key, name);
                            case "image" -> {
                                n.images.put(key, name);
                                n.kinds.put(key, kind(q.getString(4)));
                            }
                            default -> n.symbols.put(key, name);
                        }
                    }
                }
            }
            return n;
        }

        /** Code of {@code image}, named by {@code symbol}, or by none when the symbol is an address one (below 0). */
        DiffStack.Frame frame(int image, int symbol) {
            return frames.computeIfAbsent(((long) image << 32) | (symbol & 0xffffffffL),
                    k -> new DiffStack.Frame(images.getOrDefault(image, "?"), kinds.getOrDefault(image,
                            ImageKind.UNKNOWN), symbol < 0 ? null : shown(symbols.getOrDefault(symbol, "?"))));
        }

        /** A symbol's name as the session's reports show it (each frame's name is made once). */
        private String shown(String raw) {
            return demangler == null ? raw : demangler.full(raw);
        }
    }

    private static ImageKind kind(String detail) {
        try {
            return ImageKind.valueOf(detail);
        } catch (IllegalArgumentException e) {
            return ImageKind.UNKNOWN;
        }
    }
}
