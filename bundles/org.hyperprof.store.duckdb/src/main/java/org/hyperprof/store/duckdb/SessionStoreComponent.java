package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.QueryRows;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.SessionOutbox;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionShipping;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoreInfo;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The session store: a lossless sample consumer that keeps every session in one DuckDB file, and the
 * {@link SessionStore} that answers from it.
 *
 * <p>A session's row is written when it starts (status running); the delivery thread copies its
 * samples' keys into chunks ({@link SampleChunk}: no allocation per sample), the writer counts them
 * into aggregated rows ({@link SampleRows}) and writes those with its names, stacks and books in one
 * transaction at its end. Writes run on a thread of the store's own
 * ({@link StoreWriter}), in order, so that neither the source nor the counting waits for DuckDB. A
 * session running longer than the checkpoint interval also writes its rows so far at each interval
 * ({@link RunningSessions}), and one whose process dies is marked incomplete with them at the
 * store's next open. The file is opened for each write and query and closed again, never held across
 * sessions, so two Hyperprof processes share it. DuckDB itself ({@link StoreFile}) is loaded when the
 * first session starts, never at activation.
 *
 * <p>A store that cannot write (a read-only folder, a full disk, a lock held past the wait) prints one
 * line, {@code hyperprof: session N not stored: why}, and never throws into the pipeline: the session
 * and the other consumers go on. Settings change in place ({@link #modified}): its services never leave, so
 * no session starts while no store is bound and no command finds the store's commands gone.
 */
@Component(service = {SampleConsumer.class, SessionStore.class, SessionOutbox.class}, configurationPid = SessionStoreComponent.PID,
        property = {SampleConsumer.NAME + "=" + SessionStoreComponent.NAME,
            SampleConsumer.DELIVERY + "=lossless"})
@Designate(ocd = StoreConfiguration.class)
public final class SessionStoreComponent implements SampleConsumer, SessionStore, SessionOutbox {
    /** The Configuration Admin pid of its settings. */
    public static final String PID = "org.hyperprof.store";
    /** Its {@code consumer.name}. */
    public static final String NAME = "store";

    /** Replaced whole when the settings change ({@link #modified}). */
    private volatile StoreSettings settings;
    private final Engine engine;
    private final PrintStream problems;
    private final SessionWrites writes;
    private final Map<Long, OpenSession> open = new ConcurrentHashMap<>();
    /** The sessions this store replays now: stored already, so their replay is not stored again. */
    private final Set<Long> replaying = ConcurrentHashMap.newKeySet();
    /** What replays a stored session to the consumers (the profiler); optional: the store works without. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile SessionPublisher publisher;
    /** What ships stored sessions to a fleet store; optional: with none, nothing enters the outbox. */
    private volatile SessionShipping shipping;
    private StoreFile file;

    @Activate
    public SessionStoreComponent(StoreConfiguration configuration, BundleContext context) {
        this(StoreSettings.of(configuration, System.err), new EngineBundle(context), System.err,
                TransactionHook.NONE, StoreWriter.thread(WRITER));
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
     * Plain Java and tests ({@link Engine#CLASS_PATH}): {@code problems} gets the "not stored" and retention
     * lines; every write is done on the caller's thread, before the call returns.
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
        this.problems = problems;
        this.writes = new SessionWrites(this::file, writer, hook, problems);
    }

    /**
     * New settings, taken in place. A new path: the writes asked so far finish in the old file (at most
     * the lock wait), which is then closed; the next write or query opens the new one. Sessions already
     * running keep the host id they started with.
     */
    @Modified
    void modified(StoreConfiguration configuration) {
        StoreSettings next = StoreSettings.of(configuration, problems);
        StoreSettings before = settings;
        if (!next.path().equals(before.path())) {
            writes.writer().settle(before.lockWaitMillis());
            StoreFile old;
            synchronized (this) {
                old = file;
                file = null;
                settings = next;
            }
            if (old != null) {
                old.release();
            }
        } else {
            settings = next;
        }
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

    /**
     * The store's file once the writes asked so far are done (bounded by the lock wait): what a command
     * reads after a session ended in this process (hp:profile, then hp:sessions) finds that session
     * stored, though the store writes on a thread of its own.
     */
    private StoreFile settled() throws StoreException {
        writes.writer().settle(settings.lockWaitMillis());
        return file();
    }

    /** Plain Java and tests: replays go through {@code through}. */
    void publisher(SessionPublisher through) {
        this.publisher = through;
    }

    @Override
    public void sessionStarted(SessionInfo session) {
        if (!settings.enabled() || replaying.contains(session.sessionId())) {
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
            SampleChunk chunk = s.pending();
            chunk.add(batch);
            if (s.checkpoints().due(System.nanoTime())) {
                writes.checkpoint(s, NAME, s.takePending());
            } else if (chunk.full()) {
                writes.fold(s, s.takePending());
            }
        }
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
        long id = summary.sessionId();
        OpenSession s = open.get(id);
        if (s != null) {
            // It stays open until its end is written: a name or label given meanwhile (by the command
            // that made it, which may have returned) goes into that row, or waits for it and updates it.
            writes.end(s, s.pending(), summary, NAME, f -> {
                offer(f, id);
                prune(f);
            }, () -> open.remove(id, s));
        }
    }

    /** Puts the session just stored into the outbox when the shipping takes it; a failure to is said. */
    private void offer(StoreFile f, long id) {
        SessionShipping to = shipping;
        if (to == null) {
            return;
        }
        try {
            Outbox.offer(f, id, to).ifPresent(to::pending);
        } catch (StoreException | RuntimeException e) {
            problems.println("hyperprof: session " + id + " will not be shipped: " + e.getMessage());
        }
    }

    /** Binds the fleet's shipping (Declarative Services, and plain Java). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    public void setShipping(SessionShipping to) {
        this.shipping = to;
        to.outbox(this);
    }

    public void unsetShipping(SessionShipping to) {
        if (shipping == to) {
            shipping = null;
        }
        to.outboxGone(this);
    }

    @Override
    public List<StoredSession> pending() throws StoreException {
        return Outbox.pending(settled());
    }

    @Override
    public long copy(long session, String table, String prefix, java.io.OutputStream out) throws StoreException,
            java.io.IOException {
        return Outbox.copy(settled(), session, table, prefix, out);
    }

    @Override
    public boolean release(long session) throws StoreException {
        return Outbox.release(settled(), session);
    }

    /** Applies the retention settings; a failure to is said, and the session stays stored. */
    private void prune(StoreFile f) {
        Retention retention = settings.retention();
        if (!retention.limits()) {
            return;
        }
        try {
            f.prune(retention, Instant.now()).ifPresent(deleted -> problems.println("hyperprof: " + deleted));
        } catch (StoreException | RuntimeException e) {
            problems.println("hyperprof: retention deleted nothing: " + e.getMessage());
        }
    }

    @Override
    public Optional<String> prune() throws StoreException {
        Retention retention = settings.retention();
        return retention.limits() ? settled().prune(retention, Instant.now()) : Optional.empty();
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
        if (made != null) {
            made.release();
        }
    }

    @Override
    public List<StoredSession> sessions(SessionQuery query) throws StoreException {
        return settled().sessions(query);
    }

    @Override
    public Optional<StoredSession> session(long id) throws StoreException {
        return settled().session(id);
    }

    @Override
    public boolean delete(long id) throws StoreException {
        return settled().delete(id);
    }

    @Override
    public Optional<SessionSummary> replay(long id) throws StoreException {
        Optional<SessionReader.Recording> recording = settled().recording(id);
        if (recording.isEmpty()) {
            return Optional.empty();
        }
        SessionPublisher through = publisher;
        if (through == null) {
            throw new StoreException("session " + id + " cannot be replayed: no profiler is active to feed the"
                    + " consumers (start the bundle org.hyperprof.profiler)");
        }
        replaying.add(id);
        try {
            return Optional.of(StoredReplay.feed(through, recording.get()));
        } catch (IllegalStateException | UnsupportedOperationException e) {
            throw new StoreException("session " + id + " cannot be replayed now: " + e.getMessage(), e);
        } finally {
            replaying.remove(id);
        }
    }

    @Override
    public Optional<SessionSummary> replay(long id, SampleConsumer consumer) throws StoreException {
        Optional<SessionReader.Recording> recording = settled().recording(id);
        return recording.map(r -> StoredReplay.feed(consumer, r));
    }

    @Override
    public StoreInfo info() throws StoreException {
        return settled().info();
    }

    @Override
    public SessionDiff diff(DiffRequest request) throws StoreException {
        return settled().diff(request);
    }

    @Override
    public List<DiffStack> diffStacks(DiffRequest request) throws StoreException {
        return settled().diffStacks(request);
    }

    @Override
    public List<StoredStack> stacks(long id, int event, int domain) throws StoreException {
        return settled().stacks(id, event, domain);
    }

    @Override
    public long merge(List<Long> sessions, String name) throws StoreException {
        return settled().merge(sessions, name, settings.hostId());
    }

    @Override
    public Content archive(long id) throws StoreException {
        StoreFile f = stored(id);
        return out -> SessionArchive.write(f, id, out);
    }

    @Override
    public StoredSession restore(Path archive) throws StoreException {
        return SessionArchive.restore(settled(), archive, ArchiveReader.Limits.DEFAULT);
    }

    @Override
    public Content samplesParquet(long id, int domain) throws StoreException {
        StoreFile f = stored(id);
        return out -> SamplesParquet.write(f, id, domain, out);
    }

    /** The store's file, when it holds session {@code id}. */
    private StoreFile stored(long id) throws StoreException {
        StoreFile f = settled();
        if (f.session(id).isEmpty()) {
            throw new StoreException("no stored session " + id + " (hp:sessions lists them)");
        }
        return f;
    }

    @Override
    public Optional<StoredSession> named(String name) throws StoreException {
        return settled().named(name);
    }

    @Override
    public boolean name(long id, String name) throws StoreException {
        String n = SessionMarks.checkName(name);
        for (OpenSession o : open.values()) {
            if (n != null && o.info().sessionId() != id && n.equals(o.marks().name())) {
                throw SessionMarks.taken(n, o.info().sessionId());
            }
        }
        if (n != null) {
            SessionMarks.checkFree(named(n), id, n);
        }
        return mark(id, m -> new OpenSession.Marks(n, m.labels(), m.study()), f -> f.name(id, n));
    }

    @Override
    public boolean label(long id, Collection<String> labels, boolean remove) throws StoreException {
        List<String> given = SessionMarks.checkLabels(labels);
        return mark(id, m -> new OpenSession.Marks(m.name(), SessionMarks.relabel(m.labels(), given, remove), m.study()),
                f -> f.label(id, given, remove));
    }

    @Override
    public boolean markStudy(long id, String study) throws StoreException {
        String name = Objects.requireNonNull(study, "study").strip();
        return mark(id, m -> new OpenSession.Marks(m.name(), m.labels(), name), f -> f.study(id, name));
    }

    /**
     * What is said of a session: {@code stored} to its row, and while it runs here also {@code open} to
     * it, so the row written at its end keeps it. Only that column of the running row is updated: the
     * rest of it (what a checkpoint wrote) stays.
     */
    private boolean mark(long id, OpenMark open, StoredMark stored) throws StoreException {
        StoreFile f = settled();
        OpenSession s = this.open.get(id);
        if (s != null) {
            synchronized (s) {
                if (!s.closed()) {
                    s.marks(open.apply(s.marks()));
                    try {
                        stored.apply(f);
                    } catch (StoreException e) {
                        // Kept all the same (a lock held past the wait): the row written at its end has it.
                    }
                    return true;
                }
            }
        }
        return stored.apply(f);
    }

    /** A change to what is said of a session still open in this process. */
    @FunctionalInterface
    private interface OpenMark {
        OpenSession.Marks apply(OpenSession.Marks before);
    }

    /** The same change to its stored row. */
    @FunctionalInterface
    private interface StoredMark {
        boolean apply(StoreFile f) throws StoreException;
    }

    @Override
    public QueryRows query(String sql, int maxRows) throws StoreException {
        return settled().query(sql, maxRows);
    }
}
