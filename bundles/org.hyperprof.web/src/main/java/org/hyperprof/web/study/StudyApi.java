package org.hyperprof.web.study;

import org.hyperprof.api.study.StudyResults;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /api/study}: the last study's figures with their intervals, as JSON. */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/study",
    Whiteboard.CONTEXT_SELECT})
public final class StudyApi extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient StudyResults results;

    @Activate
    public StudyApi(@Reference(name = "study") StudyResults results) {
        this.results = results;
    }

    @Override
    protected void answer(Params params, Json json) {
        StudyJson.write(json, results.last());
    }
}
