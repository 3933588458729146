package org.hyperprof.store.clickhouse;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * ClickHouse's HTTP interface through the JDK's {@link HttpClient}: a statement is POSTed as the body and
 * its result read as TabSeparated; an insert names its table and format in the URL and streams its rows,
 * spooled to a private file, as the body. The password goes in the Authorization header only, never in a URL or a
 * message. Replies are parsed by {@link ServerReply}.
 */
final class ClickHouseHttp implements AutoCloseable {
    /** Writes a request's body. */
    @FunctionalInterface
    interface Body {
        void write(OutputStream out) throws Exception;
    }

    private final FleetSettings settings;
    /** Made at the first request: a framework whose host is in no fleet never starts its selector thread. */
    private HttpClient client;
    private final String authorization;
    /** The folder of spooled rows, made at the first insert. */
    private Path spool;

    ClickHouseHttp(FleetSettings settings) {
        this.settings = settings;
        this.authorization = "Basic " + Base64.getEncoder().encodeToString((settings.user() + ":"
                + settings.password()).getBytes(StandardCharsets.UTF_8));
    }

    private synchronized HttpClient client() throws FleetException {
        if (client == null) {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(settings.timeout())
                    .version(HttpClient.Version.HTTP_1_1);
            if (settings.caFile() != null) {
                b.sslContext(trusting(settings));
            }
            client = b.build();
        }
        return client;
    }

    private static SSLContext trusting(FleetSettings s) throws FleetException {
        try (InputStream in = Files.newInputStream(s.caFile())) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int k = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca" + k++, c);
            }
            if (k == 0) {
                throw new GeneralSecurityException("it holds no certificate");
            }
            TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            f.init(store);
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, f.getTrustManagers(), null);
            return c;
        } catch (IOException | GeneralSecurityException e) {
            throw new FleetException(FleetException.Kind.REFUSED, "the CA certificate " + s.caFile() + " (setting"
                    + " ca.file) cannot be used: " + e.getMessage(), e);
        }
    }

    FleetSettings settings() {
        return settings;
    }

    /** Runs {@code sql} on {@code endpoint}; its result as TabSeparated text. */
    String query(URI endpoint, String sql) throws FleetException {
        HttpRequest r = request(endpoint, "").POST(HttpRequest.BodyPublishers.ofString(sql)).build();
        return send(endpoint, r);
    }

    /**
     * Inserts the TabSeparated rows {@code body} writes into {@code table}. They are spooled to a private
     * file first and streamed from it: the local store is held only while it writes them to its own disk,
     * never while a slow or stalled server reads them.
     */
    void insert(URI endpoint, String table, Body body) throws FleetException {
        Path spool = null;
        try {
            spool = Files.createTempFile(spoolFolder(), table, ".tsv");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(spool), 1 << 16)) {
                body.write(out);
            }
        } catch (Exception e) {
            delete(spool);
            throw new FleetException(FleetException.Kind.REFUSED, "the rows of " + table + " could not be read from"
                    + " the local store: " + e.getMessage(), e);
        }
        try {
            String query = "INSERT INTO " + settings.database() + "." + table + " FORMAT TabSeparated";
            HttpRequest r = request(endpoint, "query=" + URLEncoder.encode(query, StandardCharsets.UTF_8))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(once(spool))).build();
            send(endpoint, r);
        } finally {
            delete(spool);
        }
    }

    /**
     * The spooled body, given once: the JDK's client sends a request again on its own when a connection
     * closes before the reply (a reply lost after the server committed), and an insert sent twice is
     * counted twice. Asked again, it fails, and the shipper's own rule decides what was written.
     */
    private static java.util.function.Supplier<InputStream> once(Path spool) {
        java.util.concurrent.atomic.AtomicBoolean given = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            try {
                if (given.getAndSet(true)) {
                    throw new IOException("an insert is never sent twice by the HTTP client");
                }
                return Files.newInputStream(spool);
            } catch (IOException e) {
                return new InputStream() {
                    @Override
                    public int read() throws IOException {
                        throw e;
                    }
                };
            }
        };
    }

    /** The shipper's own folder for spooled rows (mode 0700: the rows name the host's processes). */
    private synchronized Path spoolFolder() throws IOException {
        if (spool == null || !Files.isDirectory(spool)) {
            spool = Files.createTempDirectory("hyperprof-fleet-", PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
        }
        return spool;
    }

    private static void delete(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // A spool file left behind is deleted with its folder at close.
            }
        }
    }

    private HttpRequest.Builder request(URI endpoint, String query) {
        String base = endpoint.toString();
        String sep = base.endsWith("/") ? "" : "/";
        // Statements name the database of each table: the database itself may not be made yet.
        return HttpRequest.newBuilder(URI.create(base + sep + "?" + query))
                .timeout(settings.timeout()).header("Authorization", authorization)
                .header("Content-Type", "text/plain; charset=UTF-8");
    }

    private String send(URI endpoint, HttpRequest r) throws FleetException {
        HttpResponse<String> reply;
        try {
            reply = client().send(r, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new FleetException(FleetException.Kind.UNREACHABLE, "ClickHouse at " + where(endpoint) + " could not"
                    + " be reached: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FleetException(FleetException.Kind.UNREACHABLE, "interrupted", e);
        }
        if (reply.statusCode() != 200) {
            FleetException e = ServerReply.error(reply.statusCode(), reply.body());
            throw new FleetException(e.kind(), e.code(), "ClickHouse at " + where(endpoint) + ": " + e.getMessage());
        }
        // A server stopped midway may still answer 200 with the error at the end of the body.
        if (reply.body().contains("DB::Exception")) {
            int at = reply.body().lastIndexOf("\nCode: ");
            if (at >= 0) {
                FleetException e = ServerReply.error(500, reply.body().substring(at + 1));
                throw new FleetException(FleetException.Kind.UNREACHABLE, e.code(), "ClickHouse at " + where(endpoint)
                        + " failed midway: " + e.getMessage());
            }
        }
        return reply.body();
    }

    static String where(URI endpoint) {
        return endpoint.getScheme() + "://" + endpoint.getHost() + (endpoint.getPort() < 0 ? "" : ":"
                + endpoint.getPort());
    }

    /** Removes the spool folder. */
    @Override
    public synchronized void close() {
        if (spool != null) {
            try (var files = Files.list(spool)) {
                files.forEach(ClickHouseHttp::delete);
            } catch (IOException e) {
                // Gone already.
            }
            delete(spool);
            spool = null;
        }
    }
}
