package org.hyperprof.web.fleet;

import org.hyperprof.api.store.FleetView;
import org.hyperprof.web.pages.PageServlet;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;

/**
 * {@code /fleet}: the hosts, the top images or symbols across them with {@code hp:fleet}'s filters, one host
 * against the rest. Present only with the fleet store: without its bundle the navigation does not offer it.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/fleet",
    Whiteboard.CONTEXT_SELECT, Whiteboard.PAGE_TITLE + "=Fleet", Whiteboard.PAGE_PATH + "=/fleet",
    Whiteboard.PAGE_ORDER + ":Integer=50"})
public final class FleetPage extends PageServlet {
    private static final long serialVersionUID = 1L;

    @Activate
    public FleetPage(@Reference(name = "fleet") FleetView fleet) {
        super("/fleet", "/pages/fleet.html");
    }
}
