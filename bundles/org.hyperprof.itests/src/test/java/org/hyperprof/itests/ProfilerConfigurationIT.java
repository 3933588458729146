package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.ops4j.pax.exam.Configuration;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The profiler's batch size is a Configuration Admin setting (PID org.hyperprof.profiler) that takes effect
 * from the next session, without the profiler leaving.
 */
public class ProfilerConfigurationIT extends InFramework {

    public ProfilerConfigurationIT() {
        super("opreport");
    }

    @Test
    public void batchSizeSetThroughConfigurationAdminShapesTheBatchesConsumersGet() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = Services.await(context, Profiler.class, "");
        ServiceReference<Profiler> ref = context.getServiceReference(Profiler.class);
        ConfigurationAdmin cm = Services.await(context, ConfigurationAdmin.class, "");
        ReportRenderer opreport = Services.await(context, ReportRenderer.class, "(report.name=opreport)");

        Dictionary<String, Object> settings = new Hashtable<>();
        settings.put("batch.size", 100);
        cm.getConfiguration("org.hyperprof.profiler", "?").update(settings);
        // The same component takes the change (its modified method): its service properties show it.
        for (int i = 0; i < 400 && !Integer.valueOf(100).equals(ref.getProperty("batch.size")); i++) {
            Thread.sleep(50);
        }
        assertEquals(100, ref.getProperty("batch.size"));
        assertSame("the service stays registered through the change", profiler,
                Services.await(context, Profiler.class, ""));
        // A consumer of the test's own sees the batches as they come.
        AtomicInteger largest = new AtomicInteger();
        AtomicLong batches = new AtomicLong();
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(SampleConsumer.NAME, "batch-sizes");
        ServiceRegistration<SampleConsumer> probe = context.registerService(SampleConsumer.class,
                new SampleConsumer() {
                    @Override
                    public void sessionStarted(SessionInfo session) {
                    }

                    @Override
                    public void samples(SampleBatch batch) {
                        largest.accumulateAndGet(batch.size, Math::max);
                        batches.incrementAndGet();
                    }

                    @Override
                    public void sessionEnded(SessionSummary summary) {
                    }
                }, props);
        try {
            hosts.load(HostService.DEFAULT_SCENARIO, null);
            SessionSummary summary = profile(profiler, 50_000);

            String text = report(opreport, summary);
            Matcher m = Pattern.compile("aggregated (\\d+) samples").matcher(text);
            assertTrue(text, m.find());
            long samples = Long.parseLong(m.group(1));
            assertEquals(summary.accounting().delivered(), samples);
            assertTrue("at most 100 samples per batch: " + samples + " in " + batches + ", the largest "
                    + largest, largest.get() <= 100 && batches.get() * 100 >= samples && samples > 1000);
        } finally {
            probe.unregister();
        }
    }
}
