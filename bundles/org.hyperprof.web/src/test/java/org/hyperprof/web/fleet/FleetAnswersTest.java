package org.hyperprof.web.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.store.FleetDiff;
import org.hyperprof.api.store.FleetHost;
import org.hyperprof.api.store.FleetSelection;
import org.hyperprof.api.store.FleetTop;
import org.hyperprof.api.store.FleetView;
import org.hyperprof.web.http.BadParameter;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.Params;
import org.junit.jupiter.api.Test;

/**
 * The fleet page's answers: parameters become the fleet store's selections (checked, never text), rows become
 * JSON. The store here is a fleet of three hosts held in memory that notes what it was asked; the real one is
 * driven by the fleet page's browser test against a real ClickHouse.
 */
class FleetAnswersTest {
    /** Three hosts; it notes each selection it is given. */
    private static final class ThreeHosts implements FleetView {
        final List<FleetSelection> asked = new ArrayList<>();

        @Override
        public List<FleetHost> hosts() {
            return List.of(host("hv-1"), host("hv-2"), host("hv-3"));
        }

        private static FleetHost host(String name) {
            return new FleetHost(name, Instant.parse("2026-11-28T10:00:00Z"), 2, 4000, "PIII", "4.21", "6.1", "test",
                    3);
        }

        @Override
        public List<FleetTop> top(FleetSelection selection, boolean symbols, int n) {
            asked.add(selection);
            return List.of(new FleetTop("vmlinux", symbols ? "copy_<user>" : null, 700, 1400, 3, 0.175));
        }

        @Override
        public FleetDiff diff(FleetSelection a, FleetSelection b, boolean symbols, int n) {
            asked.add(a);
            asked.add(b);
            return new FleetDiff(List.of(new FleetDiff.Row("xen-syms", "vmx_exit", 100, 300, 0.01, 0.06, true)),
                    10_000, 5_000, 4);
        }
    }

    private final ThreeHosts fleet = new ThreeHosts();
    private final FleetAnswers answers = new FleetAnswers(fleet);

    private String top(String query) throws Exception {
        Json json = new Json();
        answers.top(Params.parse(query), json);
        return json.toString();
    }

    private String versus(String query) throws Exception {
        Json json = new Json();
        answers.versus(Params.parse(query), json);
        return json.toString();
    }

    @Test
    void theFiltersBecomeTheStoresSelection() throws Exception {
        String json = top("what=images&hosts=hv-1,%20hv-3&pattern=%5Ehv-&since=2026-11-01"
                + "&until=2026-11-28T09:30:00Z&mode=kernel,hypervisor&event=CPU_CLK_UNHALTED&limit=5");
        assertEquals(new FleetSelection(List.of("hv-1", "hv-3"), "^hv-", Instant.parse("2026-11-01T00:00:00Z"),
                Instant.parse("2026-11-28T09:30:00Z"), List.of(1, 2), "CPU_CLK_UNHALTED"), fleet.asked.get(0));
        assertEquals("{\"what\":\"images\",\"limit\":5,\"rows\":[{\"samples\":700,\"share\":0.175,\"weight\":1400,"
                + "\"hosts\":3,\"image\":\"vmlinux\",\"symbol\":null}]}", json);
    }

    @Test
    void noFilterIsTheWholeFleetsTopThirtySymbols() throws Exception {
        String json = top("");
        assertEquals(FleetSelection.ALL, fleet.asked.get(0));
        assertTrue(json.startsWith("{\"what\":\"symbols\",\"limit\":30,"), json);
        assertTrue(json.contains("\"symbol\":\"copy_\\u003cuser\\u003e\""), json);
    }

    @Test
    void oneHostIsComparedWithEveryOtherHost() throws Exception {
        String json = versus("host=hv-2&mode=hypervisor");
        assertEquals(List.of("hv-1", "hv-3"), fleet.asked.get(0).hosts(), "group A, the baseline: the rest");
        assertEquals(List.of("hv-2"), fleet.asked.get(1).hosts());
        assertEquals(List.of(2), fleet.asked.get(1).modes());
        assertEquals("{\"host\":\"hv-2\",\"rest\":[\"hv-1\",\"hv-3\"],\"what\":\"symbols\",\"samplesHost\":5000,"
                + "\"samplesRest\":10000,\"more\":4,\"rows\":[{\"image\":\"xen-syms\",\"symbol\":\"vmx_exit\","
                + "\"samplesRest\":100,\"samplesHost\":300,\"shareRest\":0.01,\"shareHost\":0.06,"
                + "\"deltaPoints\":" + 100 * (0.06 - 0.01) + ",\"marked\":true}]}", json);
    }

    @Test
    void eachBadParameterIsNamedWithWhatItTakes() {
        assertTrue(bad("what=functions").startsWith("parameter 'what'"), bad("what=functions"));
        assertTrue(bad("limit=0").startsWith("parameter 'limit'"), bad("limit=0"));
        assertEquals("parameter 'mode' takes hypervisor, kernel and user, comma-separated, not 'guest'",
                bad("mode=user,guest"));
        assertEquals("parameter 'since' takes a date (2026-11-28) or an instant (2026-11-28T09:30:00Z), not"
                + " 'yesterday'", bad("since=yesterday"));
        assertTrue(bad("hosts=a,b%27%20OR%201=1").startsWith("parameter 'hosts' takes hosts' names"));
        assertTrue(bad("event=X%27)%20--").startsWith("parameter 'event' takes an event's name"));
        assertTrue(fleet.asked.isEmpty(), "nothing bad reaches the store");
        BadParameter none = assertThrows(BadParameter.class, () -> versus("host=hv-9"));
        assertEquals("parameter 'host': the fleet has no host 'hv-9' (its hosts: hv-1, hv-2, hv-3)", none.getMessage());
        assertThrows(BadParameter.class, () -> versus(""));
    }

    private String bad(String query) {
        return assertThrows(BadParameter.class, () -> top(query)).getMessage();
    }
}
