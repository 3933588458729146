package org.hyperprof.web.study;

import java.io.IOException;
import java.util.Optional;

import org.hyperprof.api.study.StudyReport;
import org.hyperprof.api.study.StudyResults;
import org.hyperprof.web.json.PageProperties;
import org.hyperprof.web.json.Replies;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The study page ({@code /study}): the last study's table ({@code /api/study}) and chart
 * ({@code /api/study/chart.svg}, the SVG {@code hp:study} writes: no script in it). Without the study bundle it
 * is not registered.
 */
@Component(service = Servlet.class, property = {PageProperties.CONTEXT, PageProperties.PATTERN + "/study",
    PageProperties.PATTERN + "/api/study", PageProperties.PATTERN + "/api/study/chart.svg",
    PageProperties.TITLE + "Study", PageProperties.PATH + "/study", PageProperties.ORDER + "60"})
public final class StudyServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient StudyResults results;

    @Activate
    public StudyServlet(@Reference StudyResults results) {
        this.results = results;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        switch (request.getServletPath()) {
            case "/study" -> Replies.page(response, StudyServlet.class, "static/study/study.html");
            case "/api/study" -> Replies.json(response, StudyJson.of(results.last()));
            default -> {
                Optional<StudyReport> last = results.last();
                if (last.isEmpty()) {
                    Replies.error(response, HttpServletResponse.SC_NOT_FOUND, "no study has run in this Hyperprof"
                            + " yet: run one (hp:study)");
                } else {
                    Replies.send(response, HttpServletResponse.SC_OK, "image/svg+xml", last.get().chartSvg());
                }
            }
        }
    }
}
