package org.hyperprof.web.pages;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A page: an HTML file of this bundle in the pages' shared shell (no inline script: its scripts are files under
 * /static), drawn by its script from JSON endpoints ({@link PageTable} lists them). The servlet answers only its own path exactly.
 */
public final class PageServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final String SHELL = "/pages/shell.html";
    private static final String HEAD_SLOT = "<!-- the page's head -->";
    private static final String MAIN_SLOT = "<!-- the page's main -->";

    private final String path;
    private final String resource;

    /**
     * @param path     the page's path ({@code /}, {@code /flame})
     * @param resource the page's HTML file, absolute ({@code /pages/x.html}): its head lines, then its
     *                 {@code <main>}
     */
    PageServlet(String path, String resource) {
        this.path = path;
        this.resource = resource;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!path.equals(request.getRequestURI())) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND, "no such page");
            return;
        }
        String page = page(getClass(), resource);
        if (page == null) {
            response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR, "the page's file is missing");
            return;
        }
        byte[] html = page.getBytes(StandardCharsets.UTF_8);
        response.setContentType("text/html;charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(html.length);
        response.getOutputStream().write(html);
    }

    /**
     * The shell every page shares ({@value #SHELL}: the head's charset, style and navigation script, the
     * navigation) filled with the page's file, or null when a file is missing: its head lines (title, its own scripts), then its {@code <main>}.
     */
    static String page(Class<?> loader, String resource) throws IOException {
        String shell = text(PageServlet.class, SHELL);
        String file = text(loader, resource);
        if (shell == null || file == null) {
            return null;
        }
        int main = file.indexOf("<main>");
        return shell.replace(HEAD_SLOT, file.substring(0, main).strip())
                .replace(MAIN_SLOT, file.substring(main).strip());
    }

    private static String text(Class<?> loader, String resource) throws IOException {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
