package org.hyperprof.web.live;

import java.util.Dictionary;
import java.util.Hashtable;

import org.hyperprof.api.profiler.ProfileWatcher;
import org.hyperprof.api.sample.SampleConsumer;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The live page's board and who watches it: it hears every one-shot profile's progress (a few fields set), and
 * while at least one page watches it registers the board as a sample consumer of its own
 * ({@value LiveBoard#NAME}); with none watching, it is no consumer and costs the profiles nothing. Apart from
 * the servlet, so that the profiler binding it loads no servlet class before {@code hp:serve}.
 */
@Component(service = {ProfileWatcher.class, LiveWatch.class})
public final class LiveWatch implements ProfileWatcher {
    /** Pages that may watch at once: each holds a server thread. */
    static final int MAX_WATCHERS = 8;

    private final BundleContext context;
    private final LiveBoard board = new LiveBoard();
    private final Object lock = new Object();
    private int watchers;
    private ServiceRegistration<SampleConsumer> registration;
    private volatile long done;
    private volatile long total;
    private volatile boolean closed;

    @Activate
    public LiveWatch(BundleContext context) {
        this.context = context;
    }

    @Override
    public void progress(long doneMicros, long totalMicros, long samples) {
        done = doneMicros;
        total = totalMicros;
        board.progress(doneMicros, totalMicros);
    }

    LiveBoard board() {
        return board;
    }

    boolean closed() {
        return closed;
    }

    /** One more page watches; the first registers the board as a consumer. False when too many watch. */
    boolean watch() {
        synchronized (lock) {
            if (watchers >= MAX_WATCHERS || closed) {
                return false;
            }
            if (watchers++ == 0) {
                if (done > 0 && done < total) {
                    board.joinedLate();
                }
                Dictionary<String, Object> properties = new Hashtable<>();
                properties.put(SampleConsumer.NAME, LiveBoard.NAME);
                registration = context.registerService(SampleConsumer.class, board, properties);
            }
            return true;
        }
    }

    void unwatch() {
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
