package org.hyperprof.store.duckdb;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.duckdb.DuckDBDriver;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.sample.TestDictionary;

/** A store in a test's folder, and sessions to feed it: a kernel with three symbols, one domU process. */
final class StoreFixture {
    static final UnitMask NO_MASK = new UnitMask("none", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "no unit mask")));
    static final CounterConfig CYCLES = new CounterConfig(0, new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 1, 1,
            NO_MASK, null, "cycles"), 100000, 0, true, true);

    final Path path;
    final ByteArrayOutputStream problems = new ByteArrayOutputStream();
    final SessionStoreComponent store;
    final TestDictionary names = new TestDictionary();
    final int kernel = names.image(0, "vmlinux", ImageKind.KERNEL);
    final int app = names.image(1, "/usr/bin/app", ImageKind.USER);
    final int schedule = names.symbol(kernel, "schedule");
    final int tcp = names.symbol(kernel, "tcp_v4_rcv");
    final int unused = names.symbol(kernel, "never_sampled");
    final int main = names.symbol(app, "main");

    StoreFixture(Path path) {
        this(new StoreSettings(path, true, "testhost", 2000), TransactionHook.NONE);
    }

    /** A store that applies {@code retention} after each session it stores. */
    StoreFixture(Path path, Retention retention) {
        this(new StoreSettings(path, true, "testhost", 2000, retention), TransactionHook.NONE);
    }

    /** A store with these settings, whose checkpoints and ends call {@code hook} inside their transaction. */
    StoreFixture(StoreSettings settings, TransactionHook hook) {
        this.path = settings.path();
        names.process(1, 700, "app");
        this.store = new SessionStoreComponent(settings, Engine.CLASS_PATH,
                new PrintStream(problems, true, StandardCharsets.UTF_8), hook);
    }

    /** Runs {@code sql} on the store's file as the store opens it: what another process or an old store did. */
    void execute(String sql) throws StoreException {
        new StoreFile(path, 2000).write(c -> {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
            return null;
        });
    }

    /** The rows of a query on the store's file, each as its columns joined by spaces. */
    static List<String> query(Path store, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + store, StoreFile.settings());
                Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    b.append(i == 1 ? "" : " ").append(r.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    String problems() {
        return problems.toString(StandardCharsets.UTF_8);
    }

    SessionInfo info(long id, String source) {
        return new SessionInfo(id, source, "default-host", "i386/p6", "PIII", 2000, List.of(CYCLES),
                Map.of(0, "Domain-0", 1, "domU"), false, names);
    }

    /** 5 kernel samples in schedule called from tcp_v4_rcv, 2 in tcp_v4_rcv, 3 in the app's main (pid 700). */
    SampleBatch batch(long id) {
        TestBatches b = new TestBatches(id);
        for (int i = 0; i < 5; i++) {
            b.sample(0, 0, (byte) 1, 0, 0xc0100000L, kernel, schedule).caller(0xc0200010L, kernel, tcp);
        }
        b.sample(0, 1, (byte) 1, 0, 0xc0200004L, kernel, tcp).sample(0, 1, (byte) 1, 0, 0xc0200004L, kernel, tcp);
        for (int i = 0; i < 3; i++) {
            b.sample(1, 0, (byte) 0, 0, 0x400100L, app, main, 1, SampleBatch.UNKNOWN, 0, 700, 700);
        }
        return b.build();
    }

    static SessionSummary ended(long id, long received, long missed) {
        long delivered = received + missed;
        return new SessionSummary(id, new Accounting(delivered + 4, delivered, 1, 3, 0), List.of(),
                List.of(new ConsumerAccounting(SessionStoreComponent.NAME, received, missed, null)), null, null, 0,
                SessionSummary.COMPLETED);
    }

    /** A whole session of one batch (10 samples), as a source gives it. */
    void profile(long id, String source) {
        store.sessionStarted(info(id, source));
        store.samples(batch(id));
        store.sessionEnded(ended(id, 10, 0));
    }
}
