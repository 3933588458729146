package org.hyperprof.web.study;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.hyperprof.api.study.StudyReport;
import org.hyperprof.api.study.StudyResults;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The last study: {@code /api/study}, its figures with their intervals as JSON, and {@code /api/study/chart.svg},
 * its chart, the SVG {@code hp:study} writes (no script in it).
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/study",
    "osgi.http.whiteboard.servlet.pattern=" + StudyApi.CHART, Whiteboard.CONTEXT_SELECT})
public final class StudyApi extends JsonServlet {
    private static final long serialVersionUID = 1L;
    static final String CHART = "/api/study/chart.svg";

    private final transient StudyResults results;

    @Activate
    public StudyApi(@Reference(name = "study") StudyResults results) {
        this.results = results;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (CHART.equals(request.getServletPath())) {
            chart(response);
        } else {
            super.doGet(request, response);
        }
    }

    @Override
    protected void answer(Params params, Json json) {
        StudyJson.write(json, results.last());
    }

    private void chart(HttpServletResponse response) throws IOException {
        Optional<StudyReport> last = results.last();
        if (last.isEmpty()) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND, "no study has run in this Hyperprof yet");
            return;
        }
        byte[] svg = last.get().chartSvg().getBytes(StandardCharsets.UTF_8);
        response.setContentType("image/svg+xml");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(svg.length);
        response.getOutputStream().write(svg);
    }
}
