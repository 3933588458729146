package org.hyperprof.web.pages;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /diff?a=&b=}: two sessions' differential table with noise marks and a red/blue flame graph. */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/diff", Whiteboard.CONTEXT_SELECT,
        Whiteboard.PAGE_PATH + "=/diff", Whiteboard.PAGE_TITLE + "=Diff", Whiteboard.PAGE_ORDER + ":Integer=-1"})
public final class DiffPage extends PageServlet {
    private static final long serialVersionUID = 1L;

    @Activate
    public DiffPage(@Reference(name = "store") SessionStore store) {
        super("/diff", "/pages/diff.html");
    }
}
