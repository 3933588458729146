package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;

import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.testing.clickhouse.ClickHouseServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local store is the outbox: a host that cannot reach ClickHouse keeps its sessions, says why in
 * hp:fleet status, and ships them in order once the server is there; the outbox lets its oldest go
 * beyond its size and says so; refused credentials are said without the password; HTTPS with a CA.
 */
class OutboxTest {
    @TempDir
    Path folder;

    @BeforeAll
    static void installed() {
        ClickHouseServer.assumeInstalled();
    }

    private static String status(FleetShipper shipper) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FleetCommands(shipper, new OutputFilesComponent(), Console.of(new PrintStream(out, true,
                StandardCharsets.UTF_8), System.err), ZoneOffset.UTC).fleet("status");
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aHostThatCannotReachTheServerKeepsItsSessionsAndShipsThemInOrderOnceItIsThere() throws Exception {
        int http = ClickHouseServer.freePort();
        SimulatedHost host = new SimulatedHost(folder, "host-down");
        try (FleetShipper shipper = Fleet.shipper(host, Fleet.at("http://127.0.0.1:" + http)
                .withOutbox(100, Duration.ofHours(1)), new ByteArrayOutputStream())) {
            List<Long> made = List.of(host.profile(1, 500), host.profile(2, 500), host.profile(3, 500));
            FleetStatus down = shipper.settle();
            assertEquals(made, down.pending().stream().map(StoredSession::id).toList());
            assertTrue(down.problem().startsWith("ClickHouse at http://127.0.0.1:" + http + " could not be reached"),
                    down.problem());
            String said = status(shipper);
            assertTrue(said.contains("pending: 3 sessions, waiting: ClickHouse at http://127.0.0.1:" + http
                    + " could not be reached"), said);
            assertTrue(said.contains("; next try at "), said);

            try (ClickHouseServer server = ClickHouseServer.start(folder.resolve("server"),
                    ClickHouseServer.Options.plain(), http, ClickHouseServer.freePort())) {
                FleetStatus up = shipper.shipNow();
                assertNull(up.problem());
                assertTrue(up.pending().isEmpty());
                Fleet.assertBooks(host.books(), server, "");
                // Each insert is a part of its own, numbered in the order the server took them.
                assertEquals(made.stream().map(String::valueOf).toList(),
                        server.lines("SELECT id FROM hyperprof.sessions ORDER BY _part"));
                assertTrue(status(shipper).contains("pending: 0 sessions\nshipped: 3 sessions"));
            }
        }
    }

    @Test
    void beyondItsSizeTheOutboxLetsTheOldestGoAndSaysSo() throws Exception {
        SimulatedHost host = new SimulatedHost(folder, "host-full");
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        try (FleetShipper shipper = Fleet.shipper(host, Fleet.at("http://127.0.0.1:" + ClickHouseServer.freePort())
                .withOutbox(2, Duration.ofHours(1)), said)) {
            long oldest = host.profile(1, 100);
            long second = host.profile(2, 100);
            long third = host.profile(3, 100);
            assertEquals(List.of(second, third), shipper.settle().pending().stream().map(StoredSession::id).toList());
            String text = said.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("more than outbox.max.sessions=2 sessions: session " + oldest), text);
            assertTrue(host.store.session(oldest).isPresent(), "kept locally");
        }
    }

    @Test
    void afterAShipmentTheDaysOlderThanTheRetentionAreDropped() throws Exception {
        try (ClickHouseServer server = ClickHouseServer.start(folder.resolve("server"),
                ClickHouseServer.Options.plain())) {
            SimulatedHost host = new SimulatedHost(folder, "host-old");
            try (FleetShipper first = Fleet.shipper(host, Fleet.at(server.http()), new ByteArrayOutputStream())) {
                host.profile(8, 200);
                assertNull(first.shipNow().problem());
            }
            // A session of long ago, as an older Hyperprof would have shipped it.
            server.query("INSERT INTO hyperprof.samples (host, day, attempt, session, samples, weight) VALUES"
                    + " ('host-old', '2020-01-01', 1, 42, 5, 5)");
            server.query("INSERT INTO hyperprof.sessions (host, day, attempt, id, started_at) VALUES"
                    + " ('host-old', '2020-01-01', 1, 42, toDateTime('2020-01-01 10:00:00'))");
            try (FleetShipper keeping = Fleet.shipper(host, Fleet.at(server.http()).withRetention(30),
                    new ByteArrayOutputStream())) {
                host.profile(9, 200);
                assertNull(keeping.shipNow().problem());
                assertEquals(List.of(), server.lines("SELECT DISTINCT table FROM system.parts WHERE database ="
                        + " 'hyperprof' AND active AND partition = '2020-01-01'"));
                assertEquals(2, Fleet.sessionRows(server));
                Fleet.assertBooks(host.books(), server, "");
            }
        }
    }

    @Test
    void refusedCredentialsAreSaidWithoutThePasswordAndTheRightOnesShip() throws Exception {
        try (ClickHouseServer server = ClickHouseServer.start(folder.resolve("server"),
                ClickHouseServer.Options.plain().withUser("fleet", "right-secret-1"))) {
            SimulatedHost host = new SimulatedHost(folder, "host-auth");
            FleetSettings wrong = Fleet.at(server.http()).withPassword("fleet", "wrong-secret-2", null);
            assertFalse(wrong.toString().contains("wrong-secret-2"), wrong.toString());
            try (FleetShipper refused = Fleet.shipper(host, wrong, new ByteArrayOutputStream())) {
                host.profile(5, 300);
                String problem = refused.settle().problem();
                assertTrue(problem.contains("ClickHouse refused it (code 193)") && problem.contains("check the settings"
                        + " user and password of pid org.hyperprof.fleet"), problem);
                assertFalse(problem.contains("wrong-secret-2"));
            }
            try (FleetShipper right = Fleet.shipper(host, wrong.withPassword("fleet", "right-secret-1", null),
                    new ByteArrayOutputStream())) {
                assertNull(right.shipNow().problem());
                assertEquals(1, Long.parseLong(server.query("SELECT count() FROM hyperprof.sessions", "fleet",
                        "right-secret-1").strip()));
            }
        }
    }

    @Test
    void httpsIsCheckedAgainstTheConfiguredCertificateAuthority() throws Exception {
        Path cert = folder.resolve("cert.pem");
        Path key = folder.resolve("key.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                key.toString(), "-out", cert.toString(), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1").redirectErrorStream(true).start();
        openssl.getInputStream().readAllBytes();
        assertEquals(0, openssl.waitFor());
        try (ClickHouseServer server = ClickHouseServer.start(folder.resolve("server"),
                ClickHouseServer.Options.plain().withHttps(cert, key))) {
            SimulatedHost host = new SimulatedHost(folder, "host-tls");
            FleetSettings https = FleetSettings.of(List.of(URI.create(server.https())), "");
            try (FleetShipper untrusted = Fleet.shipper(host, https, new ByteArrayOutputStream())) {
                host.profile(7, 300);
                String problem = untrusted.settle().problem();
                assertTrue(problem.startsWith("ClickHouse at " + server.https() + " could not be reached"), problem);
            }
            try (FleetShipper trusted = Fleet.shipper(host, https.withPassword("default", "", cert),
                    new ByteArrayOutputStream())) {
                assertNull(trusted.shipNow().problem());
                Fleet.assertBooks(host.books(), server, "");
            }
        }
    }
}
