package org.hyperprof.web.pages;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Component;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /static/*}: the view's scripts, styles and images, from this bundle's {@code static/} folder
 * (every asset from the bundle, none from elsewhere). Paths are plain names in folders: no "..", no
 * dot files; only known types are served.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/static/*",
        Whiteboard.CONTEXT_SELECT})
public final class StaticFiles extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private static final Pattern SAFE = Pattern.compile("(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}){1,4}");
    private static final Map<String, String> TYPES = Map.of(
            "js", "text/javascript;charset=utf-8",
            "mjs", "text/javascript;charset=utf-8",
            "css", "text/css;charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "json", "application/json;charset=utf-8",
            "html", "text/html;charset=utf-8");

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        String type = path == null ? null : type(path);
        URL file = type == null || !SAFE.matcher(path).matches() ? null : StaticFiles.class.getResource("/static" + path);
        if (file == null) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND, "no such file");
            return;
        }
        response.setContentType(type);
        try (InputStream in = file.openStream()) {
            in.transferTo(response.getOutputStream());
        }
    }

    /** The content type by the name's extension, or null for a type not served. */
    static String type(String path) {
        int dot = path.lastIndexOf('.');
        return dot < 0 ? null : TYPES.get(path.substring(dot + 1).toLowerCase(Locale.ROOT));
    }
}
