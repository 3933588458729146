package org.hyperprof.store.clickhouse;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The fleet store's settings, checked: endpoints are http or https URIs, names are ClickHouse identifiers
 * (they go into statements). {@link #toString()} never shows the password.
 *
 * @param cluster   the cluster the queries read across, or empty
 * @param caFile    the PEM file https endpoints are checked against, or null
 * @param sources   the sources that ship; empty: all
 */
public record FleetSettings(List<URI> endpoints, String database, String cluster, String user, String password,
        Path caFile, List<String> sources, boolean studies, int outboxMaxSessions, Duration retry, Duration timeout,
        int retentionDays) {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public FleetSettings {
        endpoints = List.copyOf(endpoints);
        sources = List.copyOf(sources);
        identifier(database, "database");
        if (!cluster.isEmpty()) {
            identifier(cluster, "cluster");
        }
        for (URI u : endpoints) {
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                throw new IllegalArgumentException("endpoint " + u + " is not an http:// or https:// address with a"
                        + " host (e.g. http://127.0.0.1:8123)");
            }
            if (u.getUserInfo() != null) {
                throw new IllegalArgumentException("endpoint " + u.getHost() + ": give the user and password as the"
                        + " settings user and password, not in the address");
            }
        }
    }

    private static void identifier(String name, String what) {
        if (!IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("the " + what + " '" + name + "' is not a ClickHouse identifier"
                    + " (letters, digits, _)");
        }
    }

    /** The settings Configuration Admin gave; a bad one throws IllegalArgumentException naming it. */
    static FleetSettings of(FleetConfiguration c) {
        List<URI> endpoints = new ArrayList<>();
        for (String e : c.endpoints()) {
            if (!e.isBlank()) {
                try {
                    endpoints.add(URI.create(e.strip()));
                } catch (IllegalArgumentException bad) {
                    throw new IllegalArgumentException("endpoint '" + e + "' is not an address: " + bad.getMessage());
                }
            }
        }
        List<String> sources = new ArrayList<>();
        for (String s : c.ship_sources()) {
            if (!s.isBlank()) {
                sources.add(s.strip());
            }
        }
        return new FleetSettings(endpoints, c.database().strip(), c.cluster().strip(), c.user(), c._password(),
                c.ca_file().isBlank() ? null : Path.of(c.ca_file().strip()), sources, c.ship_studies(),
                Math.max(1, c.outbox_max_sessions()), Duration.ofSeconds(Math.max(1, c.retry_interval())),
                Duration.ofMillis(Math.max(100, c.request_timeout_ms())), Math.max(0, c.retention_days()));
    }

    /** Settings for tests and plain Java: these endpoints, database {@code hyperprof}, user default. */
    public static FleetSettings of(List<URI> endpoints, String cluster) {
        return new FleetSettings(endpoints, "hyperprof", cluster, "default", "", null, List.of(), false, 10000,
                Duration.ofSeconds(30), Duration.ofSeconds(30), 0);
    }

    public FleetSettings withPassword(String user, String password, Path caFile) {
        return new FleetSettings(endpoints, database, cluster, user, password, caFile, sources, studies,
                outboxMaxSessions, retry, timeout, retentionDays);
    }

    public FleetSettings withOutbox(int maxSessions, Duration retryAfter) {
        return new FleetSettings(endpoints, database, cluster, user, password, caFile, sources, studies, maxSessions,
                retryAfter, timeout, retentionDays);
    }

    public FleetSettings withTimeout(Duration requests) {
        return new FleetSettings(endpoints, database, cluster, user, password, caFile, sources, studies,
                outboxMaxSessions, retry, requests, retentionDays);
    }

    public FleetSettings withRetention(int days) {
        return new FleetSettings(endpoints, database, cluster, user, password, caFile, sources, studies,
                outboxMaxSessions, retry, timeout, days);
    }

    @Override
    public String toString() {
        return "FleetSettings[endpoints=" + endpoints + ", database=" + database + ", cluster=" + cluster + ", user="
                + user + ", password=" + (password.isEmpty() ? "(none)" : "(set)") + ", caFile=" + caFile + "]";
    }
}
