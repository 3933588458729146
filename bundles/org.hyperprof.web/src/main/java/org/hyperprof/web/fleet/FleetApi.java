package org.hyperprof.web.fleet;

import org.hyperprof.api.store.FleetView;
import org.hyperprof.web.http.JsonRoutes;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * The fleet page's endpoints, as JSON: {@code /api/fleet/hosts} (the fleet's hosts), {@code /api/fleet/top} (the
 * top images or symbols the filters pick) and {@code /api/fleet/versus} (one host against the rest).
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/fleet/hosts",
    "osgi.http.whiteboard.servlet.pattern=/api/fleet/top", "osgi.http.whiteboard.servlet.pattern=/api/fleet/versus",
    Whiteboard.CONTEXT_SELECT})
public final class FleetApi extends JsonRoutes {
    private static final long serialVersionUID = 1L;

    @Activate
    public FleetApi(@Reference(name = "fleet") FleetView fleet) {
        super(new FleetAnswers(fleet).routes());
    }
}
