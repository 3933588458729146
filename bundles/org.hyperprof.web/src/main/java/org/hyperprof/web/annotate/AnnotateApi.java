package org.hyperprof.web.annotate;

import org.hyperprof.api.report.FunctionAnnotations;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * {@code /api/annotate}: {@code hp:annotate}'s answer as JSON; a function it cannot annotate (no such session or
 * function, no code here) is a 404 with its reason.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/annotate",
    Whiteboard.CONTEXT_SELECT})
public final class AnnotateApi extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient FunctionAnnotations annotations;

    @Activate
    public AnnotateApi(@Reference(name = "annotations") FunctionAnnotations annotations) {
        this.annotations = annotations;
    }

    @Override
    protected void answer(Params params, Json json) throws Exception {
        AnnotateParameters p = AnnotateParameters.of(params);
        try {
            AnnotationJson.write(json, annotations.annotate(p.session(), p.symbol(), p.image(), p.domain(),
                    p.source()));
        } catch (ReportException e) {
            throw new NotFound(e.getMessage());
        }
    }
}
