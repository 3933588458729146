package org.hyperprof.api.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A consumer that writes what it collected as files other tools open (pprof's profile.proto,
 * folded stacks, an SVG flame graph, ...). Registered with the {@value ReportRenderer#NAME}
 * property. A write either completes or leaves no file behind.
 */
@ProviderType
public interface ReportFileWriter {
    /** The sessions it can write, oldest first. */
    List<Long> sessions();

    /** The formats it writes, e.g. {@code pprof}, {@code folded}, {@code svg}, each with a one-line description after a colon. */
    List<String> formats();

    /**
     * Writes the session in {@code format} to {@code target} (a file; written to a temporary file
     * next to it and moved into place).
     *
     * @return the file written
     * @throws ReportException for an unknown session or format, saying what exists
     */
    Path write(ReportRequest request, String format, Path target) throws IOException, ReportException;
}
