package org.hyperprof.store.duckdb;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.StoredSession;

/** A session the store has seen start and not yet end: what it was, and its samples so far. */
final class OpenSession {
    private final SessionInfo info;
    private final String hostId;
    private final Instant startedAt;
    private final SampleRows rows;
    /** The samples taken and not yet handed to the writer (the delivery thread's). */
    private SampleChunk pending;
    private final List<String> notes = new ArrayList<>();
    /** What is said of it while it runs (SessionMarks), changed under this object's monitor with closed. */
    private volatile Marks marks = Marks.NONE;
    private boolean closed;
    private final Checkpoints checkpoints = new Checkpoints();

    OpenSession(SessionInfo info, String hostId, Instant startedAt) {
        this.info = info;
        this.hostId = hostId;
        this.startedAt = startedAt;
        this.rows = new SampleRows(info.counterSlots());
        this.pending = new SampleChunk(rows);
    }

    SessionInfo info() {
        return info;
    }

    /** Its rows: the writer's, counted from the chunks it was handed. */
    SampleRows rows() {
        return rows;
    }

    /** The chunk the delivery thread fills now. */
    SampleChunk pending() {
        return pending;
    }

    /** The chunk filled so far, to hand to the writer; a new one is filled from now on (delivery thread). */
    SampleChunk takePending() {
        SampleChunk taken = pending;
        pending = new SampleChunk(rows);
        return taken;
    }

    /** Its name, labels and study: one value, replaced whole, so a reader outside the monitor sees one state. */
    record Marks(String name, List<String> labels, String study) {
        static final Marks NONE = new Marks(null, List.of(), null);

        Marks {
            labels = List.copyOf(labels);
        }
    }

    Marks marks() {
        return marks;
    }

    void marks(Marks m) {
        marks = m;
    }

    /** Whether its final row is made: what is said of it from then on updates that row. */
    boolean closed() {
        return closed;
    }

    void close() {
        closed = true;
    }

    /** A problem the store met with this session, kept in its notes. */
    void note(String line) {
        notes.add(line);
    }

    /** Its row while it runs. */
    SessionRow running() {
        return row(StoredSession.RUNNING, null, Accounting.ZERO, 0, 0, 0, List.copyOf(notes), null, null);
    }

    /**
     * Its row when the store stops before the session ends: incomplete, with the samples of its last
     * checkpoint stored (none before one).
     */
    SessionRow cutShort(Instant at) {
        List<String> all = new ArrayList<>(notes);
        all.add(STORE_STOPPED);
        Checkpoints.Written last = checkpoints.last();
        long stored = last == null ? 0 : last.samples();
        if (last != null) {
            all.add("rows as of the last checkpoint at " + last.at());
        }
        return row(StoredSession.INCOMPLETE, at, Accounting.ZERO, stored, stored, 0, all, STORE_STOPPED, null);
    }

    Checkpoints checkpoints() {
        return checkpoints;
    }

    /** Its row at a checkpoint: still running, with the samples so far; the store's books so far. */
    SessionRow checkpoint() {
        return row(StoredSession.RUNNING, null, Accounting.ZERO, rows.samples(), rows.samples(), 0, List.copyOf(notes),
                null, null);
    }

    /** The books a checkpoint writes: what the store received so far; the source's are known at the end. */
    SessionSummary checkpointBooks(String consumerName) {
        return new SessionSummary(info.sessionId(), Accounting.ZERO, List.of(),
                List.of(new ConsumerAccounting(consumerName, rows.samples(), 0, null)), null, null, 0, null);
    }

    static final String STORE_STOPPED = "the store stopped before the session ended";

    /**
     * Its row once ended: incomplete when the store missed samples (its books in the summary say how
     * many), completed or stopped as the summary says otherwise.
     */
    SessionRow ended(SessionSummary summary, String consumerName, Instant endedAt) {
        long received = rows.samples();
        long missed = 0;
        for (ConsumerAccounting c : summary.consumers()) {
            if (c.consumer().equals(consumerName)) {
                received = c.received();
                missed = c.missed();
            }
        }
        String status = missed > 0 ? StoredSession.INCOMPLETE
                : summary.completed() ? StoredSession.COMPLETED : StoredSession.STOPPED;
        List<String> all = new ArrayList<>(summary.notes());
        if (missed > 0) {
            all.add("the store missed " + missed + " of " + (received + missed) + " samples");
        }
        all.addAll(notes);
        return row(status, endedAt, summary.accounting(), rows.samples(), received, missed, all, summary.endReason(),
                summary);
    }

    /**
     * The time the session profiled: the simulated time of its cycles (per physical CPU) at the
     * processor's clock, else its first to last sample time; -1 when neither is known.
     */
    long profiledNanos(SessionSummary summary) {
        if (summary != null && summary.simulatedCycles() > 0 && info.mhz() > 0) {
            long cycles = summary.simulatedCycles();
            long mhz = info.mhz();
            // cycles / MHz is microseconds; split so that no product overflows.
            return cycles / mhz * 1000L + cycles % mhz * 1000L / mhz;
        }
        return rows.timeSpan();
    }

    private SessionRow row(String status, Instant endedAt, Accounting books, long samples, long received,
            long missed, List<String> allNotes, String endReason, SessionSummary summary) {
        List<String> events = new ArrayList<>();
        for (CounterConfig c : info.counters()) {
            events.add(String.format(Locale.ROOT, "%s:%d:0x%02x", c.event().name(), c.count(), c.unitMask()));
        }
        StoredSession s = new StoredSession(info.sessionId(), hostId, info.source(), marks.name(), marks.labels(),
                info.hostName(), info.cpuType(), events, startedAt, endedAt, status, samples, books, received, missed,
                allNotes, marks.study(), marks.study() != null, List.of(),
                summary == null ? SampleBatch.UNKNOWN : profiledNanos(summary));
        return new SessionRow(s, info.cpuName(), info.mhz(), endReason,
                summary == null ? 0 : summary.simulatedCycles(), summary == null ? null : summary.hypervisor(),
                info.groundTruth(), info.dictionary().demangles());
    }
}
