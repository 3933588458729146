package org.hyperprof.web.json;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletResponse;

/**
 * How the fleet, study, live and annotate servlets answer: JSON (never cached), a refusal as JSON
 * {@code {"error": "..."}} with its status (the message says what was wrong and what to do, never a stack
 * trace), and a page's HTML from the bundle.
 */
public final class Replies {
    private Replies() {
    }

    public static void json(HttpServletResponse response, String json) throws IOException {
        send(response, HttpServletResponse.SC_OK, "application/json", json);
    }

    public static void error(HttpServletResponse response, int status, String message) throws IOException {
        send(response, status, "application/json", new JsonWriter().beginObject().member("error", message)
                .endObject().toString());
    }

    public static void send(HttpServletResponse response, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(type + ";charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    /** A page's HTML, a resource of this bundle ({@code static/...}). */
    public static void page(HttpServletResponse response, Class<?> of, String resource) throws IOException {
        try (InputStream in = of.getResourceAsStream("/" + resource)) {
            if (in == null) {
                error(response, HttpServletResponse.SC_INTERNAL_SERVER_ERROR, "the page " + resource
                        + " is missing from the bundle org.hyperprof.web: rebuild it");
                return;
            }
            send(response, HttpServletResponse.SC_OK, "text/html", new String(in.readAllBytes(),
                    StandardCharsets.UTF_8));
        }
    }
}
