package org.hyperprof.api.store;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The fleet's questions, for a reader other than {@code hp:fleet} (the web view): the hosts, the top images
 * or symbols across them, one group of hosts or times against another. Every answer counts the committed
 * sessions only, as {@code hp:fleet} does; filters are parameters of the query, never text joined into it.
 * Implemented by the fleet store.
 *
 * @since 1.4
 */
@ProviderType
public interface FleetView {
    /** Rows a top list or a diff gives at most, whatever is asked. */
    int MAX_ROWS = 10_000;

    /** Every host that shipped a committed session, by name. */
    List<FleetHost> hosts() throws StoreException;

    /**
     * The {@code n} images ({@code symbols} false) or symbols with the most samples of those {@code selection}
     * picks, most first, as {@code hp:fleet top} lists them.
     */
    List<FleetTop> top(FleetSelection selection, boolean symbols, int n) throws StoreException;

    /** Group {@code b} against group {@code a}, the baseline: largest change of share first, at most {@code n} rows. */
    FleetDiff diff(FleetSelection a, FleetSelection b, boolean symbols, int n) throws StoreException;
}
