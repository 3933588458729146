package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The output service in the framework: the example consumer, a third-party bundle that needs only
 * the API, gets OutputFiles from Declarative Services and writes its CSV through it (a symbolic
 * link stays a link); without the service it is not active, and it comes back with it.
 */
public class OutputFilesIT extends InFramework {
    @Test
    public void theExampleConsumerWritesItsCsvThroughTheOutputServiceAndWaitsForIt() throws Exception {
        HostService hosts = hosts();
        Profiler profiler = profiler();
        OutputFiles output = Services.await(context, OutputFiles.class, "");
        Bundle outputBundle = FrameworkUtil.getBundle(output.getClass());
        assertEquals("org.hyperprof.output", outputBundle.getSymbolicName());

        Path dir = Files.createTempDirectory("hyperprof-output-it");
        Path real = dir.resolve("rates-real.csv");
        Path link = Files.createSymbolicLink(dir.resolve("rates.csv"), real.getFileName());
        try {
            writesThroughTheLinkAndFollowsTheService(hosts, profiler, outputBundle, link, real);
        } finally {
            Files.deleteIfExists(link);
            Files.deleteIfExists(real);
            Files.deleteIfExists(dir);
        }
    }

    private void writesThroughTheLinkAndFollowsTheService(HostService hosts, Profiler profiler, Bundle outputBundle,
            Path link, Path real) throws Exception {
        ConfigurationAdmin cm = Services.await(context, ConfigurationAdmin.class, "");
        Dictionary<String, Object> settings = new Hashtable<>();
        settings.put("output.path", link.toString());
        cm.getConfiguration("org.hyperprof.example.domainrates", "?").update(settings);

        Bundle example = installAndStart("domainrates");
        Services.await(context, SampleConsumer.class, "(consumer.name=domain-rates)");
        hosts.load(HostService.DEFAULT_SCENARIO, null);
        SessionSummary summary = profile(profiler, 100_000);
        ConsumerAccounting rates = summary.consumers().stream().filter(c -> c.consumer().equals("domain-rates"))
                .findFirst().orElseThrow(() -> new AssertionError("domain-rates not in " + summary.consumers()));
        assertEquals("the consumer missed nothing: " + rates, 0, rates.missed());
        assertNull("no failure: " + rates, rates.problem());

        assertTrue("the link is still a link", Files.isSymbolicLink(link));
        List<String> lines = Files.readAllLines(real, StandardCharsets.UTF_8);
        assertTrue(lines.toString(), lines.get(0).startsWith("session,kind,batch,domain"));
        assertTrue(lines.toString(), lines.stream().anyMatch(l -> l.startsWith(summary.sessionId() + ",total,")));
        assertTrue(Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS));

        // DS deactivates the consumer as the service it needs goes, and activates it again when it comes back.
        outputBundle.stop();
        assertTrue("no domain-rates consumer without the output service",
                context.getServiceReferences(SampleConsumer.class, "(consumer.name=domain-rates)").isEmpty());
        outputBundle.start();
        Services.await(context, SampleConsumer.class, "(consumer.name=domain-rates)");
        example.uninstall();
    }
}
