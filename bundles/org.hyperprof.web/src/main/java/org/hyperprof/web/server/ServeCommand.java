package org.hyperprof.web.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.util.List;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.UsageException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code hp:serve}: serves the web view from this framework and prints its address, with the access
 * token. 127.0.0.1 and a free port unless told otherwise; listening on another address takes
 * {@code --listen}, said in so many words.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=serve"})
public final class ServeCommand {

    static final String ARGUMENTS = "[--port N] [--listen ADDRESS] [--wait] [--stop]";

    static final Syntax SERVE = Syntax.of("hp:serve", "serve the web view (sessions, reports, flame graphs, diffs)"
            + " on 127.0.0.1 and print its address")
            .options(Option.value("--port", "N", "the port (default: a free one)"),
                    Option.value("--listen", "ADDRESS", "listen on this address instead of 127.0.0.1: other"
                            + " machines can then reach the view (anyone who has the printed address can read it)"),
                    Option.flag("--wait", "after printing the address, serve until Ctrl-C (launch/hyperprof --serve)"),
                    Option.flag("--stop", "stop serving: nothing listens after"))
            .notes("  The address printed ends in ?token=...: the view answers only a browser that shows it\n"
                    + "  (then kept in a cookie), and only under the Host names 127.0.0.1, localhost (and the\n"
                    + "  --listen address). It serves until hp:serve --stop or the end of this Hyperprof process.");

    private final Console console;
    private final WebServer server;

    /** Ctrl-C and SIGTERM, when a command line provides them. */
    @Reference(name = "stops", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile StopRequests stops;

    /**
     * The session store, opened once in the background when the view starts serving: its engine (a
     * native library unpacked on first use, about a second) is then loaded before the first page asks.
     */
    @Reference(name = "store", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    @Activate
    public ServeCommand(@Reference(name = "server") WebServer server) {
        this(Console.system(), server);
    }

    ServeCommand(Console console, WebServer server) {
        this.console = console;
        this.server = server;
    }

    /** Serves until Ctrl-C, SIGTERM or hp:serve --stop (from another session). */
    private void waitForStop() throws InterruptedException {
        StopRequests requests = stops == null ? StopRequests.NONE : stops;
        try (StopRequests.Watch watch = requests.watch("hp:serve")) {
            while (!watch.stopRequested() && server.serving().isPresent()) {
                Thread.sleep(100);
            }
        }
        server.stop();
    }

    /** The largest session whose flame graph the warm-up draws: a few tenths of a second of work at most. */
    static final long WARM_UP_MAX_SAMPLES = 200_000;

    /**
     * In the background: opens the store (see {@link #store}) and asks the view for its sessions page
     * once, so the web server's request path (Jetty's classes for reading a request, the servlet context's
     * checks, the page's answer) is loaded before the first page a user asks for, as the engine is; then
     * for the flame graph of the store's smallest ended session (if one of at most
     * {@value #WARM_UP_MAX_SAMPLES} samples is there), so that the stored flame graph's path (the store's
     * stacks query, the sorted paths, the JSON) has run once: the first large graph a user opens then
     * costs its own work, not the loading of that code as well (about a third of it after a restart).
     * Work every user pays once; nothing but that small graph is kept (the flame graph page's cache).
     */
    private void warm(Serving serving) {
        SessionStore s = store;
        Thread opening = new Thread(() -> {
            long smallest = -1;
            try {
                if (s != null) {
                    s.info();
                    smallest = smallestEnded(s.sessions(new SessionQuery(false, null, null, 200)));
                }
            } catch (StoreException | RuntimeException e) {
                // nothing to say now: the pages that read the store say what is wrong when asked
            }
            askOnce(serving.url());
            if (smallest >= 0) {
                askOnce(serving.url().replace("/?token=", "/api/flame?id=" + smallest + "&token="));
            }
        }, "hp:serve opens the session store");
        opening.setDaemon(true);
        opening.start();
    }

    /**
     * Of these sessions (the store's newest), the id of the ended one with the fewest samples (at least one, at
     * most the warm-up's), or -1; of equals, the first.
     */
    static long smallestEnded(List<StoredSession> sessions) {
        long id = -1;
        long fewest = WARM_UP_MAX_SAMPLES + 1;
        for (StoredSession session : sessions) {
            if (!StoredSession.RUNNING.equals(session.status()) && session.samples() > 0 && session.samples() < fewest) {
                id = session.id();
                fewest = session.samples();
            }
        }
        return id;
    }

    /** One request to the view, its answer read and dropped (a failure is the first page's to say). */
    private static void askOnce(String url) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection(Proxy.NO_PROXY);
            c.setConnectTimeout(5_000);
            c.setReadTimeout(30_000);
            try (InputStream in = c.getResponseCode() < 400 ? c.getInputStream() : c.getErrorStream()) {
                if (in != null) {
                    in.transferTo(OutputStream.nullOutputStream());
                }
            } finally {
                c.disconnect();
            }
        } catch (IOException | RuntimeException e) {
            // nothing to say: a page asked later answers or says why not
        }
    }

    @Descriptor("serve the web view on 127.0.0.1 and print its address")
    public void serve(@Descriptor(ARGUMENTS) String... args) {
        Guard.run(console, SERVE, args, out -> {
            Args a = SERVE.parse(args).atMostPositional(0, "no word besides its options");
            if (a.flag("--stop")) {
                boolean was = server.serving().isPresent();
                server.stop();
                out.println(was ? "hp:serve: stopped; nothing listens" : "hp:serve: the view was not served");
                return;
            }
            int port = a.value("--port") == null ? 0 : (int) Args.number(a.value("--port"), "--port", 1, 65535);
            String listen = a.value("--listen") == null ? "127.0.0.1" : a.value("--listen").strip();
            if (listen.isEmpty()) {
                throw new UsageException("--listen takes an address, e.g. --listen 0.0.0.0");
            }
            Serving s = server.serve(port, listen);
            out.println(s.url());
            warm(s);
            if (a.flag("--wait")) {
                out.flush();
                waitForStop();
            }
        });
    }
}
