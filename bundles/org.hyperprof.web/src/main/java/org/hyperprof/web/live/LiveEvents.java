package org.hyperprof.web.live;

import java.io.IOException;
import java.io.PrintWriter;

import org.hyperprof.web.server.Whiteboard;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The live page's server-sent events ({@code /api/live/events}): the board of the profile running now, sent
 * whenever it moved (looked at a few times a second), and a comment now and then so a connection that went
 * away is noticed.
 */
@Component(service = Servlet.class, property = {"osgi.http.whiteboard.servlet.pattern=/api/live/events",
    Whiteboard.CONTEXT_SELECT})
public final class LiveEvents extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final long LOOK_MS = 200;
    private static final long KEEP_ALIVE_MS = 10_000;

    private final transient LiveWatch watch;

    @Activate
    public LiveEvents(@Reference(name = "watch") LiveWatch watch) {
        this.watch = watch;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!watch.watch()) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, LiveWatch.MAX_WATCHERS + " live pages"
                    + " watch already: close one");
            return;
        }
        try {
            stream(response);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            watch.unwatch();
        }
    }

    private void stream(HttpServletResponse response) throws IOException, InterruptedException {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("text/event-stream;charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        PrintWriter out = response.getWriter();
        LiveBoard board = watch.board();
        long sent = -1;
        long quiet = 0;
        while (!watch.closed()) {
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
}
