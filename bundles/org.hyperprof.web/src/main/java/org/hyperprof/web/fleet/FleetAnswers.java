package org.hyperprof.web.fleet;

import java.util.List;
import java.util.function.Function;

import org.hyperprof.api.store.FleetHost;
import org.hyperprof.api.store.FleetSelection;
import org.hyperprof.api.store.FleetView;
import org.hyperprof.api.store.StoreException;

/** What the fleet page's endpoints answer, from the fleet store's questions and the request's parameters. */
public final class FleetAnswers {
    private final FleetView fleet;

    public FleetAnswers(FleetView fleet) {
        this.fleet = fleet;
    }

    /** {@code /api/fleet/hosts}. */
    public String hosts() throws StoreException {
        return FleetJson.hosts(fleet.hosts());
    }

    /** {@code /api/fleet/top}: the top list of the samples the filters pick. */
    public String top(Function<String, String> parameter) throws StoreException {
        FleetParameters p = new FleetParameters(parameter);
        boolean symbols = p.symbols();
        int limit = p.limit();
        return FleetJson.top(fleet.top(p.selection(), symbols, limit), symbols, limit);
    }

    /**
     * {@code /api/fleet/versus?host=}: one host (group B) against every other (group A, the baseline), with the
     * filters' modes, times and event for both.
     */
    public String versus(Function<String, String> parameter) throws StoreException {
        FleetParameters p = new FleetParameters(parameter);
        String host = p.host("host");
        boolean symbols = p.symbols();
        int limit = p.limit();
        FleetSelection common = p.selection();
        List<String> all = fleet.hosts().stream().map(FleetHost::host).toList();
        if (!all.contains(host)) {
            throw new IllegalArgumentException("parameter host: the fleet has no host '" + host + "' (its hosts: "
                    + String.join(", ", all.stream().limit(20).toList()) + (all.size() > 20 ? ", ..." : "") + ")");
        }
        List<String> rest = all.stream().filter(h -> !h.equals(host)).toList();
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("parameter host: '" + host + "' is the fleet's only host; there is no"
                    + " rest to compare it with");
        }
        return FleetJson.versus(host, rest, fleet.diff(common.withHosts(rest), common.withHosts(List.of(host)),
                symbols, limit), symbols);
    }
}
