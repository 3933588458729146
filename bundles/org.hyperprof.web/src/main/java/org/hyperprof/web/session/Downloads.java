package org.hyperprof.web.session;

import java.io.IOException;
import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.web.http.BadParameter;
import org.hyperprof.web.http.JsonServlet.NotFound;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /download?id=&format=pprof|folded|svg}: a stored session as {@code hp:export} writes it, by the
 * same exporters (pprof's profile.proto, the flame graph's folded stacks and SVG), as an attachment.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/download",
        Whiteboard.CONTEXT_SELECT})
public final class Downloads extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final List<String> FORMATS = List.of("pprof", "folded", "svg");

    private final transient SessionStore store;
    private final transient ReportFileWriter pprof;
    private final transient ReportFileWriter flamegraph;

    @Activate
    public Downloads(@Reference(name = "store") SessionStore store,
            @Reference(name = "pprof", target = "(report.name=pprof)") ReportFileWriter pprof,
            @Reference(name = "flamegraph", target = "(report.name=flamegraph)") ReportFileWriter flamegraph) {
        this.store = store;
        this.pprof = pprof;
        this.flamegraph = flamegraph;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        try {
            Params p = Params.parse(request.getQueryString());
            long id = p.id("id");
            String format = p.choice("format", FORMATS, null);
            if (format == null) {
                throw new BadParameter("parameter 'format' is missing: it takes one of " + FORMATS);
            }
            ReportFileWriter writer = format.equals("pprof") ? pprof : flamegraph;
            StoredSessions.ready(store, id, writer.sessions());
            var content = writer.content(new ReportRequest(id, ReportRequest.ALL_DOMAINS, Set.of()), format);
            String file = "session-" + id + switch (format) {
                case "pprof" -> ".pb.gz";
                case "folded" -> ".folded";
                default -> ".svg";
            };
            response.setContentType(switch (format) {
                case "pprof" -> "application/gzip";
                case "folded" -> "text/plain;charset=utf-8";
                default -> "image/svg+xml";
            });
            response.setHeader("Content-Disposition", "attachment; filename=\"" + file + "\"");
            content.writeTo(response.getOutputStream());
        } catch (BadParameter e) {
            fail(response, HttpServletResponse.SC_BAD_REQUEST, e.getMessage());
        } catch (NotFound e) {
            fail(response, HttpServletResponse.SC_NOT_FOUND, e.getMessage());
        } catch (StoreException | ReportException e) {
            fail(response, HttpServletResponse.SC_INTERNAL_SERVER_ERROR, e.getMessage());
        }
    }

    private static void fail(HttpServletResponse response, int status, String message) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=utf-8");
        response.getWriter().println("hyperprof: " + message);
    }
}
