package org.hyperprof.web.pages;

import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /session?id=}: one session's report tables (merged, then each domain), books and notes; not in the navigation (it needs an id). */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/session", Whiteboard.CONTEXT_SELECT,
        Whiteboard.PAGE_PATH + "=/session", Whiteboard.PAGE_TITLE + "=Session", Whiteboard.PAGE_ORDER + ":Integer=-1"})
public final class SessionPage extends PageServlet {
    private static final long serialVersionUID = 1L;

    @Activate
    public SessionPage(@Reference(name = "store") SessionStore store,
            @Reference(name = "opreport", target = "(report.name=opreport)") ReportRenderer opreport) {
        super("/session", "/pages/session.html");
    }
}
