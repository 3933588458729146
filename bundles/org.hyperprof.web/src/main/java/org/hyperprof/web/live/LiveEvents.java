package org.hyperprof.web.live;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Dictionary;
import java.util.Hashtable;

import org.hyperprof.api.profiler.ProfileWatcher;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.web.server.Whiteboard;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The live page's server-sent events ({@code /api/live/events}): the board of the
 * profile running now, sent whenever it moved (looked at a few times a second), and a comment now and then so a
 * connection that went away is noticed. While at least one page watches, the board is a sample consumer of its
 * own ({@value LiveBoard#NAME}); with none, it is not, and costs the profiles nothing.
 */
@Component(service = {Servlet.class, ProfileWatcher.class}, property = {
    "osgi.http.whiteboard.servlet.pattern=/api/live/events", Whiteboard.CONTEXT_SELECT})
public final class LiveEvents extends HttpServlet implements ProfileWatcher {
    private static final long serialVersionUID = 1L;
    /** Pages that may watch at once: each holds a server thread. */
    static final int MAX_WATCHERS = 8;
    private static final long LOOK_MS = 200;
    private static final long KEEP_ALIVE_MS = 10_000;

    private final transient BundleContext context;
    private final transient LiveBoard board = new LiveBoard();
    private final transient Object lock = new Object();
    private transient int watchers;
    private transient ServiceRegistration<SampleConsumer> registration;
    private transient volatile boolean running;
    private transient volatile long done;
    private transient volatile long total;
    private transient volatile boolean closed;

    @Activate
    public LiveEvents(BundleContext context) {
        this.context = context;
    }

    @Override
    public void progress(long doneMicros, long totalMicros, long samples) {
        done = doneMicros;
        total = totalMicros;
        running = doneMicros < totalMicros;
        board.progress(doneMicros, totalMicros);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!watch()) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, MAX_WATCHERS + " live pages watch"
                    + " already: close one");
            return;
        }
        try {
            stream(response);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            unwatch();
        }
    }

    private void stream(HttpServletResponse response) throws IOException, InterruptedException {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("text/event-stream;charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        PrintWriter out = response.getWriter();
        long sent = -1;
        long quiet = 0;
        while (!closed) {
            long version = board.version();
            if (version != sent) {
                out.write("event: board\ndata: " + board.snapshot() + "\n\n");
                sent = version;
                quiet = 0;
            } else if ((quiet += LOOK_MS) >= KEEP_ALIVE_MS) {
                out.write(": still here\n\n");
                quiet = 0;
            }
            out.flush();
            if (out.checkError()) {
                return; // the page went away
            }
            Thread.sleep(LOOK_MS);
        }
    }

    /** One more page watches; the first registers the board as a consumer. False when too many watch. */
    private boolean watch() {
        synchronized (lock) {
            if (watchers >= MAX_WATCHERS || closed) {
                return false;
            }
            if (watchers++ == 0) {
                if (running && done > 0 && done < total) {
                    board.joinedLate();
                }
                Dictionary<String, Object> properties = new Hashtable<>();
                properties.put(SampleConsumer.NAME, LiveBoard.NAME);
                registration = context.registerService(SampleConsumer.class, board, properties);
            }
            return true;
        }
    }

    private void unwatch() {
        synchronized (lock) {
            if (--watchers == 0 && registration != null) {
                try {
                    registration.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // the bundle stopped meanwhile: the framework unregistered it
                }
                registration = null;
            }
        }
    }

    @Deactivate
    void deactivate() {
        closed = true;
    }
}
