package org.hyperprof.api.report;

import java.util.Set;

/**
 * Which report to render.
 *
 * @param sessionId the session, or {@link #LATEST}
 * @param domain    one domain's own report, or {@link #ALL_DOMAINS} for the merged report of all domains followed by each domain's own
 * @param options   renderer options (for opreport: {@code symbols}, {@code images}, {@code truth}); empty = the renderer's default
 */
public record ReportRequest(long sessionId, int domain, Set<String> options) {
    public static final long LATEST = -1;
    public static final int ALL_DOMAINS = -1;

    public ReportRequest {
        options = Set.copyOf(options);
    }

    public static ReportRequest latest() {
        return new ReportRequest(LATEST, ALL_DOMAINS, Set.of());
    }
}
