package org.hyperprof.report.pprof;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.zip.GZIPOutputStream;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.report.kit.ReportConsumer;
import org.hyperprof.report.kit.RequestOptions;
import org.hyperprof.report.kit.RowFilter;
import org.hyperprof.report.kit.SessionShelf;
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
public final class PprofConsumer extends ReportConsumer<SessionStacks> implements ReportFileWriter {

    /** Its {@code consumer.name}, {@code report.name} and its one format. */
    public static final String NAME = "pprof";

    /** The format description {@link #formats()} lists. */
    public static final String FORMAT = NAME + ": pprof profile.proto, gzip-compressed (.pb.gz);"
            + " opens in go tool pprof, Pyroscope, Parca, speedscope";

    public static final int DEFAULT_RETAINED_SESSIONS = 16;
    public static final int DEFAULT_EXACT_LOCATIONS = 1 << 20;
    public static final int DEFAULT_STACKS = 1 << 20;

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
        super("pprof consumer", new SessionShelf<>(NAME, "write it", retainedSessions,
                sessionsOf(exactLocations, stackLimit, wallClockMillis)));
    }

    /** What makes a session's stacks; fails early on a bad limit, not at the first session. */
    private static Function<SessionInfo, SessionStacks> sessionsOf(int exactLocations, int stackLimit,
            LongSupplier wallClockMillis) {
        Objects.requireNonNull(wallClockMillis, "wallClockMillis");
        new LocationTable(exactLocations);
        new StackTable(1, stackLimit);
        return info -> new SessionStacks(info, wallClockMillis.getAsLong(), exactLocations, stackLimit);
    }

    // ---------------------------------------------------------------- ReportFileWriter

    @Override
    public List<String> formats() {
        return List.of(FORMAT);
    }

    /**
     * Builds the whole profile now (every check first, so a refused request touches no file); the
     * content only compresses it into the stream.
     */
    @Override
    public Content content(ReportRequest request, String format) throws ReportException {
        if (request == null) {
            throw new ReportException("no report request; ask for a session (or the latest) and a domain (or all)");
        }
        if (!NAME.equals(formatName(format))) {
            throw new ReportException("pprof writes the format 'pprof' only, not '" + format + "'; formats: " + FORMAT);
        }
        // the report filters only; views (focus, tags, sample type) are pprof's own
        RequestOptions options = new RequestOptions(NAME, RowFilter.DESCRIPTIONS, request.options());
        RowFilter filter = RowFilter.read(options);
        options.check();
        SessionStacks session = aggregate(request);
        Profile profile = ProfileBuilder.build(session.snapshot(), request.domain(), filter, strays());
        return out -> {
            GZIPOutputStream gzip = new GZIPOutputStream(out);
            profile.writeTo(gzip);
            gzip.finish();
        };
    }

    /** A comment line about stray deliveries, or null when there were none. */
    private String strays() {
        SessionShelf.Strays strays = shelf.strays();
        if (!strays.any()) {
            return null;
        }
        return "the pprof consumer could not attribute " + strays.deliveries() + " deliveries (" + strays.samples()
                + " samples) to a session it keeps; first: " + strays.first();
    }
}
