package org.hyperprof.report.perfscript;

import java.util.List;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.report.kit.ReportConsumer;
import org.hyperprof.report.kit.SessionShelf;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The {@code perfscript} sample consumer and file writer: keeps every sample of the last sessions in
 * the order it came, with its time, thread and call chain ({@link KeptSamples}), and writes them as
 * {@code perf script}'s text ({@link PerfScriptText}): {@code hp:export perfscript text FILE}.
 *
 * <p>Other reports count; this one keeps, so it has ceilings ({@link PerfScriptSettings}). A
 * session that reached one is refused whole, never written in part.
 */
@Component(service = { SampleConsumer.class, ReportFileWriter.class }, configurationPid = PerfScriptConsumer.PID,
        property = { SampleConsumer.NAME + "=" + PerfScriptConsumer.NAME,
                ReportRenderer.NAME + "=" + PerfScriptConsumer.NAME })
@Designate(ocd = PerfScriptSettings.class)
public final class PerfScriptConsumer extends ReportConsumer<KeptSamples> implements ReportFileWriter {

    /** Its {@code consumer.name} and {@code report.name}. */
    public static final String NAME = "perfscript";
    /** Its configuration (the ceilings). */
    public static final String PID = "org.hyperprof.report.perfscript";
    /** The one format. */
    public static final String TEXT = "text";

    /**
     * Samples kept per session by default (about 60 MB), with {@link #DEFAULT_MAX_FRAMES} frames (about
     * 130 MB): two sessions at their ceilings fit a framework of 1 GB of heap beside the others.
     */
    public static final long DEFAULT_MAX_SAMPLES = 1_000_000L;
    /** Call-chain frames kept per session by default: 16 bytes each. */
    public static final long DEFAULT_MAX_FRAMES = 8_000_000L;
    /** Sessions kept by default: each may hold a large recording. */
    public static final int DEFAULT_RETAINED_SESSIONS = 2;

    private static final List<String> FORMATS = List.of(TEXT + ": perf script's text, every sample in time order"
            + " with its call chain (Firefox Profiler, hotspot, speedscope, Perfetto)");

    @Activate
    public PerfScriptConsumer(PerfScriptSettings settings) {
        this(settings.maxSamples(), settings.maxFrames(), settings.retainedSessions());
    }

    /** Keeps at most {@code maxSamples} samples and {@code maxFrames} call-chain frames of each of the last sessions. */
    public PerfScriptConsumer(long maxSamples, long maxFrames, int retainedSessions) {
        this(checked(maxSamples, 1, "maxSamples"), checked(maxFrames, 0, "maxFrames"), retainedSessions, true);
    }

    private PerfScriptConsumer(long maxSamples, long maxFrames, int retainedSessions, boolean checked) {
        super("perf script consumer", new SessionShelf<>(NAME, "export it (hp:export perfscript text FILE)",
                retainedSessions, info -> new KeptSamples(info, maxSamples, maxFrames)));
    }

    private static long checked(long value, long min, String setting) {
        // The chunk tables are made whole per session: a ceiling past the int chunk count is no ceiling.
        long most = (long) Integer.MAX_VALUE * KeptSamples.CHUNK;
        if (value < min || value > most) {
            throw new IllegalArgumentException("the perf script setting " + setting + " is " + value + "; it takes "
                    + min + " to " + most + " (configuration " + PID + ")");
        }
        return value;
    }

    @Override
    public List<String> formats() {
        return FORMATS;
    }

    /**
     * The session's text, checked now (session, format, options, ceilings), so a refused request
     * touches no file; the content writes it sample by sample.
     */
    @Override
    public Content content(ReportRequest request, String format) throws ReportException {
        KeptSamples session = aggregate(request);
        if (!formatName(format).equals(TEXT)) {
            throw new ReportException(NAME + " writes no format '" + format + "'; its format is: " + FORMATS.get(0));
        }
        if (!request.options().isEmpty()) {
            throw new ReportException(NAME + " takes no options (perf script's default fields are all it writes), not "
                    + request.options());
        }
        KeptSamples.Snapshot kept = session.snapshot();
        if (kept.turnedAway() > 0) {
            throw new ReportException(NAME + " kept only the first " + kept.samples() + " samples (" + kept.frames()
                    + " call-chain frames) of session " + kept.info().sessionId() + " and turned away "
                    + kept.turnedAway() + " past its ceiling (maxSamples " + session.maxSamples + ", maxFrames "
                    + session.maxFrames + "); raise them in configuration " + PID + " (e.g. config:edit " + PID
                    + ", config:property-set maxSamples N, config:update) and import the recording again");
        }
        PerfScriptText text = new PerfScriptText(kept, request.domain());
        return text::writeTo;
    }
}
