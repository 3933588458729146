package org.hyperprof.api.report;

import java.io.IOException;

import org.osgi.annotation.versioning.ProviderType;

/**
 * perf report's flat profile by process ({@code perf report --no-children --sort <keys> -n}) of a
 * stored session: what {@code hp:report --sort} prints. The perf source provides it, so that a
 * session reported later prints as {@code hp:import --sort} printed it when it was imported.
 *
 * @since 3.1
 */
@ProviderType
public interface SortedReporter {
    /**
     * Prints the session {@code request} names ({@link ReportRequest#LATEST}: the newest stored one)
     * by perf's sort {@code keys} ({@code comm,dso,sym}, {@code pid,dso,sym}, {@code comm} or
     * {@code pid}), its rows as many as the request's {@code top=N} option says (30 by default).
     *
     * @throws ReportException for keys or options it does not take, or a session it cannot read
     *                         (saying why: no store, no such session)
     */
    void print(ReportRequest request, String keys, Appendable out) throws IOException, ReportException;
}
