package org.hyperprof.web.annotate;

import org.hyperprof.api.report.FunctionAnnotations;
import org.hyperprof.web.pages.PageServlet;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * {@code /annotate?id=&symbol=}: one function's instructions with their samples, where the session has code on
 * this machine. Present only with the annotation bundle.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/annotate",
    Whiteboard.CONTEXT_SELECT, Whiteboard.PAGE_TITLE + "=Annotate", Whiteboard.PAGE_PATH + "=/annotate",
    Whiteboard.PAGE_ORDER + ":Integer=70"})
public final class AnnotatePage extends PageServlet {
    private static final long serialVersionUID = 1L;

    @Activate
    public AnnotatePage(@Reference(name = "annotations") FunctionAnnotations annotations) {
        super("/annotate", "/pages/annotate.html");
    }
}
