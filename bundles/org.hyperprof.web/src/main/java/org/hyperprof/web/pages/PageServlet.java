package org.hyperprof.web.pages;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A page: an HTML file of this bundle (no inline script: its scripts are files under /static), drawn
 * by its script from JSON endpoints. The servlet answers only its own path exactly.
 */
public abstract class PageServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final String resource;

    /**
     * @param path     the page's path ({@code /}, {@code /flame})
     * @param resource the HTML file, relative to this class's package or absolute ({@code /pages/x.html})
     */
    protected PageServlet(String path, String resource) {
        this.path = path;
        this.resource = resource;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!path.equals(request.getRequestURI())) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND, "no such page");
            return;
        }
        byte[] html;
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            if (in == null) {
                response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR, "the page's file is missing");
                return;
            }
            html = in.readAllBytes();
        }
        response.setContentType("text/html;charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(html.length);
        response.getOutputStream().write(html);
    }

    /** The page's HTML as text (tests). */
    String html() throws IOException {
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
