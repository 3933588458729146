package org.hyperprof.web.annotate;

import org.hyperprof.api.report.AnnotatedFunction;
import org.hyperprof.web.http.Json;

/**
 * The annotate page's JSON: {@code hp:annotate --format json}'s fields (addresses as 0x hex), each instruction's
 * share of the function's samples, at most {@link #MAX_LINES} lines (a function of more says how many were left).
 */
final class AnnotationJson {
    /** Lines a page gets at most: a function longer than this is rare, and a table of it unreadable. */
    public static final int MAX_LINES = 20_000;

    private AnnotationJson() {
    }

    static void write(Json w, AnnotatedFunction a) {
        w.beginObject().member("session", String.valueOf(a.session())).member("event", a.event())
                .member("symbol", a.symbol()).member("image", a.image()).member("start", hex(a.start()))
                .member("end", hex(a.end())).member("samples", a.samples()).member("sessionSamples", a.sessionSamples())
                .member("outside", a.outside()).member("linesLeftOut", Math.max(0, a.lines().size() - MAX_LINES))
                .name("lines").beginArray();
        for (AnnotatedFunction.Line l : a.lines().subList(0, Math.min(MAX_LINES, a.lines().size()))) {
            w.beginObject();
            if (l.isInstruction()) {
                w.member("address", hex(l.address())).member("samples", l.samples())
                        .member("share", a.samples() == 0 ? 0.0 : (double) l.samples() / a.samples())
                        .member("instruction", l.text());
            } else {
                w.member("source", l.text());
            }
            w.endObject();
        }
        w.endArray().name("notes").beginArray();
        a.notes().forEach(w::value);
        w.endArray().endObject();
    }

    private static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }
}
