package org.hyperprof.web.annotate;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.web.http.BadParameter;
import org.hyperprof.web.http.Params;

/**
 * The annotate page's parameters: {@code id} (the session; absent for the latest), {@code symbol} (the function,
 * as the reports print it), {@code image} (a regular expression, when several images have the function),
 * {@code domain} and {@code source} (1: the source lines too).
 */
record AnnotateParameters(long session, String symbol, String image, int domain, boolean source) {

    static AnnotateParameters of(Params params) throws BadParameter {
        String symbol = params.text("symbol", "").strip();
        if (symbol.isEmpty()) {
            throw new BadParameter("parameter 'symbol' is missing: it takes the function to annotate, as the"
                    + " session's report names it (/annotate?id=ID&symbol=main)");
        }
        params.pattern("image"); // refused here when it is no regular expression
        String image = params.text("image", "").strip();
        return new AnnotateParameters(params.number("id", 0, Long.MAX_VALUE, ReportRequest.LATEST), symbol,
                image.isEmpty() ? null : image, params.integer("domain", 0, 65535, ReportRequest.ALL_DOMAINS),
                params.flag("source", false));
    }
}
