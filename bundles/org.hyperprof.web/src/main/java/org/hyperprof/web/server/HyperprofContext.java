package org.hyperprof.web.server;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.context.ServletContextHelper;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The servlet context every page of the view runs in ({@code hyperprof}, at {@code /}): before any
 * servlet or file answers, it checks the Host header and the access token ({@link Gatekeeper}) and sets
 * the security headers ({@link SecurityHeaders}). Nothing is answered while {@code hp:serve} has not run.
 */
@Component(service = ServletContextHelper.class, property = {
        "osgi.http.whiteboard.context.name=" + Whiteboard.CONTEXT_NAME,
        "osgi.http.whiteboard.context.path=/",
        "service.ranking:Integer=1000"})
public final class HyperprofContext extends ServletContextHelper {
    private final WebServer server;

    @Activate
    public HyperprofContext(BundleContext context, @Reference(name = "server") WebServer server) {
        super(context.getBundle());
        this.server = server;
    }

    @Override
    public boolean handleSecurity(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Optional<Serving> serving = server.serving();
        String path = request.getRequestURI();
        for (Map.Entry<String, String> h : SecurityHeaders.forPath(path).entrySet()) {
            response.setHeader(h.getKey(), h.getValue());
        }
        if (serving.isEmpty()) {
            refuse(response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "the view is not being served");
            return false;
        }
        Gatekeeper gate = new Gatekeeper(serving.get());
        switch (gate.decide(request.getHeader("Host"), request.getParameter("token"), cookie(request, gate.cookieName()))) {
            case ALLOW:
                return true;
            case ALLOW_AND_SET_COOKIE:
                response.addHeader("Set-Cookie", gate.cookie());
                return true;
            case WRONG_HOST:
                refuse(response, HttpServletResponse.SC_FORBIDDEN, "this server answers only the Host names "
                        + serving.get().hosts().allowed() + "; open the address hp:serve printed");
                return false;
            default:
                refuse(response, HttpServletResponse.SC_FORBIDDEN, "no access token, or not this server's: open the"
                        + " address hp:serve printed (it ends in ?token=...)");
                return false;
        }
    }

    private static String cookie(HttpServletRequest request, String name) {
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie c : cookies) {
                if (name.equals(c.getName())) {
                    return c.getValue();
                }
            }
        }
        return null;
    }

    private static void refuse(HttpServletResponse response, int status, String why) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=utf-8");
        response.getWriter().println("hyperprof: " + why);
    }
}
