package org.hyperprof.web.study;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.hyperprof.api.study.StudyReport;
import org.hyperprof.api.study.StudyResults;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /api/study/chart.svg}: the last study's chart, the SVG {@code hp:study} writes (no script in it). */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/study/chart.svg",
    Whiteboard.CONTEXT_SELECT})
public final class StudyChartSvg extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient StudyResults results;

    @Activate
    public StudyChartSvg(@Reference(name = "study") StudyResults results) {
        this.results = results;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
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
