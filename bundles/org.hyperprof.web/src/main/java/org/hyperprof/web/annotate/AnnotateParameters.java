package org.hyperprof.web.annotate;

import java.util.function.Function;

import org.hyperprof.api.report.ReportRequest;

/**
 * The annotate page's parameters: {@code id} (the session; absent for the latest), {@code symbol} (the function,
 * as the reports print it), {@code image} (a regular expression, when several images have the function),
 * {@code domain} and {@code source} (1: the source lines too).
 */
public record AnnotateParameters(long session, String symbol, String image, int domain, boolean source) {

    public static AnnotateParameters of(Function<String, String> parameter) {
        String symbol = given(parameter, "symbol");
        if (symbol == null) {
            throw new IllegalArgumentException("parameter symbol: the function to annotate, as the session's report"
                    + " names it (/annotate?id=ID&symbol=main)");
        }
        if (symbol.length() > 4096) {
            throw new IllegalArgumentException("parameter symbol: at most 4096 characters");
        }
        String image = given(parameter, "image");
        if (image != null && image.length() > 1024) {
            throw new IllegalArgumentException("parameter image: at most 1024 characters");
        }
        return new AnnotateParameters(number(parameter, "id", ReportRequest.LATEST, 0, Long.MAX_VALUE), symbol, image,
                (int) number(parameter, "domain", ReportRequest.ALL_DOMAINS, 0, 65535), flag(parameter, "source"));
    }

    private static String given(Function<String, String> parameter, String name) {
        String v = parameter.apply(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static long number(Function<String, String> parameter, String name, long absent, long min, long max) {
        String v = given(parameter, name);
        if (v == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("parameter " + name + ": a whole number from " + min + " to " + max
                + ", not '" + v + "'");
    }

    private static boolean flag(Function<String, String> parameter, String name) {
        String v = given(parameter, name);
        if (v == null || v.equals("0") || v.equals("false")) {
            return false;
        }
        if (v.equals("1") || v.equals("true")) {
            return true;
        }
        throw new IllegalArgumentException("parameter " + name + ": 1 or 0, not '" + v + "'");
    }
}
