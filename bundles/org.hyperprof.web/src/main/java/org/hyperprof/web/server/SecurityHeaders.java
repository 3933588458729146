package org.hyperprof.web.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The headers every answer carries. The policy allows only this server's own files: no inline script
 * or style, no frames, no plug-ins, nothing from elsewhere; so a profile's symbol names, shown in a
 * page, can never run as script. JSON is never cached: a profile stays in memory only.
 */
public final class SecurityHeaders {
    /** The Content-Security-Policy of every answer. */
    public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private SecurityHeaders() {
    }

    /** The headers for an answer to a request of this path. */
    public static Map<String, String> forPath(String path) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Security-Policy", CSP);
        h.put("X-Content-Type-Options", "nosniff");
        h.put("Referrer-Policy", "no-referrer");
        h.put("X-Frame-Options", "DENY");
        h.put("Cross-Origin-Resource-Policy", "same-origin");
        if (path == null || !path.startsWith("/static/")) {
            h.put("Cache-Control", "no-store");
        } else {
            h.put("Cache-Control", "private, max-age=60");
        }
        return h;
    }
}
