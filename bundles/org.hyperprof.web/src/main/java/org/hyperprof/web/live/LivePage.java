package org.hyperprof.web.live;

import org.hyperprof.web.pages.PageServlet;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Component;

import jakarta.servlet.Servlet;

/** {@code /live}: the profile running now, started from the shell: its progress and first results. */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/live",
    Whiteboard.CONTEXT_SELECT, Whiteboard.PAGE_TITLE + "=Live", Whiteboard.PAGE_PATH + "=/live",
    Whiteboard.PAGE_ORDER + ":Integer=40"})
public final class LivePage extends PageServlet {
    private static final long serialVersionUID = 1L;

    public LivePage() {
        super("/live", "/pages/live.html");
    }
}
