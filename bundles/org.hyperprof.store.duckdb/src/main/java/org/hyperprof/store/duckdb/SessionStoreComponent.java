package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoreInfo;
import org.hyperprof.api.store.StoredSession;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The session store: a lossless sample consumer that keeps every session in one DuckDB file, and the
 * {@link SessionStore} that answers from it.
 *
 * <p>A session's row is written when it starts (status running); its samples are counted into
 * aggregated rows in memory ({@link SampleRows}: no allocation per sample) and written with its
 * names, stacks and books in one transaction at its end. Writes run on a thread of the store's own
 * ({@link StoreWriter}), in order, so that neither the source nor the counting waits for DuckDB. A
 * session running longer than the checkpoint interval also writes its rows so far at each interval
 * ({@link RunningSessions}), and one whose process dies is marked incomplete with them at the
 * store's next open. The file is opened for each write and query and closed again, never held across
 * sessions, so two Hyperprof processes share it. DuckDB itself ({@link StoreFile}) is loaded when the
 * first session starts, never at activation.
 *
 * <p>A store that cannot write (a read-only folder, a full disk, a lock held past the wait) prints one
 * line, {@code hyperprof: session N not stored: why}, and never throws into the pipeline: the session
 * and the other consumers go on. Settings change by a new instance (no {@code @Modified}).
 */
@Component(service = {SampleConsumer.class, SessionStore.class}, configurationPid = SessionStoreComponent.PID,
        property = {SampleConsumer.NAME + "=" + SessionStoreComponent.NAME,
            SampleConsumer.DELIVERY + "=lossless"})
@Designate(ocd = StoreConfiguration.class)
public final class SessionStoreComponent implements SampleConsumer, SessionStore {
    /** The Configuration Admin pid of its settings. */
    public static final String PID = "org.hyperprof.store";
    /** Its {@code consumer.name}. */
    public static final String NAME = "store";

    private final StoreSettings settings;
    private final Engine engine;
    private final SessionWrites writes;
    private final Map<Long, OpenSession> open = new ConcurrentHashMap<>();
    private StoreFile file;

    @Activate
    public SessionStoreComponent(StoreConfiguration configuration, BundleContext context) {
        this(StoreSettings.of(configuration), new EngineBundle(context), System.err, TransactionHook.NONE,
                StoreWriter.thread(WRITER));
    }

    /** The name of the thread the store writes on. */
    static final String WRITER = "hyperprof-store-writer";

    /**
     * Plain Java (the benchmarks), with DuckDB on the class path: a store in {@code path} under
     * {@code hostId}, with the default lock wait and checkpoint interval.
     */
    public static SessionStoreComponent onClassPath(Path path, String hostId, PrintStream problems) {
        return new SessionStoreComponent(new StoreSettings(path, true, hostId, 10_000), Engine.CLASS_PATH, problems,
                TransactionHook.NONE, StoreWriter.thread(WRITER));
    }

    /**
     * Plain Java and tests ({@link Engine#CLASS_PATH}): {@code problems} gets the "not stored" lines; every
     * write is done on the caller's thread, before the call returns.
     */
    SessionStoreComponent(StoreSettings settings, Engine engine, PrintStream problems) {
        this(settings, engine, problems, TransactionHook.NONE);
    }

    /** The kill -9 test's: {@code hook} is called inside each checkpoint's and end's transaction. */
    SessionStoreComponent(StoreSettings settings, Engine engine, PrintStream problems, TransactionHook hook) {
        this(settings, engine, problems, hook, StoreWriter.callers());
    }

    private SessionStoreComponent(StoreSettings settings, Engine engine, PrintStream problems, TransactionHook hook,
            StoreWriter writer) {
        this.settings = settings;
        this.engine = engine;
        this.writes = new SessionWrites(this::file, writer, hook, problems);
    }

    /**
     * The store's file, made on first use: the first use of DuckDB's classes, once its bundle is ready
     * (outside this component's monitor: installing a bundle sends framework events).
     */
    private StoreFile file() throws StoreException {
        engine.ready();
        synchronized (this) {
            if (file == null) {
                file = new StoreFile(settings.path(), settings.lockWaitMillis());
            }
            return file;
        }
    }

    @Override
    public void sessionStarted(SessionInfo session) {
        if (!settings.enabled()) {
            return;
        }
        OpenSession s = new OpenSession(session, settings.hostId(), Instant.now());
        s.checkpoints().every(settings.checkpointInterval().toNanos(), System.nanoTime());
        open.put(session.sessionId(), s);
        writes.begin(s);
    }

    @Override
    public void samples(SampleBatch batch) {
        OpenSession s = open.get(batch.sessionId);
        if (s != null) {
            s.rows().add(batch);
            if (s.checkpoints().due(System.nanoTime())) {
                writes.checkpoint(s, NAME);
            }
        }
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
        OpenSession s = open.remove(summary.sessionId());
        if (s != null) {
            writes.end(s, summary, NAME);
        }
    }

    /**
     * The writes asked are finished (waiting at most the lock wait and a minute), then sessions still open
     * are marked incomplete: their samples go with this instance. DuckDB's bundle is never installed here,
     * in a DS callback: with no file made, their starts already found it missing.
     */
    @Deactivate
    void deactivate() {
        StoreFile made;
        synchronized (this) {
            made = file;
        }
        writes.close(settings.lockWaitMillis() + 60_000, open.values(), made);
        open.clear();
    }

    @Override
    public List<StoredSession> sessions(SessionQuery query) throws StoreException {
        return file().sessions(query);
    }

    @Override
    public Optional<StoredSession> session(long id) throws StoreException {
        return file().session(id);
    }

    @Override
    public boolean delete(long id) throws StoreException {
        return file().delete(id);
    }

    @Override
    public StoreInfo info() throws StoreException {
        return file().info();
    }
}
