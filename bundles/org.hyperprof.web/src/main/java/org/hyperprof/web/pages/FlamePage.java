package org.hyperprof.web.pages;

import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /flame?id=}: a session's interactive canvas flame graph. */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/flame", Whiteboard.CONTEXT_SELECT,
        Whiteboard.PAGE_PATH + "=/flame", Whiteboard.PAGE_TITLE + "=Flame graph", Whiteboard.PAGE_ORDER + ":Integer=-1"})
public final class FlamePage extends PageServlet {
    private static final long serialVersionUID = 1L;

    @Activate
    public FlamePage(@Reference(name = "store") SessionStore store,
            @Reference(name = "flamegraph", target = "(report.name=flamegraph)") ReportFileWriter flamegraph) {
        super("/flame", "/pages/flame.html");
    }
}
