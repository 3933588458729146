package org.hyperprof.report.flamegraph;

import java.io.IOException;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;

/** Renders a consumer's folded text for tests. */
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
}
