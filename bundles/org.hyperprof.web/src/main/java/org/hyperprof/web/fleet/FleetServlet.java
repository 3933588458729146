package org.hyperprof.web.fleet;

import java.io.IOException;

import org.hyperprof.api.store.FleetView;
import org.hyperprof.api.store.StoreException;
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
 * The fleet page ({@code /fleet}) and its JSON ({@code /api/fleet/hosts}, {@code /top}, {@code /versus}). It
 * needs the fleet store's {@link FleetView}: without the fleet bundle it is not registered, and the navigation
 * does not offer it.
 */
@Component(service = Servlet.class, property = {PageProperties.CONTEXT, PageProperties.PATTERN + "/fleet",
    PageProperties.PATTERN + "/api/fleet/*", PageProperties.TITLE + "Fleet", PageProperties.PATH + "/fleet",
    PageProperties.ORDER + "50"})
public final class FleetServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient FleetAnswers answers;

    @Activate
    public FleetServlet(@Reference FleetView fleet) {
        this.answers = new FleetAnswers(fleet);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        try {
            switch (path) {
                case "/fleet" -> Replies.page(response, FleetServlet.class, "static/fleet/fleet.html");
                case "/api/fleet/hosts" -> Replies.json(response, answers.hosts());
                case "/api/fleet/top" -> Replies.json(response, answers.top(request::getParameter));
                case "/api/fleet/versus" -> Replies.json(response, answers.versus(request::getParameter));
                default -> Replies.error(response, HttpServletResponse.SC_NOT_FOUND, "no such fleet address " + path
                        + ": /api/fleet/hosts, /api/fleet/top or /api/fleet/versus?host=");
            }
        } catch (IllegalArgumentException e) {
            Replies.error(response, HttpServletResponse.SC_BAD_REQUEST, e.getMessage());
        } catch (StoreException e) {
            Replies.error(response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "the fleet store cannot answer: "
                    + e.getMessage());
        }
    }
}
