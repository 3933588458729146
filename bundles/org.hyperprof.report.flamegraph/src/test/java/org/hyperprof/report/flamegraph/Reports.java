package org.hyperprof.report.flamegraph;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.output.OutputFilesComponent;

/** Renders a consumer's folded text, and writes its files, for tests. */
final class Reports {
    private Reports() {
    }

    static String folded(FlameGraphConsumer consumer, int domain, String... options)
            throws IOException, ReportException {
        StringBuilder out = new StringBuilder();
        consumer.render(new ReportRequest(ReportRequest.LATEST, domain, Set.of(options)), out);
        return out.toString();
    }

    static String folded(FlameGraphConsumer consumer) throws IOException, ReportException {
        return folded(consumer, ReportRequest.ALL_DOMAINS);
    }

    /** Writes a session to {@code file} as hp:export does: the writer's content, placed by OutputFiles. */
    static Path written(ReportFileWriter writer, ReportRequest request, String format, Path file)
            throws IOException, ReportException {
        return new OutputFilesComponent().write(file, writer.content(request, format)).file();
    }
}
