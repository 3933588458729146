package org.hyperprof.web.annotate;

import java.io.IOException;

import org.hyperprof.api.report.FunctionAnnotations;
import org.hyperprof.api.report.ReportException;
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
 * The annotate page ({@code /annotate?id=&symbol=}): one function's instructions with their samples
 * ({@code /api/annotate}), where the session has code on this machine. Without the annotation bundle it is not
 * registered.
 */
@Component(service = Servlet.class, property = {PageProperties.CONTEXT, PageProperties.PATTERN + "/annotate",
    PageProperties.PATTERN + "/api/annotate", PageProperties.TITLE + "Annotate", PageProperties.PATH + "/annotate",
    PageProperties.ORDER + "70"})
public final class AnnotateServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient FunctionAnnotations annotations;

    @Activate
    public AnnotateServlet(@Reference FunctionAnnotations annotations) {
        this.annotations = annotations;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getServletPath().equals("/annotate")) {
            Replies.page(response, AnnotateServlet.class, "static/annotate/annotate.html");
            return;
        }
        try {
            AnnotateParameters p = AnnotateParameters.of(request::getParameter);
            Replies.json(response, AnnotationJson.of(annotations.annotate(p.session(), p.symbol(), p.image(),
                    p.domain(), p.source())));
        } catch (IllegalArgumentException e) {
            Replies.error(response, HttpServletResponse.SC_BAD_REQUEST, e.getMessage());
        } catch (ReportException e) {
            Replies.error(response, HttpServletResponse.SC_NOT_FOUND, e.getMessage());
        }
    }
}
