package org.hyperprof.web.fleet;

import java.util.List;

import org.hyperprof.api.store.FleetDiff;
import org.hyperprof.api.store.FleetHost;
import org.hyperprof.api.store.FleetTop;
import org.hyperprof.web.http.Json;

/** The fleet page's JSON: the hosts, the top list, one host against the rest. Shares are 0 to 1. */
final class FleetJson {
    private FleetJson() {
    }

    static void hosts(Json w, List<FleetHost> hosts) {
        w.beginObject().name("hosts").beginArray();
        for (FleetHost h : hosts) {
            w.beginObject().member("host", h.host()).member("lastSession", String.valueOf(h.lastSession()))
                    .member("sessions", h.sessions()).member("samples", h.samples()).member("cpu", h.cpuModel())
                    .member("hypervisor", h.hypervisorVersion()).member("kernel", h.kernelVersion())
                    .member("hyperprof", h.hyperprofVersion()).member("schema", h.schemaVersion()).endObject();
        }
        w.endArray().endObject();
    }

    static void top(Json w, List<FleetTop> rows, boolean symbols, int limit) {
        w.beginObject().member("what", symbols ? "symbols" : "images").member("limit", limit).name("rows")
                .beginArray();
        for (FleetTop r : rows) {
            w.beginObject().member("samples", r.samples()).member("share", r.share()).member("weight", r.weight())
                    .member("hosts", r.hosts()).member("image", r.image()).member("symbol", r.symbol()).endObject();
        }
        w.endArray().endObject();
    }

    /** {@code host} (group B) against {@code rest} (group A, the baseline), as {@code hp:fleet diff} compares. */
    static void versus(Json w, String host, List<String> rest, FleetDiff d, boolean symbols) {
        w.beginObject().member("host", host).name("rest").beginArray();
        rest.forEach(w::value);
        w.endArray().member("what", symbols ? "symbols" : "images").member("samplesHost", d.totalB())
                .member("samplesRest", d.totalA()).member("more", d.more()).name("rows").beginArray();
        for (FleetDiff.Row r : d.rows()) {
            w.beginObject().member("image", r.image()).member("symbol", r.symbol()).member("samplesRest", r.samplesA())
                    .member("samplesHost", r.samplesB()).member("shareRest", r.shareA())
                    .member("shareHost", r.shareB()).member("deltaPoints", r.deltaPoints())
                    .member("marked", r.marked()).endObject();
        }
        w.endArray().endObject();
    }
}
