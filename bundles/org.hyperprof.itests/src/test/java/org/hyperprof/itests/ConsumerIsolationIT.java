package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.osgi.framework.ServiceRegistration;

/**
 * A consumer that throws and one that stalls are isolated: sampling, the session and the other
 * consumers carry on, and what the two missed is counted in the summary.
 */
public class ConsumerIsolationIT extends InFramework {

    public ConsumerIsolationIT() {
        super("opreport");
    }

    /** Counts and returns at once: it keeps up with any sampling, so only the others can disturb it. */
    static final class CountingConsumer implements SampleConsumer {
        final AtomicLong samples = new AtomicLong();

        @Override
        public void sessionStarted(SessionInfo session) {
        }

        @Override
        public void samples(SampleBatch batch) {
            samples.addAndGet(batch.size);
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
        }
    }

    /** Throws on every batch. */
    static final class ThrowingConsumer implements SampleConsumer {
        final AtomicLong batches = new AtomicLong();
        volatile SessionSummary ended;

        @Override
        public void sessionStarted(SessionInfo session) {
        }

        @Override
        public void samples(SampleBatch batch) {
            batches.incrementAndGet();
            throw new IllegalStateException("this consumer fails on purpose");
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
            ended = summary;
        }
    }

    /** Blocks in its first batch until released: its queue fills while sampling goes on. */
    static final class StallingConsumer implements SampleConsumer {
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch stalled = new CountDownLatch(1);

        @Override
        public void sessionStarted(SessionInfo session) {
        }

        @Override
        public void samples(SampleBatch batch) {
            stalled.countDown();
            try {
                release.await(180, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
        }
    }

    private ServiceRegistration<SampleConsumer> register(String name, SampleConsumer consumer) {
        return register(name, consumer, "queued");
    }

    private ServiceRegistration<SampleConsumer> register(String name, SampleConsumer consumer, String delivery) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(SampleConsumer.NAME, name);
        props.put(SampleConsumer.DELIVERY, delivery);
        return context.registerService(SampleConsumer.class, consumer, props);
    }

    @Test
    public void throwingAndStallingConsumersAreIsolatedAndTheirMissesCounted() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();
        Services.await(context, ReportRenderer.class, "(report.name=opreport)");
        hosts.load(HostService.DEFAULT_SCENARIO, null);

        ThrowingConsumer throwing = new ThrowingConsumer();
        StallingConsumer stalling = new StallingConsumer();
        ServiceRegistration<SampleConsumer> t = register("throwing", throwing);
        ServiceRegistration<SampleConsumer> s = register("stalling", stalling);
        CountingConsumer counting = new CountingConsumer();
        // Lossless, as a store registers: the simulator waits for it, so on a machine of any load it
        // gets every sample while the stalled consumer beside it misses.
        ServiceRegistration<SampleConsumer> c = register("counting", counting, "lossless");
        try {
            // The stall ends once 70 batches were published (the throwing consumer hears every one):
            // more than the stalled consumer holds, one in hand and 64 queued, on a machine of any
            // speed (a stall of two seconds filled the queue only where sampling was fast enough).
            Thread releaser = new Thread(() -> {
                try {
                    stalling.stalled.await(60, TimeUnit.SECONDS);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                    while (throwing.batches.get() < 70 && System.nanoTime() < deadline) {
                        Thread.sleep(5);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                stalling.release.countDown();
            });
            releaser.start();
            SessionSummary summary = profiler.profile(new ProfileRequest(List.of("CPU_CLK_UNHALTED:6000:0:1:1"),
                    2_000_000, List.of()), ProgressListener.NONE);
            releaser.join();

            assertTrue(summary.endReason(), summary.completed());
            assertTrue(summary.accounting().balanced());
            long delivered = summary.accounting().delivered();
            assertTrue("enough samples to overflow a stalled queue: " + delivered, delivered > 70 * 4096);

            ConsumerAccounting healthy = books(summary, "counting");
            assertEquals("the healthy consumer got every sample", delivered, healthy.received());
            assertEquals(0, healthy.missed());
            assertEquals(delivered, counting.samples.get());
            // opreport's queue is bounded like every queued consumer's: on a loaded machine it may fall
            // behind by itself, and then says so; its books are exact either way.
            ConsumerAccounting op = books(summary, "opreport");
            assertEquals(delivered, op.received() + op.missed());
            assertTrue("opreport's only possible problem is its own pace: " + op.problem(),
                    op.problem() == null || op.problem().startsWith("too slow"));

            ConsumerAccounting th = books(summary, "throwing");
            assertEquals("every sample the throwing consumer was handed is missed", delivered,
                    th.received() + th.missed());
            assertEquals(delivered, th.missed());
            assertNotNull(th.problem());
            assertTrue(th.problem(), th.problem().contains("fails on purpose"));
            assertTrue("it heard every batch", throwing.batches.get() > 0);

            ConsumerAccounting st = books(summary, "stalling");
            assertEquals(delivered, st.received() + st.missed());
            assertTrue("the stalled consumer missed what its full queue could not take: " + st, st.missed() > 0);
        } finally {
            t.unregister();
            s.unregister();
            c.unregister();
        }
        // The profiler is healthy without them.
        SessionSummary after = profile(profiler, 50_000);
        assertTrue(after.completed());
        assertEquals(List.of("opreport"), after.consumers().stream().map(ConsumerAccounting::consumer).toList());
    }

    private static ConsumerAccounting books(SessionSummary summary, String name) {
        return summary.consumers().stream().filter(c -> c.consumer().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in " + summary.consumers()));
    }
}
