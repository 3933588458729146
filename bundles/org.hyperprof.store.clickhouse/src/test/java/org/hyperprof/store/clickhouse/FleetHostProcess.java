package org.hyperprof.store.clickhouse;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One Hyperprof host of {@link MultiHostTest}, a JVM of its own in a network namespace of its own: a
 * local store and a shipper to the fleet's ClickHouse, profiling {@code sessions} sessions of seeds
 * from {@code seed}. Between two sessions it says {@code READY k} and waits for a line on stdin (the
 * test's hook: it may take the host's link down there). At the end it waits for {@code finish}, then
 * until its outbox is empty, prints its local books ({@code BOOK key = value}) and {@code DONE}.
 *
 * <p>Arguments: host id, store folder, endpoint, first seed, sessions, samples per session.
 */
public final class FleetHostProcess {
    private FleetHostProcess() {
    }

    public static void main(String[] args) throws Exception {
        String hostId = args[0];
        Path folder = Path.of(args[1]);
        URI endpoint = URI.create(args[2]);
        long seed = Long.parseLong(args[3]);
        int sessions = Integer.parseInt(args[4]);
        int samples = Integer.parseInt(args[5]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        SimulatedHost host = new SimulatedHost(folder, hostId);
        FleetShipper shipper = new FleetShipper(FleetSettings.of(List.of(endpoint), "")
                .withOutbox(1000, Duration.ofSeconds(1)).withTimeout(Duration.ofSeconds(2)), host.store, "test",
                System.err);
        host.store.setShipping(host.offeringTo(shipper));
        shipper.settle(); // the round binding wakes, done before the first session (see Fleet.shipper)
        for (int k = 0; k < sessions; k++) {
            if (k > 0) {
                FleetStatus s = shipper.settle();
                out.println("READY " + k + " pending " + s.pending().size() + " shipped " + s.shipped());
                in.readLine();
            }
            long id = host.profile(seed + k, samples);
            FleetStatus s = shipper.settle();
            out.println("STORED " + id + " pending " + s.pending().size() + " problem " + s.problem());
        }
        in.readLine(); // finish
        FleetStatus s = shipper.shipNow();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!s.pending().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            s = shipper.shipNow();
        }
        out.println("SHIPPED " + s.shipped() + " pending " + s.pending().size() + " problem " + s.problem());
        for (Map.Entry<String, String> e : host.books().entrySet()) {
            out.println("BOOK " + e.getKey() + " = " + e.getValue());
        }
        out.println("DONE");
        shipper.close();
        System.exit(0);
    }
}
