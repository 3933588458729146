package org.hyperprof.web.http;

import java.util.Map;

/**
 * One component serving several JSON endpoints that need the same services: registered on each route's path
 * (its servlet patterns), it answers by the path it was asked by.
 */
public abstract class JsonRoutes extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient Map<String, Answer> routes;

    /** @param routes the answer to each path; the component's servlet patterns list the same paths */
    protected JsonRoutes(Map<String, Answer> routes) {
        this.routes = Map.copyOf(routes);
    }

    @Override
    final Answer route(String servletPath) throws NotFound {
        Answer answer = routes.get(servletPath);
        if (answer == null) {
            throw new NotFound("no endpoint '" + servletPath + "' here (these: " + String.join(", ",
                    routes.keySet().stream().sorted().toList()) + ")");
        }
        return answer;
    }

    /** Never asked: every request goes to its route's answer. */
    @Override
    protected final void answer(Params params, Json json) throws NotFound {
        throw new NotFound("no endpoint here");
    }
}
