package org.hyperprof.web.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;
import org.osgi.service.servlet.runtime.dto.RuntimeDTO;
import org.osgi.service.servlet.runtime.dto.ServletContextDTO;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The view's server: nothing listens until {@link #serve}, which configures Felix HTTP (PID
 * {@code org.apache.felix.http}: the address, the given or a free port, HTTPS off) and only then starts
 * it. Immediate, so that at start it keeps the HTTP bundles from starting ({@link HttpBundles}); when
 * this bundle stops or leaves, the server stops with it.
 */
@Component(service = WebServer.class, immediate = true)
public final class WebServer {
    /** Felix HTTP's configuration. */
    static final String HTTP_PID = "org.apache.felix.http";
    /** How long {@code hp:serve} waits for the server to listen. */
    static final long START_SECONDS = 20;

    private final BundleContext context;
    private final ConfigurationAdmin configurations;
    private final HttpBundles bundles;
    private final AccessToken token = AccessToken.random();
    private volatile Serving serving;

    @Activate
    public WebServer(BundleContext context, @Reference(name = "configurations") ConfigurationAdmin configurations) {
        this.context = context;
        this.configurations = configurations;
        this.bundles = new HttpBundles(context);
        bundles.keepStopped();
    }

    /** Where it listens, once served. */
    public Optional<Serving> serving() {
        return Optional.ofNullable(serving);
    }

    /**
     * Starts serving, or says where it already does.
     *
     * @param port    the port, or 0 for a free one
     * @param address the address to bind: 127.0.0.1 unless the user asked for another
     */
    public synchronized Serving serve(int port, String address) throws ServeException {
        Serving now = serving;
        if (now != null) {
            if ((port == 0 || port == now.port()) && now.address().equals(address)) {
                return now;
            }
            throw new ServeException("the view is already served at " + now.url() + "; stop it first with"
                    + " hp:serve --stop");
        }
        InetAddress bind = resolve(address);
        // A free port is found by binding port 0 and letting it go: another process may take it before
        // Jetty binds it, so a chosen port is tried up to three times, each time a new one.
        int tries = port == 0 ? 3 : 1;
        for (int attempt = 1; ; attempt++) {
            int chosen = port == 0 ? freePort(bind) : port;
            configure(bind.getHostAddress(), chosen);
            HostCheck hosts = "127.0.0.1".equals(address) ? HostCheck.loopback(chosen)
                    : bind.isAnyLocalAddress() ? HostCheck.everyLocalAddress(chosen, address)
                    : HostCheck.listening(chosen, address);
            Serving next = new Serving(bind.getHostAddress(), chosen, hosts, token);
            serving = next;
            try {
                bundles.start();
                awaitListening(chosen);
                return next;
            } catch (ServeException e) {
                stop();
                if (attempt >= tries) {
                    throw e;
                }
            }
        }
    }

    /** Stops serving (nothing listens after). */
    @Deactivate
    public synchronized void stop() {
        serving = null;
        bundles.stop();
    }

    private void configure(String address, int port) throws ServeException {
        try {
            Configuration c = configurations.getConfiguration(HTTP_PID, "?");
            Dictionary<String, Object> p = new Hashtable<>();
            p.put("org.apache.felix.http.host", address);
            p.put("org.osgi.service.http.port", port);
            p.put("org.apache.felix.http.enable", Boolean.TRUE);
            p.put("org.apache.felix.https.enable", Boolean.FALSE);
            p.put("org.apache.felix.http2.enable", Boolean.FALSE);
            p.put("org.apache.felix.http.jetty.sendServerHeader", Boolean.FALSE);
            c.update(p);
        } catch (IOException e) {
            throw new ServeException("the web server's configuration (" + HTTP_PID + ") could not be written: "
                    + e.getMessage());
        }
    }

    /**
     * Waits for Felix HTTP's runtime service naming the port (then Jetty listens) and for every servlet
     * of the view to be in its context: the address is printed only once each page answers.
     */
    private void awaitListening(int port) throws ServeException {
        Filter filter;
        try {
            filter = FrameworkUtil.createFilter("(&(objectClass=" + HttpServiceRuntime.class.getName()
                    + ")(osgi.http.endpoint=*:" + port + "/*))");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        ServiceTracker<HttpServiceRuntime, HttpServiceRuntime> tracker = new ServiceTracker<>(context, filter, null);
        tracker.open();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
            while (System.nanoTime() < deadline) {
                HttpServiceRuntime runtime = tracker.getService();
                if (runtime != null && servletsReady(runtime)) {
                    return;
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            tracker.close();
        }
        throw new ServeException("the web server did not listen on port " + port + " within " + START_SECONDS
                + " s; is the port in use? Choose another with --port N, or leave --port out for a free one");
    }

    /** Whether the runtime has taken every servlet registered for the view's context (or refused it). */
    private boolean servletsReady(HttpServiceRuntime runtime) {
        int registered;
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences("jakarta.servlet.Servlet",
                    "(osgi.http.whiteboard.context.select=*" + Whiteboard.CONTEXT_NAME + "*)");
            registered = refs == null ? 0 : refs.length;
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        RuntimeDTO dto = runtime.getRuntimeDTO();
        int taken = dto.failedServletDTOs == null ? 0 : dto.failedServletDTOs.length;
        for (ServletContextDTO c : dto.servletContextDTOs) {
            if (Whiteboard.CONTEXT_NAME.equals(c.name)) {
                taken += c.servletDTOs.length;
            }
        }
        return taken >= registered;
    }

    private static InetAddress resolve(String address) throws ServeException {
        try {
            return InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new ServeException("cannot listen on '" + address + "': no such address on this machine;"
                    + " give an address such as 127.0.0.1");
        }
    }

    private static int freePort(InetAddress bind) throws ServeException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(bind, 0), 1);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new ServeException("no free port on " + bind.getHostAddress() + ": " + e.getMessage());
        }
    }
}
