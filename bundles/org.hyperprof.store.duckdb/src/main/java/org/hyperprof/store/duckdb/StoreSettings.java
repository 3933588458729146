package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The settings in force, read once from {@link StoreConfiguration}: the store's file with
 * {@code ${user.home}} and {@code ~} expanded, the host's identity, the lock wait, the retention, the
 * checkpoint interval ({@link Duration#ZERO}: never).
 */
record StoreSettings(Path path, boolean enabled, String hostId, long lockWaitMillis, Retention retention,
        Duration checkpointInterval) {

    /** The default checkpoint interval. */
    static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(60);

    /** With no retention limit and the default checkpoint interval. */
    StoreSettings(Path path, boolean enabled, String hostId, long lockWaitMillis) {
        this(path, enabled, hostId, lockWaitMillis, Retention.NONE, CHECKPOINT_INTERVAL);
    }

    /** With the default checkpoint interval. */
    StoreSettings(Path path, boolean enabled, String hostId, long lockWaitMillis, Retention retention) {
        this(path, enabled, hostId, lockWaitMillis, retention, CHECKPOINT_INTERVAL);
    }

    /** With no retention limit. */
    StoreSettings(Path path, boolean enabled, String hostId, long lockWaitMillis, Duration checkpointInterval) {
        this(path, enabled, hostId, lockWaitMillis, Retention.NONE, checkpointInterval);
    }

    /** @param problems hears a retention setting written wrong ({@link Retention#of}) */
    static StoreSettings of(StoreConfiguration c, PrintStream problems) {
        return new StoreSettings(expand(c.path()), c.enabled(),
                c.host_id().isBlank() ? hostName() : c.host_id().strip(), c.lock_wait_ms(),
                Retention.of(c, problems), Duration.ofSeconds(Math.max(0, c.checkpoint_interval())));
    }

    static Path expand(String path) {
        String home = System.getProperty("user.home");
        String p = path.strip().replace("${user.home}", home);
        if (p.equals("~") || p.startsWith("~/")) {
            p = home + p.substring(1);
        }
        return Path.of(p).toAbsolutePath();
    }

    /** The kernel's host name (no name service asked), or Java's view of it elsewhere. */
    static String hostName() {
        try {
            Path kernel = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(kernel)) {
                return Files.readString(kernel, StandardCharsets.UTF_8).strip();
            }
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
