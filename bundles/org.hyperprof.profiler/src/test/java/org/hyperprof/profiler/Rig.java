package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.testing.sample.RecordingConsumer;

/** A profiler on a {@link FakeHost} with the fake resolver and one recording consumer. */
final class Rig implements AutoCloseable {
    final FakeHost host;
    final FakeXenoprof xen;
    final ProfilerImpl profiler;
    final FakeResolver resolver = new FakeResolver();
    final RecordingConsumer consumer = new RecordingConsumer();

    Rig() {
        this(new FakeHost(), 64);
    }

    Rig(FakeHost host, int batchSize) {
        this.host = host;
        this.xen = host.xenoprof;
        this.profiler = new ProfilerImpl(host.service(), batchSize, 8, Duration.ofSeconds(5));
        profiler.addResolver("kallsyms", resolver);
        profiler.addConsumer("rec", consumer);
    }

    OpcontrolResult op(int domid, String... args) {
        return profiler.opcontrol(domid, List.of(args));
    }

    /** dom0 primary with dom0 and dom1 active, both daemons up, sampling started. */
    Rig profiling() {
        ok(op(0, "--start-daemon", "--active-domains=0,1"));
        ok(op(1, "--start-daemon"));
        ok(op(0, "--start"));
        return this;
    }

    static OpcontrolResult ok(OpcontrolResult r) {
        assertTrue(r.ok(), r.output());
        return r;
    }

    /** The documented end: stop in dom0, shut dom1 down, then dom0; waits for sessionEnded. */
    OpcontrolResult finish() throws InterruptedException {
        ok(op(0, "--stop"));
        ok(op(1, "--shutdown"));
        OpcontrolResult r = ok(op(0, "--shutdown"));
        assertTrue(consumer.awaitEnd(), "sessionEnded reaches the consumer");
        return r;
    }

    /** Every received sample as "dom image symbol", in order. */
    List<String> resolved() {
        SessionDictionary d = consumer.info.dictionary();
        return perSample((b, i) -> b.domain[i] + " " + d.imageName(b.image[i]) + " " + d.symbolName(b.symbol[i]));
    }

    /** Every received sample's image kind, in order. */
    List<ImageKind> imageKinds() {
        SessionDictionary d = consumer.info.dictionary();
        return perSample((b, i) -> d.imageKind(b.image[i]));
    }

    /** What {@code column} reads of each received sample (its batch and index there), in order. */
    private <T> List<T> perSample(BiFunction<SampleBatch, Integer, T> column) {
        List<T> out = new ArrayList<>();
        for (SampleBatch b : consumer.batches) {
            for (int i = 0; i < b.size; i++) {
                out.add(column.apply(b, i));
            }
        }
        return out;
    }


    @Override
    public void close() {
        profiler.deactivate();
    }
}
