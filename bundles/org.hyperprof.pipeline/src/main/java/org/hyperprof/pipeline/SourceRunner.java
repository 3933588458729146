package org.hyperprof.pipeline;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.source.SampleSource;
import org.hyperprof.api.source.SampleSources;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The installed sample sources, by {@code source.name}, run as sessions of the session publisher:
 * sources come and go while the framework runs, as consumers do.
 */
@Component(service = SampleSources.class)
public final class SourceRunner implements SampleSources {
    /** Samples per batch: the simulator's and the importer's size. */
    static final int BATCH = 4096;

    private final SessionPublisher publisher;
    private final Map<String, SampleSource> sources = new ConcurrentSkipListMap<>();

    @Activate
    public SourceRunner(@Reference SessionPublisher publisher) {
        this.publisher = publisher;
    }

    @Reference(service = SampleSource.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "removeSource")
    public void addSource(SampleSource source, Map<String, Object> properties) {
        sources.put(SampleSource.IDENTITY.of(properties, source), source);
    }

    public void removeSource(SampleSource source, Map<String, Object> properties) {
        sources.remove(SampleSource.IDENTITY.of(properties, source), source);
    }

    @Override
    public Map<String, String> sources() {
        Map<String, String> out = new TreeMap<>();
        sources.forEach((n, s) -> out.put(n, describe(s)));
        return out;
    }

    private static String describe(SampleSource s) {
        try {
            return s.description();
        } catch (RuntimeException e) {
            return "(its description failed: " + e + ")";
        }
    }

    @Override
    public SessionSummary read(String name, Path file) throws IOException {
        SampleSource source = sources.get(name);
        if (source == null) {
            throw new IllegalArgumentException("no sample source '" + name + "' is installed; installed: "
                    + (sources.isEmpty() ? "none" : String.join(", ", sources.keySet())) + " (hp:sources)");
        }
        Path f = file.getFileName();
        SourceFeed feed = new SourceFeed(name, f == null ? file.toString() : f.toString(), describe(source), publisher,
                BATCH);
        try {
            source.read(file, feed);
        } catch (IOException | RuntimeException | Error e) {
            // What was read reaches the consumers, and the books say why the session ended early.
            try {
                feed.close("failed: " + e.getMessage());
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return feed.close(SessionSummary.COMPLETED);
    }
}
