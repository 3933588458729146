package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.pipeline.Dictionary;

/**
 * Reads a stored session back as its consumers saw it live: its {@link SessionInfo} (same id,
 * counters, domains, a dictionary of the names, comms, build-ids and mappings it stored, demangling
 * as it did), its {@link SessionSummary} (the books
 * of the session, of each buffer and consumer, Xen's statistics, the ground truth) and its sample
 * rows. Stored ids are the session's own and sparse (only the used ones are stored): they are
 * numbered again densely, in ascending order of the stored id, so that every tie a report breaks by
 * id falls as it fell live.
 */
final class SessionReader {
    /** What a stored session was, and its samples. */
    record Recording(SessionInfo info, SessionSummary summary, SampleRows rows, long timeBucketNanos) {
    }

    /** A stored id's new id: {@code -1} for an id the session did not store. */
    private static final int NONE = Integer.MIN_VALUE;

    private SessionReader() {
    }

    static Optional<Recording> read(DuckDBConnection c, long id) throws SQLException, IOException {
        try (PreparedStatement s = c.prepareStatement("SELECT * FROM sessions WHERE id = ?")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                return Optional.of(new SessionReader.Reading(c, id).read(r));
            }
        }
    }

    /** One read: the id maps of the session's names, filled as they are read. */
    private static final class Reading {
        private final DuckDBConnection c;
        private final long id;
        private final Dictionary dictionary = new Dictionary();
        private final Map<Integer, String> domains = new TreeMap<>();
        private int[] images = new int[0];
        private int[] symbols = new int[0];
        private int[] addresses = new int[0];
        private int[] comms = new int[0];

        Reading(DuckDBConnection c, long id) {
            this.c = c;
            this.id = id;
        }

        Recording read(ResultSet session) throws SQLException, IOException {
            List<CounterConfig> counters = counters(strings(session, "events"));
            names();
            mappings();
            Boolean demangled = (Boolean) session.getObject("demangled");
            // Rows older than version 3 do not say: reports demangled then, as they do by default.
            dictionary.demangle(demangled == null || demangled);
            boolean truth = session.getBoolean("ground_truth") && !session.wasNull();
            SessionInfo info = new SessionInfo(id, session.getString("source"), session.getString("what"),
                    session.getString("cpu_type"), nonNull(session.getString("cpu_name")), session.getLong("mhz"),
                    counters, domains, truth, dictionary);
            SampleRows rows = new SampleRows(info.counterSlots());
            samples(rows, stacks(rows.stacks()));
            return new Recording(info, summary(session, truth), rows, session.getLong("time_bucket_ns"));
        }

        // ------------------------------------------------------------ counters

        /** The stored counters; for a session of schema version 1 (no counters rows), its events strings. */
        private List<CounterConfig> counters(List<String> events) throws SQLException, IOException {
            List<CounterConfig> out = new ArrayList<>();
            try (PreparedStatement q = statement("SELECT * FROM counters WHERE session = ? ORDER BY slot");
                    ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    long unitMask = r.getLong("unit_mask");
                    String signal = r.getString("signal");
                    EventDescriptor e = new EventDescriptor(r.getString("event"), r.getInt("code"),
                            r.getLong("counter_mask"), r.getLong("minimum_count"), recordedMask(unitMask),
                            signal == null ? null : Signal.valueOf(signal), r.getString("description"));
                    out.add(new CounterConfig(r.getInt("counter"), e, r.getLong("count"), unitMask,
                            r.getBoolean("count_kernel"), r.getBoolean("count_user")));
                }
            }
            if (!out.isEmpty()) {
                return out;
            }
            for (int slot = 0; slot < events.size(); slot++) {
                out.add(fromEventText(slot, events.get(slot)));
            }
            return out;
        }

        /** {@code EVENT:count:0xunitmask}, as version 1 kept a counter: on counter {@code slot}, all modes. */
        private static CounterConfig fromEventText(int slot, String text) throws IOException {
            String[] parts = text.split(":");
            if (parts.length != 3) {
                throw new IOException("a stored event reads '" + text + "', not EVENT:count:0xunitmask");
            }
            long unitMask = Long.decode(parts[2]);
            EventDescriptor e = new EventDescriptor(parts[0], 0, 1L << Math.min(slot, 63), 1, recordedMask(unitMask),
                    null, parts[0]);
            return new CounterConfig(slot, e, Long.parseLong(parts[1]), unitMask, true, true);
        }

        /** The store keeps the unit mask a counter used, not the event's table of them: that one value. */
        private static UnitMask recordedMask(long value) {
            return new UnitMask("recorded", UnitMask.Kind.MANDATORY, value,
                    List.of(new UnitMask.Value(value, "as recorded")));
        }

        // ------------------------------------------------------------ names

        /**
         * Domains, images, symbols, address symbols, processes, build-ids and comms, each kind in
         * ascending stored id (comms added in that order keep each thread's latest name its last).
         */
        private void names() throws SQLException, IOException {
            List<long[]> symbolRows = new ArrayList<>();
            List<String> symbolNames = new ArrayList<>();
            List<long[]> commRows = new ArrayList<>();
            List<String> commNames = new ArrayList<>();
            try (PreparedStatement q = statement("SELECT kind, id, owner, name, detail, address FROM names"
                    + " WHERE session = ?"
                    + " ORDER BY CASE kind WHEN 'domain' THEN 0 WHEN 'image' THEN 1 WHEN 'symbol' THEN 2 ELSE 3 END,"
                    + " CASE WHEN kind = 'symbol' AND id < -1 THEN -2 - id ELSE id END");
                    ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    String kind = r.getString("kind");
                    long key = r.getLong("id");
                    int owner = r.getInt("owner");
                    String name = r.getString("name");
                    switch (kind) {
                        case "domain" -> domains.put((int) key, name);
                        case "image" -> images = mapped(images, (int) key,
                                dictionary.addImage(name, ImageKind.valueOf(r.getString("detail")), owner));
                        case "symbol" -> {
                            long address = r.getLong("address");
                            symbolRows.add(new long[] {key, owner, r.wasNull() ? SampleBatch.UNKNOWN : address});
                            symbolNames.add(name);
                        }
                        case "process" -> dictionary.nameProcess(owner, (int) key, name);
                        case "build_id" -> dictionary.buildId(image((int) key), name);
                        case "comm" -> {
                            commRows.add(new long[] {key, owner});
                            commNames.add(name);
                        }
                        default -> throw new IOException("session " + id + " has names of an unknown kind '" + kind
                                + "'");
                    }
                }
            }
            for (int i = 0; i < symbolRows.size(); i++) {
                long[] s = symbolRows.get(i);
                int symbol = (int) s[0];
                int image = image((int) s[1]);
                if (SessionDictionary.isAddress(symbol)) {
                    addresses = mapped(addresses, SessionDictionary.addressIndex(symbol),
                            SessionDictionary.addressIndex(dictionary.address(image, s[2])));
                } else {
                    symbols = mapped(symbols, symbol, dictionary.addSymbol(symbolNames.get(i), image, s[2]));
                }
            }
            comms(commRows, commNames);
        }

        /** The comms in stored order, each on its thread; a comm of no known thread on one of its own. */
        private void comms(List<long[]> rows, List<String> names) {
            int unknownThread = 1 + (int) rows.stream().mapToLong(r -> r[1]).max().orElse(0);
            for (int i = 0; i < rows.size(); i++) {
                int thread = (int) rows.get(i)[1];
                int now = dictionary.addComm(names.get(i), thread >= 0 ? thread : unknownThread++);
                comms = mapped(comms, (int) rows.get(i)[0], now);
            }
        }

        private int comm(int stored) throws IOException {
            if (stored == SampleBatch.UNKNOWN) {
                return stored;
            }
            int now = stored >= 0 && stored < comms.length ? comms[stored] : NONE;
            if (now == NONE) {
                throw new IOException("session " + id + " has samples of comm " + stored + ", which its names do not"
                        + " hold");
            }
            return now;
        }

        /** The stored mappings in the order the source met them, on the images as numbered now. */
        private void mappings() throws SQLException, IOException {
            try (PreparedStatement q = statement("SELECT domain, pid, image, start_address, limit_address, file_offset"
                    + " FROM mappings WHERE session = ? ORDER BY position");
                    ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    dictionary.addMapping(r.getInt(1), r.getInt(2), image(r.getInt(3)), r.getLong(4), r.getLong(5),
                            r.getLong(6));
                }
            }
        }

        private static int[] mapped(int[] map, int stored, int now) {
            int[] m = map;
            if (stored >= m.length) {
                int old = m.length;
                m = Arrays.copyOf(m, Math.max(stored + 1, old * 2));
                Arrays.fill(m, old, m.length, NONE);
            }
            m[stored] = now;
            return m;
        }

        private int image(int stored) throws IOException {
            int now = stored >= 0 && stored < images.length ? images[stored] : NONE;
            if (now == NONE) {
                throw new IOException("session " + id + " uses image " + stored + ", which its names do not hold");
            }
            return now;
        }

        private int symbol(int stored) throws IOException {
            if (stored == SessionDictionary.NO_SYMBOL) {
                return stored;
            }
            int[] map = SessionDictionary.isAddress(stored) ? addresses : symbols;
            int index = SessionDictionary.isAddress(stored) ? SessionDictionary.addressIndex(stored) : stored;
            int now = index >= 0 && index < map.length ? map[index] : NONE;
            if (now == NONE) {
                throw new IOException("session " + id + " uses symbol " + stored + ", which its names do not hold");
            }
            return SessionDictionary.isAddress(stored) ? SessionDictionary.addressSymbolOf(now) : now;
        }

        // ------------------------------------------------------------ stacks and samples

        /** Names the stored stacks again, in the order of their ids; the new id of each stored one. */
        private int[] stacks(StackTable table) throws SQLException, IOException {
            int[] ids = {StackTable.NO_STACK};
            long[] pc = new long[64];
            int[] image = new int[64];
            int[] symbol = new int[64];
            byte[] mode = new byte[64];
            int frames = 0;
            int stack = StackTable.NO_STACK;
            try (PreparedStatement q = statement("SELECT stack_id, pc, image, symbol, mode FROM stacks"
                    + " WHERE session = ?"
                    + " ORDER BY stack_id, depth");
                    ResultSet r = q.executeQuery()) {
                while (true) {
                    boolean more = r.next();
                    int next = more ? r.getInt("stack_id") : StackTable.NO_STACK;
                    if (next != stack && frames > 0) {
                        ids = mapped(ids, stack, table.id(pc, image, symbol, mode, 0, frames));
                        frames = 0;
                    }
                    if (!more) {
                        return ids;
                    }
                    stack = next;
                    if (frames == pc.length) {
                        pc = Arrays.copyOf(pc, frames * 2);
                        image = Arrays.copyOf(image, frames * 2);
                        symbol = Arrays.copyOf(symbol, frames * 2);
                        mode = Arrays.copyOf(mode, frames * 2);
                    }
                    pc[frames] = r.getLong("pc");
                    image[frames] = image(r.getInt("image"));
                    symbol[frames] = symbol(r.getInt("symbol"));
                    mode[frames++] = r.getByte("mode");
                }
            }
        }

        /** The sample rows in time order (the order they were taken in, to a bucket). */
        private void samples(SampleRows rows, int[] stackIds) throws SQLException, IOException {
            int[] key = new int[SampleRows.INTS];
            try (PreparedStatement q = statement("SELECT * FROM samples WHERE session = ?"
                    + " ORDER BY time_bucket, event, domain, vcpu, cpu, mode, pid, tid, image, symbol, pc, stack_id, flags");
                    ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    key[SampleRows.EVENT] = r.getInt("event");
                    key[SampleRows.DOMAIN] = r.getInt("domain");
                    key[SampleRows.VCPU] = r.getInt("vcpu");
                    key[SampleRows.CPU] = r.getInt("cpu");
                    key[SampleRows.MODE] = r.getByte("mode");
                    key[SampleRows.PID] = r.getInt("pid");
                    key[SampleRows.TID] = r.getInt("tid");
                    key[SampleRows.IMAGE] = image(r.getInt("image"));
                    key[SampleRows.SYMBOL] = symbol(r.getInt("symbol"));
                    int stack = r.getInt("stack_id");
                    key[SampleRows.STACK] = stack < stackIds.length ? stackIds[stack] : NONE;
                    if (key[SampleRows.STACK] == NONE) {
                        throw new IOException("session " + id + " has samples of stack " + stack
                                + ", which its stacks do not hold");
                    }
                    key[SampleRows.FLAGS] = r.getByte("flags");
                    key[SampleRows.COMM] = comm(r.getInt("comm"));
                    rows.put(key, r.getLong("pc"), r.getLong("time_bucket"), r.getLong("samples"),
                            r.getLong("weight"));
                }
            }
        }

        // ------------------------------------------------------------ the summary

        private SessionSummary summary(ResultSet s, boolean truth) throws SQLException, IOException {
            Accounting books = new Accounting(s.getLong("taken"), s.getLong("delivered"), s.getLong("lost"),
                    s.getLong("dropped"), s.getLong("invalid"));
            String reason = s.getString("end_reason");
            GroundTruth groundTruth = truth();
            return new SessionSummary(id, books, buffers(), consumers(), xen(s),
                    truth || !groundTruth.rows().isEmpty() ? groundTruth : null, s.getLong("simulated_cycles"),
                    reason == null ? s.getString("status") : reason, hostCounters(), strings(s, "notes"));
        }

        private List<BufferAccounting> buffers() throws SQLException {
            List<BufferAccounting> out = new ArrayList<>();
            try (PreparedStatement q = statement("SELECT * FROM buffers WHERE session = ? ORDER BY position");
                    ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    out.add(new BufferAccounting(r.getInt("domain"), r.getInt("vcpu"), r.getString("role"),
                            new Accounting(r.getLong("taken"), r.getLong("delivered"), r.getLong("lost"),
                                    r.getLong("dropped"), r.getLong("invalid")),
                            r.getLong("user_samples"), r.getLong("kernel_samples"), r.getLong("xen_samples"),
                            r.getLong("drained"), r.getLong("undrained")));
                }
            }
            return out;
        }

        private List<ConsumerAccounting> consumers() throws SQLException {
            List<ConsumerAccounting> out = new ArrayList<>();
            try (PreparedStatement q = statement("SELECT * FROM consumers WHERE session = ? ORDER BY position");
                    ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    out.add(new ConsumerAccounting(r.getString("consumer"), r.getLong("received"),
                            r.getLong("missed"), r.getString("problem")));
                }
            }
            return out;
        }

        private Map<String, Long> hostCounters() throws SQLException {
            Map<String, Long> out = new LinkedHashMap<>();
            try (PreparedStatement q = statement("SELECT name, value FROM host_counters WHERE session = ?");
                    ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    out.put(r.getString(1), r.getLong(2));
                }
            }
            return out;
        }

        private static XenoprofStatistics xen(ResultSet s) throws SQLException {
            long total = s.getLong("xen_total");
            if (s.wasNull()) {
                return null;
            }
            return new XenoprofStatistics(total, s.getLong("xen_active"), s.getLong("xen_passive"),
                    s.getLong("xen_lost"), s.getLong("xen_others"), s.getLong("xen_idle"),
                    s.getLong("xen_invalid_buffer"), s.getLong("xen_corrupted_buffer"));
        }

        /**
         * The ground truth's rows in the order they were written (reports add truth rows into theirs
         * in that order), each stored signal back in its place of the row.
         */
        private GroundTruth truth() throws SQLException {
            List<GroundTruth.Row> rows = new ArrayList<>();
            List<GroundTruth.Row> onBehalf = new ArrayList<>();
            try (PreparedStatement q = statement("SELECT * FROM truth WHERE session = ? ORDER BY rowid");
                    ResultSet r = q.executeQuery()) {
                GroundTruth.Row row = null;
                boolean rowOnBehalf = false;
                while (r.next()) {
                    boolean behalf = r.getBoolean("on_behalf");
                    int domain = r.getInt("domain");
                    int vcpu = r.getInt("vcpu");
                    CpuMode mode = CpuMode.ofCode(r.getByte("mode"));
                    String image = r.getString("image");
                    ImageKind kind = ImageKind.valueOf(r.getString("image_kind"));
                    String symbol = r.getString("symbol");
                    Signal signal = Signal.valueOf(r.getString("signal"));
                    // A row's signals were written one after another: a new key, or a signal again, starts the next row.
                    if (row == null || behalf != rowOnBehalf || row.domid() != domain || row.vcpu() != vcpu
                            || row.mode() != mode || !row.image().equals(image) || row.kind() != kind
                            || !row.symbol().equals(symbol) || row.milli(signal) != 0) {
                        row = new GroundTruth.Row(domain, vcpu, mode, image, kind, symbol,
                                new long[Signal.values().length]);
                        rowOnBehalf = behalf;
                        (behalf ? onBehalf : rows).add(row);
                    }
                    row.signalMilli()[signal.ordinal()] = r.getLong("milli");
                }
            }
            return new GroundTruth(rows, onBehalf);
        }

        // ------------------------------------------------------------ plumbing

        /** The statement of {@code sql}, its one parameter the session's id. */
        private PreparedStatement statement(String sql) throws SQLException {
            PreparedStatement s = c.prepareStatement(sql);
            s.setLong(1, id);
            return s;
        }
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }

    private static List<String> strings(ResultSet r, String column) throws SQLException {
        Array a = r.getArray(column);
        if (a == null) {
            return List.of();
        }
        return Arrays.stream((Object[]) a.getArray()).map(String::valueOf).toList();
    }

    /** The time of a sample of {@code bucket}: its bucket's start, or unknown. */
    static long time(long bucket, long bucketNanos) {
        return bucket < 0 ? SampleBatch.UNKNOWN : bucket * bucketNanos;
    }
}
