package org.hyperprof.store.clickhouse;

import java.util.List;

import org.hyperprof.api.store.FleetDiff;
import org.hyperprof.api.store.FleetHost;
import org.hyperprof.api.store.FleetSelection;
import org.hyperprof.api.store.FleetTop;
import org.hyperprof.api.store.FleetView;
import org.hyperprof.api.store.StoreException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The fleet's questions as a service ({@link FleetView}), answered by the same queries as {@code hp:fleet}, so
 * that the web view's fleet page and the command give the same rows.
 */
@Component(service = FleetView.class)
public final class FleetViewComponent implements FleetView {
    private final FleetShipper shipper;

    @Activate
    public FleetViewComponent(@Reference FleetShipper shipper) {
        this.shipper = shipper;
    }

    @Override
    public List<FleetHost> hosts() throws StoreException {
        try {
            return queries().hosts().stream().map(h -> new FleetHost(h.host(), h.lastSession(), h.sessions(),
                    h.samples(), h.cpuModel(), h.hypervisorVersion(), h.kernelVersion(), h.hyperprofVersion(),
                    h.schemaVersion())).toList();
        } catch (FleetException e) {
            throw new StoreException(e.getMessage(), e);
        }
    }

    @Override
    public List<FleetTop> top(FleetSelection selection, boolean symbols, int n) throws StoreException {
        try {
            return queries().top(filter(selection), symbols, rows(n)).stream().map(r -> new FleetTop(r.image(),
                    r.symbol(), r.samples(), r.weight(), r.hosts(), r.share())).toList();
        } catch (FleetException e) {
            throw new StoreException(e.getMessage(), e);
        }
    }

    @Override
    public FleetDiff diff(FleetSelection a, FleetSelection b, boolean symbols, int n) throws StoreException {
        try {
            FleetQueries.Diff d = queries().diff(filter(a), filter(b), symbols, rows(n));
            return new FleetDiff(d.rows().stream().map(r -> new FleetDiff.Row(r.image(), r.symbol(), r.samplesA(),
                    r.samplesB(), r.shareA(), r.shareB(), r.marked())).toList(), d.totalA(), d.totalB(), d.more());
        } catch (FleetException e) {
            throw new StoreException(e.getMessage(), e);
        }
    }

    private static int rows(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("rows asked for must be 1 or more, got " + n);
        }
        return Math.min(n, MAX_ROWS);
    }

    static FleetFilter filter(FleetSelection s) {
        return new FleetFilter(s.hosts(), s.pattern(), s.from(), s.until(), s.modes(), s.event());
    }

    private FleetQueries queries() throws StoreException {
        if (shipper.settings().endpoints().isEmpty()) {
            throw new StoreException("no ClickHouse endpoint is configured (setting endpoints of pid "
                    + FleetShipper.PID + ": hp:config " + FleetShipper.PID + " endpoints=http://127.0.0.1:8123)");
        }
        return new FleetQueries(shipper.http());
    }
}
