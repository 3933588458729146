package org.hyperprof.api.report;

import java.util.List;

import org.hyperprof.api.output.Content;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A consumer that writes what it collected as files other tools open (pprof's profile.proto,
 * folded stacks, an SVG flame graph, ...). Registered with the {@value ReportRenderer#NAME}
 * property. It makes the bytes; where they go (a file replaced whole, a FIFO, a device) is the
 * business of {@link org.hyperprof.api.output.OutputFiles}, the one place that places files.
 */
@ConsumerType
public interface ReportFileWriter {
    /** The sessions it can write, oldest first. */
    List<Long> sessions();

    /** The formats it writes, e.g. {@code pprof}, {@code folded}, {@code svg}, each with a one-line description after a colon. */
    List<String> formats();

    /**
     * The session in {@code format}, ready to be written. Every check is made here, so a refused
     * request touches no file; the report is taken now (later samples are not in it), and writing
     * it fails only for I/O reasons.
     *
     * @throws ReportException for an unknown session, format or option, saying what exists
     */
    Content content(ReportRequest request, String format) throws ReportException;
}
