package org.hyperprof.web.pages;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /}: the stored sessions, with filters and sorting; pick one to open, or two to diff. */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/", Whiteboard.CONTEXT_SELECT,
        Whiteboard.PAGE_TITLE + "=Sessions", Whiteboard.PAGE_PATH + "=/", Whiteboard.PAGE_ORDER + ":Integer=10"})
public final class SessionsPage extends PageServlet {
    private static final long serialVersionUID = 1L;

    /** Present only with a store: without one the page is not registered. */
    @Activate
    public SessionsPage(@Reference(name = "store") SessionStore store) {
        super("/", "/pages/sessions.html");
    }
}
