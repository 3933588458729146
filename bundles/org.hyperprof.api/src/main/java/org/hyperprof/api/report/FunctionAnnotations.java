package org.hyperprof.api.report;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One function's instructions with the samples of each, as {@code hp:annotate} gives them, for a reader other
 * than the command (the web view's annotate page). Implemented by the annotation plug-in, so a consumer type, as
 * every interface a plug-in implements (a later minor version of this package leaves it resolvable).
 *
 * @since 3.2
 */
@ConsumerType
public interface FunctionAnnotations {
    /**
     * Annotates {@code symbol} of a session; a stored session no report keeps is replayed from the store first.
     *
     * @param session the session's id, or {@link ReportRequest#LATEST}
     * @param symbol  the function's name as the reports print it (or as recorded)
     * @param image   a regular expression the image's name must contain (when several have the function), or null
     * @param domain  only this domain's samples, or {@link ReportRequest#ALL_DOMAINS}
     * @param source  whether the source lines (DWARF) come above their instructions
     * @throws ReportException when it cannot: no such session or function, no file of the image here, a session
     *                         that does not say where its code lay; the message says which and what to do
     */
    AnnotatedFunction annotate(long session, String symbol, String image, int domain, boolean source)
            throws ReportException;
}
