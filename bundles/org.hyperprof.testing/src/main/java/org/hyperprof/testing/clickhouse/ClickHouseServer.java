package org.hyperprof.testing.clickhouse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code clickhouse-server} (Debian's package) run by a test: its config, data and logs in a
 * folder of the test's, listening on free loopback ports only, stopped by its pid in {@link #close()} and,
 * should the test's JVM end first, by a shutdown hook. systemd is never involved.
 */
public final class ClickHouseServer implements AutoCloseable {
    /** The server's program, as the Debian package installs it. */
    public static final String PROGRAM = "clickhouse-server";

    /** How a server is set up: its users, its cluster of shards, its HTTPS port, its insert block size. */
    public record Options(String user, String password, List<Integer> shardTcpPorts, Path certificate, Path key,
            int insertBlockRows, List<String> alsoListenOn) {
        public Options {
            shardTcpPorts = List.copyOf(shardTcpPorts);
            alsoListenOn = List.copyOf(alsoListenOn);
        }

        /** User default without a password, no cluster, no HTTPS, ClickHouse's own block size, loopback only. */
        public static Options plain() {
            return new Options("default", "", List.of(), null, null, 0, List.of());
        }

        public Options withUser(String name, String secret) {
            return new Options(name, secret, shardTcpPorts, certificate, key, insertBlockRows, alsoListenOn);
        }

        /** A cluster named {@code fleet} of one shard per TCP port given (this server's among them). */
        public Options withShards(List<Integer> tcpPorts) {
            return new Options(user, password, tcpPorts, certificate, key, insertBlockRows, alsoListenOn);
        }

        public Options withHttps(Path cert, Path privateKey) {
            return new Options(user, password, shardTcpPorts, cert, privateKey, insertBlockRows, alsoListenOn);
        }

        /** Inserts commit every {@code rows} rows: a cut insert leaves some rows written. */
        public Options withInsertBlockRows(int rows) {
            return new Options(user, password, shardTcpPorts, certificate, key, rows, alsoListenOn);
        }

        /**
         * Listens on these addresses as well (a test's own veth ends, never the machine's interfaces), and
         * takes users from anywhere it listens.
         */
        public Options withAlsoListenOn(List<String> addresses) {
            return new Options(user, password, shardTcpPorts, certificate, key, insertBlockRows, addresses);
        }
    }

    /** The server's ports; {@code https} -1 without a certificate. */
    private record Ports(int http, int tcp, int https) {
    }

    private final Path folder;
    private final Ports ports;
    private final Process process;
    private final Thread hook;

    private ClickHouseServer(Path folder, Ports ports, Process process) {
        this.folder = folder;
        this.ports = ports;
        this.process = process;
        this.hook = new Thread(process::destroyForcibly, "clickhouse-server-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether the server's program is installed (CI installs it; elsewhere its tests are skipped). */
    public static boolean installed() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, PROGRAM))) {
                return true;
            }
        }
        return false;
    }

    /** Skips the calling test when the server is not installed, saying so (CI installs it). */
    public static void assumeInstalled() {
        org.junit.jupiter.api.Assumptions.assumeTrue(installed(),
                PROGRAM + " is not installed (.ci/run installs Debian's clickhouse-server)");
    }

    /** A free loopback TCP port now (the server binds it a moment later). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a server in {@code folder} and waits until it answers {@code /ping}. */
    public static ClickHouseServer start(Path folder, Options o) throws IOException, InterruptedException {
        return start(folder, o, freePort(), freePort());
    }

    /** The same on given ports (a cluster's servers must know each other's TCP ports first). */
    public static ClickHouseServer start(Path folder, Options o, int httpPort, int tcpPort) throws IOException,
            InterruptedException {
        Files.createDirectories(folder);
        int httpsPort = o.certificate() == null ? -1 : freePort();
        Path config = folder.resolve("config.xml");
        Files.writeString(config, config(folder, o, httpPort, tcpPort, httpsPort));
        Files.writeString(folder.resolve("users.xml"), users(o));
        Process p = new ProcessBuilder(PROGRAM, "--config-file=" + config).directory(folder.toFile())
                .redirectErrorStream(true).redirectOutput(folder.resolve("stdout.log").toFile()).start();
        ClickHouseServer server = new ClickHouseServer(folder, new Ports(httpPort, tcpPort, httpsPort), p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!server.answers()) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new IOException("clickhouse-server did not start (" + (p.isAlive() ? "no /ping in 60 s"
                        : "exit " + p.exitValue()) + "); its log: " + folder.resolve("server.err.log"));
            }
            Thread.sleep(50);
        }
        return server;
    }

    private boolean answers() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(http() + "/ping").toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(2000);
            try {
                return c.getResponseCode() == 200;
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    private static String config(Path folder, Options o, int httpPort, int tcpPort, int httpsPort) {
        StringBuilder x = new StringBuilder("<yandex>\n");
        x.append("  <logger><level>warning</level><log>").append(folder.resolve("server.log"))
                .append("</log><errorlog>").append(folder.resolve("server.err.log"))
                .append("</errorlog><console>0</console></logger>\n");
        x.append("  <http_port>").append(httpPort).append("</http_port>\n");
        x.append("  <tcp_port>").append(tcpPort).append("</tcp_port>\n");
        x.append("  <listen_host>127.0.0.1</listen_host>\n");
        for (String address : o.alsoListenOn()) {
            x.append("  <listen_host>").append(address).append("</listen_host>\n");
        }
        x.append("  <path>").append(folder.resolve("data")).append("/</path>\n");
        x.append("  <tmp_path>").append(folder.resolve("tmp")).append("/</tmp_path>\n");
        x.append("  <user_files_path>").append(folder.resolve("user_files")).append("/</user_files_path>\n");
        x.append("  <format_schema_path>").append(folder.resolve("format_schemas")).append("/</format_schema_path>\n");
        x.append("  <users_config>").append(folder.resolve("users.xml")).append("</users_config>\n");
        x.append("  <default_profile>default</default_profile><default_database>default</default_database>\n");
        x.append("  <mark_cache_size>53687091</mark_cache_size>\n");
        x.append("  <uncompressed_cache_size>53687091</uncompressed_cache_size>\n");
        x.append("  <timezone>UTC</timezone><mlock_executable>false</mlock_executable>\n");
        if (o.certificate() != null) {
            x.append("  <https_port>").append(httpsPort).append("</https_port>\n");
            x.append("  <openSSL><server><certificateFile>").append(o.certificate()).append("</certificateFile>")
                    .append("<privateKeyFile>").append(o.key()).append("</privateKeyFile>")
                    .append("<verificationMode>none</verificationMode><cacheSessions>true</cacheSessions>")
                    .append("<disableProtocols>sslv2,sslv3</disableProtocols><preferServerCiphers>true")
                    .append("</preferServerCiphers></server></openSSL>\n");
        }
        if (!o.shardTcpPorts().isEmpty()) {
            x.append("  <remote_servers><fleet>\n");
            for (int port : o.shardTcpPorts()) {
                x.append("    <shard><replica><host>127.0.0.1</host><port>").append(port).append("</port><user>")
                        .append(o.user()).append("</user><password>").append(o.password())
                        .append("</password></replica></shard>\n");
            }
            x.append("  </fleet></remote_servers>\n");
        }
        return x.append("</yandex>\n").toString();
    }

    private static String users(Options o) {
        String block = o.insertBlockRows() > 0 ? "<max_insert_block_size>" + o.insertBlockRows()
                + "</max_insert_block_size><min_insert_block_size_rows>" + o.insertBlockRows()
                + "</min_insert_block_size_rows>" : "";
        return "<yandex>\n  <profiles><default>" + block + "</default></profiles>\n  <users>\n    <" + o.user()
                + "><password_sha256_hex>" + sha256(o.password()) + "</password_sha256_hex><networks><ip>"
                + (o.alsoListenOn().isEmpty() ? "127.0.0.1</ip><ip>::1" : "::/0") + "</ip></networks>"
                + "<profile>default</profile><quota>default</quota></" + o.user() + ">\n"
                + "  </users>\n  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0"
                + "</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>"
                + "</interval></default></quotas>\n</yandex>\n";
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String http() {
        return "http://127.0.0.1:" + ports.http();
    }

    /** {@code https://127.0.0.1:<port>}, when started with a certificate. */
    public String https() {
        return "https://127.0.0.1:" + ports.https();
    }

    public int httpPort() {
        return ports.http();
    }

    public int tcpPort() {
        return ports.tcp();
    }

    public Path folder() {
        return folder;
    }

    /** Runs one statement as user default (tests' own checks); its TabSeparated result. */
    public String query(String sql) throws IOException {
        return query(sql, "default", "");
    }

    public String query(String sql, String user, String password) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(http() + "/").toURL().openConnection();
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setRequestProperty("Authorization", "Basic " + java.util.Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        c.getOutputStream().write(sql.getBytes(StandardCharsets.UTF_8));
        try {
            if (c.getResponseCode() != 200) {
                throw new IOException("ClickHouse answered " + c.getResponseCode() + ": " + new String(
                        c.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip() + " (to " + sql + ")");
            }
            return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }

    /** The rows of a query, each line of the TabSeparated result. */
    public List<String> lines(String sql) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : query(sql).split("\n")) {
            if (!line.isEmpty()) {
                out.add(line);
            }
        }
        return out;
    }

    /**
     * Stops the server by its pid with SIGKILL: a test's server keeps nothing worth a clean stop, and
     * SIGTERM waits seconds for the clients' idle keep-alive connections.
     */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down: the hook runs anyway.
        }
    }
}
