package org.hyperprof.store.clickhouse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.QueryRows;
import org.hyperprof.api.store.SessionOutbox;
import org.hyperprof.api.store.SessionShipping;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.store.duckdb.SessionStoreComponent;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.sample.TestDictionary;

/**
 * A Hyperprof host as the fleet sees it: its own local store (DuckDB, on the class path) under its
 * host.id, and sessions of samples drawn from a seed (a hypervisor, a kernel and an application of 40
 * symbols each; call chains; two events), stored as a source's would be.
 */
final class SimulatedHost {
    static final UnitMask NO_MASK = new UnitMask("none", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "no unit mask")));
    static final List<CounterConfig> EVENTS = List.of(
            new CounterConfig(0, new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 1, 1, NO_MASK, null, "cycles"), 100000,
                    0, true, true),
            new CounterConfig(1, new EventDescriptor("INST_RETIRED", 0xc0, 1, 1, NO_MASK, null, "instructions"),
                    200000, 0, true, true));

    final String hostId;
    /** The shipping the store offers sessions to (through {@link #offeringTo}), or null. */
    private volatile SessionShipping shipping;
    /** The sessions offered (or refused) so far. */
    private final java.util.Set<Long> offered = new java.util.HashSet<>();
    final SessionStoreComponent store;
    /** What the symbols' names start with; text any name may hold (tabs, newlines, quotes) in some tests. */
    private final String[] prefixes;
    private final ByteArrayOutputStream problems = new ByteArrayOutputStream();

    SimulatedHost(Path folder, String hostId) {
        this(folder, hostId, new String[] {"xen_fn_", "kernel_fn_", "app_fn_"});
    }

    /** A host whose symbols' names start with {@code prefixes} (hypervisor's, kernel's, application's). */
    SimulatedHost(Path folder, String hostId, String[] prefixes) {
        this.hostId = hostId;
        this.prefixes = prefixes.clone();
        this.store = SessionStoreComponent.onClassPath(folder.resolve(hostId + ".duckdb"), hostId,
                new PrintStream(problems, true, StandardCharsets.UTF_8));
    }

    /**
     * Profiles one session of {@code samples} samples drawn from {@code seed} and waits until it is stored
     * (and offered to the fleet's shipping, when one is bound); its id.
     */
    long profile(long seed, int samples) throws StoreException {
        SplittableRandom r = new SplittableRandom(seed);
        long id = r.nextLong(1, Long.MAX_VALUE);
        TestDictionary names = new TestDictionary();
        int[] images = {names.image(0, "xen-syms", ImageKind.HYPERVISOR), names.image(0, "vmlinux", ImageKind.KERNEL),
            names.image(1, "/usr/bin/app-" + (seed % 3), ImageKind.USER)};
        int[][] symbols = new int[3][40];
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < 40; k++) {
                symbols[i][k] = names.symbol(images[i], prefixes[i] + k);
            }
        }
        names.process(1, 700, "app");
        store.sessionStarted(new SessionInfo(id, "simulator", hostId, "i386/p6", "PIII", 2000, EVENTS,
                Map.of(0, "Domain-0", 1, "domU"), false, names));
        TestBatches b = new TestBatches(id);
        for (int n = 0; n < samples; n++) {
            int i = r.nextInt(3);
            int k = (int) Math.min(39, Math.abs(r.nextGaussian() * 10));
            byte mode = (byte) (i == 0 ? 2 : i == 1 ? 1 : 0);
            int domain = i == 2 ? 1 : r.nextInt(2);
            b.sample(domain, r.nextInt(2), mode, r.nextInt(2), 0x1000L * i + k * 16L + r.nextInt(4), images[i],
                    symbols[i][k], 1 + r.nextInt(3), n * 1_000_000L, r.nextInt(4), i == 2 ? 700 : -1,
                    i == 2 ? 700 : -1);
            if (r.nextInt(3) == 0) {
                int c = r.nextInt(40);
                b.caller(0x9000L + c * 16L, images[i], symbols[i][c]);
            }
        }
        store.samples(b.build());
        long lost = r.nextInt(5);
        store.sessionEnded(new SessionSummary(id, new Accounting(samples + lost + 2, samples, lost, 2, 0), List.of(),
                List.of(new ConsumerAccounting(SessionStoreComponent.NAME, samples, 0, null)), null, null, 0,
                SessionSummary.COMPLETED));
        // The store offers the session to the shipping after writing its end, on its own writer
        // thread; its reads wait for the writes before them only so long (lock.wait.ms). Wait for the
        // offer itself, so a test's next step (settle, ship) always follows it.
        if (shipping != null) {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
            synchronized (offered) {
                while (!offered.contains(id)) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("session " + id + " was not offered to the shipping within"
                                + " 2 minutes");
                    }
                    try {
                        offered.wait(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(left) + 1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        store.session(id);
        return id;
    }

    /**
     * The host's local books: per (host, session, event, symbol) its samples and weight, as
     * {@code "host session event symbol" -> "samples weight"}.
     */
    Map<String, String> books() throws StoreException {
        QueryRows rows = store.query("SELECT s.session, ses.events[s.event + 1], coalesce(sy.name, ''),"
                + " sum(s.samples), sum(s.weight) FROM samples s JOIN sessions ses ON ses.id = s.session"
                + " LEFT JOIN names sy ON sy.session = s.session AND sy.kind = 'symbol' AND sy.id = s.symbol"
                + " GROUP BY ALL", 1_000_000);
        Map<String, String> out = new TreeMap<>();
        for (List<String> row : rows.rows()) {
            out.put(hostId + " " + row.get(0) + " " + row.get(1) + " " + row.get(2), row.get(3) + " " + row.get(4));
        }
        return out;
    }

    /** The fleet's shipping as the store sees it: each offer noted, so {@link #profile} can wait for it. */
    SessionShipping offeringTo(SessionShipping to) {
        shipping = to;
        return new SessionShipping() {
            @Override
            public void outbox(SessionOutbox outbox) {
                to.outbox(outbox);
            }

            @Override
            public void outboxGone(SessionOutbox outbox) {
                to.outboxGone(outbox);
            }

            @Override
            public boolean ships(StoredSession session) {
                boolean ships = to.ships(session);
                if (!ships) {
                    noted(session.id());
                }
                return ships;
            }

            @Override
            public void pending(StoredSession session) {
                to.pending(session);
                noted(session.id());
            }
        };
    }

    private void noted(long id) {
        synchronized (offered) {
            offered.add(id);
            offered.notifyAll();
        }
    }

    String problems() {
        return problems.toString(StandardCharsets.UTF_8);
    }
}
