package org.hyperprof.report.pprof;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.pprof.proto.Profile;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code pprof} sample consumer: aggregates each session's samples per (domain, vCPU, mode,
 * call stack) and writes them as pprof's {@code profile.proto}, gzip-compressed, which
 * {@code go tool pprof}, Pyroscope, Parca and speedscope open. The encoding is protobuf-java's,
 * on message classes generated from this bundle's {@code profile.proto} (see
 * {@link ProfileBuilder} for what goes where).
 *
 * <p>Calls from the profiler come on this consumer's own delivery thread; files may be written from
 * any thread at any time, also while the session runs. It keeps the last
 * {@value #DEFAULT_RETAINED_SESSIONS} sessions (or as many as the constructor says). Memory per
 * session grows with the distinct PCs and stacks, never with the number of samples, and is bounded
 * by {@value #DEFAULT_EXACT_LOCATIONS} exact PCs and {@value #DEFAULT_STACKS} stacks (past those,
 * PCs fold into their function and stacks lose their callers; both are counted in the profile's
 * comments).
 */
@Component(service = { SampleConsumer.class, ReportFileWriter.class }, property = {
        SampleConsumer.NAME + "=" + PprofConsumer.NAME, ReportRenderer.NAME + "=" + PprofConsumer.NAME })
public final class PprofConsumer implements SampleConsumer, ReportFileWriter {

    /** Its {@code consumer.name}, {@code report.name} and its one format. */
    public static final String NAME = "pprof";

    /** The format description {@link #formats()} lists. */
    public static final String FORMAT = NAME + ": pprof profile.proto, gzip-compressed (.pb.gz);"
            + " opens in go tool pprof, Pyroscope, Parca, speedscope";

    public static final int DEFAULT_RETAINED_SESSIONS = 16;
    public static final int DEFAULT_EXACT_LOCATIONS = 1 << 20;
    public static final int DEFAULT_STACKS = 1 << 20;

    private final int retainedSessions;
    private final int exactLocations;
    private final int stackLimit;
    private final LongSupplier wallClockMillis;

    /** Oldest first; guarded by itself. */
    private final ArrayDeque<SessionStacks> sessions = new ArrayDeque<>();

    /** The session the last batch went to: spares the delivery thread a search per batch. */
    private volatile SessionStacks lastTarget;

    /** Deliveries it could not attribute to a session it keeps; guarded by {@link #sessions}. */
    private long strayDeliveries;
    private long straySamples;
    private String firstStray;

    /** The DS constructor: default limits, the system clock for the profile's start time. */
    public PprofConsumer() {
        this(DEFAULT_RETAINED_SESSIONS, DEFAULT_EXACT_LOCATIONS, DEFAULT_STACKS, System::currentTimeMillis);
    }

    /**
     * @param retainedSessions sessions kept for writing
     * @param exactLocations   distinct PCs kept per session before new ones fold into their function
     * @param stackLimit       distinct stacks kept per session before new ones lose their callers
     * @param wallClockMillis  the clock that stamps a session's start ({@code time_nanos})
     */
    public PprofConsumer(int retainedSessions, int exactLocations, int stackLimit, LongSupplier wallClockMillis) {
        if (retainedSessions < 1) {
            throw new IllegalArgumentException("pprof must keep at least 1 session for writing, not " + retainedSessions);
        }
        this.retainedSessions = retainedSessions;
        this.exactLocations = exactLocations;
        this.stackLimit = stackLimit;
        this.wallClockMillis = wallClockMillis;
        // Fails early on a bad limit, not at the first session.
        new LocationTable(exactLocations);
        new StackTable(1, stackLimit);
    }

    // ---------------------------------------------------------------- SampleConsumer

    @Override
    public void sessionStarted(SessionInfo session) {
        if (session == null) {
            stray("a session start without session", 0);
            return;
        }
        SessionStacks aggregate;
        try {
            aggregate = new SessionStacks(session, wallClockMillis.getAsLong(), exactLocations, stackLimit);
        } catch (IllegalArgumentException e) {
            stray(e.getMessage(), 0);
            return;
        }
        synchronized (sessions) {
            sessions.removeIf(s -> s.sessionId() == session.sessionId());
            sessions.addLast(aggregate);
            while (sessions.size() > retainedSessions) {
                sessions.removeFirst();
            }
        }
        lastTarget = aggregate;
    }

    /** Counts the batch; never throws for bad content (see {@link SessionStacks#accept}). */
    @Override
    public void samples(SampleBatch batch) {
        if (batch == null) {
            stray("a null batch", 0);
            return;
        }
        SessionStacks target = lastTarget;
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
        SessionStacks target = find(summary.sessionId());
        if (target == null) {
            stray("the end of session " + summary.sessionId(), 0);
            return;
        }
        target.end(summary);
    }

    // ---------------------------------------------------------------- ReportFileWriter

    @Override
    public List<Long> sessions() {
        synchronized (sessions) {
            List<Long> ids = new ArrayList<>(sessions.size());
            for (SessionStacks s : sessions) {
                ids.add(s.sessionId());
            }
            return List.copyOf(ids);
        }
    }

    @Override
    public List<String> formats() {
        return List.of(FORMAT);
    }

    /**
     * Builds the whole profile first, then writes it gzip-compressed to a temporary file beside
     * {@code target} and moves that into place: a failure leaves no file (and no old file changed).
     */
    @Override
    public Path write(ReportRequest request, String format, Path target) throws IOException, ReportException {
        if (request == null) {
            throw new ReportException("no report request; ask for a session (or the latest) and a domain (or all)");
        }
        if (format == null || !NAME.equals(format.trim().toLowerCase(Locale.ROOT))) {
            throw new ReportException("pprof writes the format 'pprof' only, not '" + format + "'; formats: " + FORMAT);
        }
        if (!request.options().isEmpty()) {
            throw new ReportException("pprof takes no options, but got " + new java.util.TreeSet<>(request.options())
                    + "; pick the domain through the request, and views (focus, tags, sample type) in pprof itself");
        }
        if (target == null) {
            throw new ReportException("no target file; name the file to write, e.g. profile.pb.gz");
        }
        Path file = target.toAbsolutePath().normalize();
        if (Files.isDirectory(file)) {
            throw new ReportException("the target " + file + " is a directory; name a file in it, e.g. "
                    + file.resolve("profile.pb.gz"));
        }
        SessionStacks session = select(request.sessionId());
        Profile profile = ProfileBuilder.build(session.snapshot(), request.domain(), strays());
        writeAtomically(profile, file);
        return file;
    }

    private static void writeAtomically(Profile profile, Path file) throws IOException {
        Path dir = file.getParent();
        Files.createDirectories(dir);
        // Created like any new file (the umask applies), not with createTempFile's owner-only mode:
        // a profile is meant to be shared.
        Path temporary = dir.resolve("." + file.getFileName() + "."
                + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
        boolean moved = false;
        try {
            try (OutputStream out = new GZIPOutputStream(new BufferedOutputStream(
                    Files.newOutputStream(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)))) {
                profile.writeTo(out);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
        } finally {
            if (!moved) {
                Files.deleteIfExists(temporary);
            }
        }
    }

    private SessionStacks select(long sessionId) throws ReportException {
        synchronized (sessions) {
            if (sessions.isEmpty()) {
                throw new ReportException("pprof has no session yet; run a profile first (e.g. hp:profile),"
                        + " then write it");
            }
            if (sessionId == ReportRequest.LATEST) {
                return sessions.getLast();
            }
            for (SessionStacks s : sessions) {
                if (s.sessionId() == sessionId) {
                    return s;
                }
            }
            throw new ReportException("pprof has no session " + sessionId + "; the sessions it keeps are "
                    + sessions.stream().map(s -> Long.toString(s.sessionId())).collect(Collectors.joining(", "))
                    + " (the last " + retainedSessions + " at most); ask for one of them or for the latest");
        }
    }

    private SessionStacks find(long sessionId) {
        synchronized (sessions) {
            Iterator<SessionStacks> newestFirst = sessions.descendingIterator();
            while (newestFirst.hasNext()) {
                SessionStacks s = newestFirst.next();
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

    /** A comment line about stray deliveries, or null when there were none. */
    private String strays() {
        synchronized (sessions) {
            if (strayDeliveries == 0) {
                return null;
            }
            return "the pprof consumer could not attribute " + strayDeliveries + " deliveries (" + straySamples
                    + " samples) to a session it keeps; first: " + firstStray;
        }
    }

    @Override
    public String toString() {
        return "pprof consumer (" + sessions().size() + " sessions kept)";
    }
}
