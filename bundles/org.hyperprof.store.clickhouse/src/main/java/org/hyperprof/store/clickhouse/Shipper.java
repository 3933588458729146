package org.hyperprof.store.clickhouse;

import java.net.URI;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.hyperprof.api.store.SessionOutbox;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;

/**
 * Ships one stored session so that it counts exactly once, though a reply may be lost after the server
 * committed and a connection may be cut in the middle of an insert (ClickHouse neither deduplicates plain
 * inserts nor makes them atomic across blocks):
 * <ol>
 * <li>a session counts once its {@code sessions} row is there: if it is, it was shipped, and the outbox
 * lets it go;</li>
 * <li>otherwise its rows are written under a new random {@code attempt}, table by table, and its
 * {@code sessions} row last, naming that attempt; any failure stops the shipment, to be tried again later
 * under another attempt;</li>
 * <li>the fleet's queries count only the rows of the attempt a {@code sessions} row names (the least, if a
 * race ever let two in), so the rows of a failed attempt never count, and are deleted once another
 * attempt committed.</li>
 * </ol>
 * All of a host's sessions go to one endpoint (a shard), so a session's rows and its sessions row are
 * on one server and the rule holds on each.
 */
final class Shipper {
    private final ClickHouseHttp http;
    private final HostFacts facts;
    private final SecureRandom attempts = new SecureRandom();
    private final Set<URI> ready = ConcurrentHashMap.newKeySet();
    /** Sessions an attempt failed for: their stray rows are deleted once one commits. */
    private final Set<Long> failed = ConcurrentHashMap.newKeySet();

    Shipper(ClickHouseHttp http, HostFacts facts) {
        this.http = http;
        this.facts = facts;
    }

    /** What a shipment did. */
    enum Outcome {
        SHIPPED, ALREADY_THERE
    }

    /** The endpoint (shard) of a host's sessions. */
    URI endpoint(String host) {
        var all = http.settings().endpoints();
        return all.get(Math.floorMod(host.hashCode(), all.size()));
    }

    Outcome ship(SessionOutbox outbox, StoredSession s) throws FleetException, StoreException {
        String host = s.hostId();
        URI at = endpoint(host);
        if (!ready.contains(at)) {
            FleetSchema.ensure(http, at, host, facts.hyperprofVersion());
            ready.add(at);
        }
        if (committed(at, host, s.id()) != 0) {
            outbox.release(s.id());
            failed.remove(s.id());
            return Outcome.ALREADY_THERE;
        }
        long attempt = nextAttempt();
        String day = LocalDate.ofInstant(s.startedAt(), ZoneOffset.UTC).toString();
        String prefix = Sql.field(host) + "\t" + day + "\t" + Long.toUnsignedString(attempt) + "\t";
        try {
            for (String table : SessionOutbox.TABLES) {
                String linePrefix = table.equals("sessions") ? prefix + Instant.now().getEpochSecond() + "\t"
                        + FleetSchema.VERSION + "\t" + Sql.field(facts.hyperprofVersion()) + "\t"
                        + Sql.field(facts.cpuModel()) + "\t" + Sql.field(facts.hypervisorVersion()) + "\t"
                        + Sql.field(facts.kernelVersion()) + "\t" : prefix;
                http.insert(at, table, out -> outbox.copy(s.id(), table, linePrefix, out));
            }
        } catch (FleetException e) {
            failed.add(s.id());
            throw e;
        }
        outbox.release(s.id());
        if (failed.remove(s.id())) {
            strays(at, host, s.id(), attempt);
        }
        return Outcome.SHIPPED;
    }

    /** How many sessions rows the session has there: 0 until it committed. */
    long committed(URI at, String host, long session) throws FleetException {
        return ServerReply.number(http.query(at, "SELECT count() FROM " + http.settings().database()
                + ".sessions WHERE host = " + Sql.quote(host) + " AND id = " + session));
    }

    /** Deletes the rows failed attempts left (a mutation, applied by the server in the background). */
    private void strays(URI at, String host, long session, long attempt) {
        String db = http.settings().database();
        for (String table : FleetSchema.DISTRIBUTED) {
            if (table.equals("sessions")) {
                continue;
            }
            try {
                http.query(at, "ALTER TABLE " + db + "." + table + " DELETE WHERE host = " + Sql.quote(host)
                        + " AND session = " + session + " AND attempt != " + Long.toUnsignedString(attempt));
            } catch (FleetException e) {
                // The queries never count them; a server without mutations keeps them until their day is dropped.
                return;
            }
        }
    }

    /**
     * Drops, on every server shipped to, the daily partitions older than {@code days} days before
     * {@code today} (18.16 has no TTL). Each table's partitions are listed from {@code system.parts}.
     *
     * @return how many partitions were dropped
     */
    int dropDaysBefore(LocalDate today, int days) throws FleetException {
        String db = http.settings().database();
        String oldest = today.minusDays(days).toString();
        int dropped = 0;
        for (URI at : ready) {
            for (String[] p : ServerReply.rows(http.query(at, "SELECT DISTINCT table, partition FROM system.parts"
                    + " WHERE database = " + Sql.quote(db) + " AND active AND table IN "
                    + Sql.quoted(FleetSchema.DISTRIBUTED) + " AND partition < " + Sql.quote(oldest)
                    + " ORDER BY table, partition"), 2)) {
                http.query(at, "ALTER TABLE " + db + "." + p[0] + " DROP PARTITION " + Sql.quote(p[1]));
                dropped++;
            }
        }
        return dropped;
    }

    private long nextAttempt() {
        long a;
        do {
            a = attempts.nextLong();
        } while (a == 0);
        return a;
    }
}
