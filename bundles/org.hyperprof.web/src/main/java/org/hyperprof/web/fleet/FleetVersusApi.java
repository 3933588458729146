package org.hyperprof.web.fleet;

import org.hyperprof.api.store.FleetView;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet;
import org.hyperprof.web.http.Params;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/** {@code /api/fleet/versus}: one host against the rest, as JSON. */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/fleet/versus",
    Whiteboard.CONTEXT_SELECT})
public final class FleetVersusApi extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient FleetAnswers answers;

    @Activate
    public FleetVersusApi(@Reference(name = "fleet") FleetView fleet) {
        this.answers = new FleetAnswers(fleet);
    }

    @Override
    protected void answer(Params params, Json json) throws Exception {
        answers.versus(params, json);
    }
}
