package org.hyperprof.report.opreport;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code opreport} sample consumer: aggregates each session's samples per domain, vCPU, counter,
 * image, symbol and PC, and the caller&rarr;callee arcs of their call chains, and prints them as
 * OProfile's opreport would - once merged over all domains (which the original could only get by
 * concatenating per-domain reports by hand), then each domain's own report - with the image and
 * symbol summaries (-l), per-instruction details (-d), the call graph (-c), the hypervisor /
 * kernel / user split, the accounting, and, when the simulator supplied the ground truth, the true
 * share and the error of every row. {@link #options()} lists what a request may ask for.
 *
 * <p>Calls from the profiler come on this consumer's own delivery thread; reports may be rendered
 * from any thread at any time, also while the session runs. It keeps the last
 * {@value #DEFAULT_RETAINED_SESSIONS} sessions (or as many as the constructor says).
 */
@Component(service = { SampleConsumer.class, ReportRenderer.class }, property = {
        SampleConsumer.NAME + "=" + OpreportConsumer.NAME, ReportRenderer.NAME + "=" + OpreportConsumer.NAME })
public final class OpreportConsumer implements SampleConsumer, ReportRenderer {

    /** Its {@code consumer.name} and {@code report.name}. */
    public static final String NAME = "opreport";

    /** Sessions kept for rendering when no other number is given. */
    public static final int DEFAULT_RETAINED_SESSIONS = 16;

    private final int retainedSessions;

    /** Oldest first; guarded by itself. */
    private final ArrayDeque<SessionAggregate> sessions = new ArrayDeque<>();

    /** The session the last batch went to: spares the delivery thread a search per batch. */
    private volatile SessionAggregate lastTarget;

    /** Deliveries it could not attribute to a session it keeps; guarded by {@link #sessions}. */
    private long strayDeliveries;
    private long straySamples;
    private String firstStray;

    /** Keeps the last {@value #DEFAULT_RETAINED_SESSIONS} sessions (DS uses this constructor). */
    public OpreportConsumer() {
        this(DEFAULT_RETAINED_SESSIONS);
    }

    /** Keeps the last {@code retainedSessions} sessions for rendering. */
    public OpreportConsumer(int retainedSessions) {
        if (retainedSessions < 1) {
            throw new IllegalArgumentException(
                    "opreport must keep at least 1 session for rendering, not " + retainedSessions);
        }
        this.retainedSessions = retainedSessions;
    }

    // ---------------------------------------------------------------- SampleConsumer

    @Override
    public void sessionStarted(SessionInfo session) {
        if (session == null) {
            stray("a session start without session", 0);
            return;
        }
        SessionAggregate aggregate = new SessionAggregate(session);
        synchronized (sessions) {
            sessions.removeIf(s -> s.sessionId() == session.sessionId());
            sessions.addLast(aggregate);
            while (sessions.size() > retainedSessions) {
                sessions.removeFirst();
            }
        }
        lastTarget = aggregate;
    }

    /** Counts the batch; never throws for bad content (see {@link SessionAggregate#accept}). */
    @Override
    public void samples(SampleBatch batch) {
        if (batch == null) {
            stray("a null batch", 0);
            return;
        }
        SessionAggregate target = lastTarget;
        if (target == null || target.sessionId() != batch.sessionId) {
            target = find(batch.sessionId);
            if (target == null) {
                stray("a batch of " + batch.size + " samples for session " + batch.sessionId, batch.size);
                return;
            }
            lastTarget = target;
        }
        target.accept(batch);
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
        if (summary == null) {
            stray("a session end without summary", 0);
            return;
        }
        SessionAggregate target = find(summary.sessionId());
        if (target == null) {
            stray("the end of session " + summary.sessionId(), 0);
            return;
        }
        target.end(summary);
    }

    // ---------------------------------------------------------------- ReportRenderer

    @Override
    public List<Long> sessions() {
        synchronized (sessions) {
            List<Long> ids = new ArrayList<>(sessions.size());
            for (SessionAggregate s : sessions) {
                ids.add(s.sessionId());
            }
            return List.copyOf(ids);
        }
    }

    @Override
    public List<String> options() {
        return ReportOptions.DESCRIPTIONS;
    }

    /**
     * Renders the whole report before writing any of it, so a failure leaves {@code out} untouched.
     */
    @Override
    public void render(ReportRequest request, Appendable out) throws IOException, ReportException {
        Objects.requireNonNull(out, "out");
        if (request == null) {
            throw new ReportException("no report request; ask for a session (or the latest) and a domain (or all)");
        }
        ReportOptions options = ReportOptions.parse(request.options());
        SessionAggregate session = select(request.sessionId());
        OpreportText.ConsumerStrays strays;
        synchronized (sessions) {
            strays = new OpreportText.ConsumerStrays(strayDeliveries, straySamples, firstStray);
        }
        SessionAggregate.Snapshot snapshot = session.snapshot(options.callgraph(), options.details());
        String text = new OpreportText(snapshot, options).render(request.domain(), strays);
        out.append(text);
    }

    private SessionAggregate select(long sessionId) throws ReportException {
        synchronized (sessions) {
            if (sessions.isEmpty()) {
                throw new ReportException("opreport has no session yet; run a profile first (e.g. hp:profile),"
                        + " then ask for its report");
            }
            if (sessionId == ReportRequest.LATEST) {
                return sessions.getLast();
            }
            for (SessionAggregate s : sessions) {
                if (s.sessionId() == sessionId) {
                    return s;
                }
            }
            throw new ReportException("opreport has no session " + sessionId + "; the sessions it keeps are "
                    + sessions.stream().map(s -> Long.toString(s.sessionId())).collect(Collectors.joining(", "))
                    + " (the last " + retainedSessions + " at most); ask for one of them or for the latest");
        }
    }

    private SessionAggregate find(long sessionId) {
        synchronized (sessions) {
            Iterator<SessionAggregate> newestFirst = sessions.descendingIterator();
            while (newestFirst.hasNext()) {
                SessionAggregate s = newestFirst.next();
                if (s.sessionId() == sessionId) {
                    return s;
                }
            }
            return null;
        }
    }

    private void stray(String what, int samples) {
        synchronized (sessions) {
            strayDeliveries++;
            straySamples += samples;
            if (firstStray == null) {
                firstStray = what;
            }
        }
    }

    @Override
    public String toString() {
        return "opreport consumer (" + sessions().size() + " sessions kept)";
    }
}
