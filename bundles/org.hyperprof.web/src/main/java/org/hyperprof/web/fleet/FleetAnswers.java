package org.hyperprof.web.fleet;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.store.FleetHost;
import org.hyperprof.api.store.FleetSelection;
import org.hyperprof.api.store.FleetView;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.web.http.BadParameter;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.JsonServlet.Answer;
import org.hyperprof.web.http.Params;

/** What the fleet page's endpoints answer, from the fleet store's questions and the request's parameters. */
final class FleetAnswers {
    private final FleetView fleet;

    FleetAnswers(FleetView fleet) {
        this.fleet = fleet;
    }

    /** Each endpoint's path and its answer. */
    Map<String, Answer> routes() {
        return Map.of("/api/fleet/hosts", (params, json) -> hosts(json), "/api/fleet/top", this::top,
                "/api/fleet/versus", this::versus);
    }

    /** {@code /api/fleet/hosts}. */
    void hosts(Json json) throws StoreException {
        FleetJson.hosts(json, fleet.hosts());
    }

    /** {@code /api/fleet/top}: the top list of the samples the filters pick. */
    void top(Params params, Json json) throws StoreException, BadParameter {
        FleetParameters p = new FleetParameters(params);
        boolean symbols = p.symbols();
        int limit = p.limit();
        FleetJson.top(json, fleet.top(p.selection(), symbols, limit), symbols, limit);
    }

    /**
     * {@code /api/fleet/versus?host=}: one host (group B) against every other (group A, the baseline), with the
     * filters' modes, times and event for both.
     */
    void versus(Params params, Json json) throws StoreException, BadParameter {
        FleetParameters p = new FleetParameters(params);
        String host = p.host("host");
        boolean symbols = p.symbols();
        int limit = p.limit();
        FleetSelection common = p.selection();
        List<String> all = fleet.hosts().stream().map(FleetHost::host).toList();
        if (!all.contains(host)) {
            throw new BadParameter("parameter 'host': the fleet has no host '" + host + "' (its hosts: "
                    + String.join(", ", all.stream().limit(20).toList()) + (all.size() > 20 ? ", ..." : "") + ")");
        }
        List<String> rest = all.stream().filter(h -> !h.equals(host)).toList();
        if (rest.isEmpty()) {
            throw new BadParameter("parameter 'host': '" + host + "' is the fleet's only host; there is no rest to"
                    + " compare it with");
        }
        FleetJson.versus(json, host, rest, fleet.diff(common.withHosts(rest), common.withHosts(List.of(host)),
                symbols, limit), symbols);
    }
}
