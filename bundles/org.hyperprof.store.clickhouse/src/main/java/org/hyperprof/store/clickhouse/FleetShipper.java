package org.hyperprof.store.clickhouse;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.hyperprof.api.store.SessionOutbox;
import org.hyperprof.api.store.SessionShipping;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Ships the stored sessions to ClickHouse, oldest first, on a thread of its own: each session the store
 * puts in its outbox wakes it, and a shipment that cannot reach the server (or is refused) stops there and
 * is tried again after the retry interval, so the sessions arrive in order and the host keeps profiling
 * meanwhile. The outbox holds at most {@code outbox.max.sessions}; beyond it the oldest are let go (kept
 * locally, never shipped), each said in one line.
 */
@Component(service = {SessionShipping.class, FleetShipper.class}, configurationPid = FleetShipper.PID,
        immediate = true)
@Designate(ocd = FleetConfiguration.class)
public final class FleetShipper implements SessionShipping, AutoCloseable {
    /** The Configuration Admin pid of its settings. */
    public static final String PID = "org.hyperprof.fleet";

    private final FleetSettings settings;
    /** The local store, as it handed itself over when it bound this shipping; null before. */
    private volatile SessionOutbox outbox;
    private final PrintStream problems;
    private final ClickHouseHttp http;
    private final Shipper shipper;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "hyperprof-fleet-shipper");
        t.setDaemon(true);
        return t;
    });
    private volatile String problem;
    private volatile Instant nextTry;
    private volatile Instant lastShipped;
    private volatile long shipped;
    private ScheduledFuture<?> retry;
    /**
     * How long {@link #shipNow()} and {@link #settle()} wait for the shipper's thread: a first shipment of a
     * large outbox takes longer, and goes on after the wait (the status then shows what is still pending).
     */
    private volatile Duration waitAtMost = Duration.ofMinutes(10);

    @Activate
    public FleetShipper(FleetConfiguration configuration, BundleContext context) {
        this(FleetSettings.of(configuration), null, context.getBundle().getVersion().toString(), System.err);
    }

    @Override
    public void outbox(SessionOutbox store) {
        this.outbox = store;
        wake();
    }

    @Override
    public void outboxGone(SessionOutbox store) {
        if (outbox == store) {
            outbox = null;
        }
    }

    /** Runs {@code work} on the local store; false when none is there. */
    private boolean withOutbox(OutboxWork work) throws StoreException, FleetException {
        SessionOutbox o = outbox;
        if (o == null) {
            return false;
        }
        work.run(o);
        return true;
    }

    @FunctionalInterface
    private interface OutboxWork {
        void run(SessionOutbox outbox) throws StoreException, FleetException;
    }

    /** Plain Java and tests: nothing is shipped until {@link #shipNow()} or a session arrives. */
    public FleetShipper(FleetSettings settings, SessionOutbox outbox, String hyperprofVersion,
            PrintStream problems) {
        this.settings = settings;
        this.outbox = outbox;
        this.problems = problems;
        this.http = new ClickHouseHttp(settings);
        this.shipper = new Shipper(http, HostFacts.of(hyperprofVersion));
    }

    FleetSettings settings() {
        return settings;
    }

    ClickHouseHttp http() {
        return http;
    }

    /**
     * A host with no endpoint configured is in no fleet: its sessions never enter the outbox (retention
     * would keep them all).
     */
    @Override
    public boolean ships(StoredSession session) {
        if (settings.endpoints().isEmpty() || session.study() != null && !settings.studies()) {
            return false;
        }
        return settings.sources().isEmpty() || settings.sources().contains(session.source());
    }

    @Override
    public void pending(StoredSession session) {
        wake();
    }

    /** Ships what is pending, on the shipper's thread. */
    private void wake() {
        try {
            thread.execute(this::drain);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // Stopped: the outbox keeps the session for the next start.
        }
    }

    /** Ships what is pending now and returns what it did (tests, {@code hp:fleet ship}). */
    public FleetStatus shipNow() throws StoreException {
        return after(this::drain);
    }

    /** Waits until the shipments asked so far are done (tests); what they did. */
    public FleetStatus settle() throws StoreException {
        return after(() -> { });
    }

    private FleetStatus after(Runnable work) throws StoreException {
        try {
            thread.submit(work).get(waitAtMost.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            // Still shipping, which is no failure: it goes on on the shipper's thread.
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            problem = "the shipper failed: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString());
        }
        return status();
    }

    /** How long {@link #shipNow()} and {@link #settle()} wait before they answer with the shipment still going (tests). */
    void waitsAtMost(Duration wait) {
        this.waitAtMost = wait;
    }

    private void drain() {
        synchronized (this) {
            if (retry != null) {
                retry.cancel(false);
                retry = null;
            }
        }
        nextTry = null;
        if (settings.endpoints().isEmpty()) {
            problem = "no endpoint is configured (setting endpoints of pid " + PID + ")";
            return;
        }
        try {
            if (!withOutbox(this::shipPending)) {
                // Its bundle may be restarting (a new setting): the next session stored wakes the shipper.
                problem = "no local session store is active (bundle org.hyperprof.store.duckdb)";
            }
        } catch (FleetException e) {
            problem = e.getMessage();
            later();
        } catch (StoreException | RuntimeException e) {
            problem = "the local store could not be read: " + e.getMessage();
            later();
        }
    }

    /** Lets the oldest go beyond the outbox's size, then ships the rest, oldest first, stopping at a failure. */
    private void shipPending(SessionOutbox outbox) throws StoreException, FleetException {
        List<StoredSession> pending = outbox.pending();
        int over = pending.size() - settings.outboxMaxSessions();
        for (int i = 0; i < over; i++) {
            StoredSession s = pending.get(i);
            outbox.release(s.id());
            problems.println("hyperprof: the fleet's outbox holds more than outbox.max.sessions="
                    + settings.outboxMaxSessions() + " sessions: session " + s.id() + " (started " + s.startedAt()
                    + ") is kept locally and will not be shipped");
        }
        for (StoredSession s : pending.subList(Math.max(0, over), pending.size())) {
            shipper.ship(outbox, s);
            shipped++;
            lastShipped = Instant.now();
        }
        if (settings.retentionDays() > 0) {
            shipper.dropDaysBefore(java.time.LocalDate.now(java.time.ZoneOffset.UTC), settings.retentionDays());
        }
        problem = null;
    }

    private synchronized void later() {
        nextTry = Instant.now().plus(settings.retry());
        try {
            retry = thread.schedule(this::drain, settings.retry().toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            nextTry = null;
        }
    }

    /** The outbox and the shipper's state. */
    public FleetStatus status() throws StoreException {
        List<List<StoredSession>> pending = new java.util.ArrayList<>(List.of(List.of()));
        try {
            withOutbox(o -> pending.set(0, o.pending()));
        } catch (FleetException e) {
            throw new IllegalStateException(e); // reading the outbox asks no server
        }
        return new FleetStatus(settings.endpoints().stream().map(ClickHouseHttp::where).toList(), pending.get(0),
                shipped, problem, nextTry, lastShipped);
    }

    /** The endpoint a host's sessions go to. */
    URI endpoint(String host) {
        return shipper.endpoint(host);
    }

    @Deactivate
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        http.close();
    }
}
