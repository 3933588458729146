package org.hyperprof.pipeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.source.SampleFeed;

/**
 * One read of a {@link org.hyperprof.api.source.SampleSource}: its names go into the session's
 * {@link Dictionary}, its samples into a {@link BatchBuilder} whose batches are lent to the
 * consumers. The session opens at the first sample (so the domains and counters named before it are
 * in its start) or at the end of a read that delivered none.
 */
final class SourceFeed implements SampleFeed {
    private static final UnitMask NO_MASK = new UnitMask("none", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "no unit mask")));

    private final String source;
    private final String fileName;
    private final String description;
    private final SessionPublisher publisher;
    private final int batchSize;
    private final Dictionary dictionary = new Dictionary();
    private final Map<Integer, String> domains = new TreeMap<>();
    private final Map<Integer, CounterConfig> counters = new TreeMap<>();
    private final Map<String, Long> invalidByReason = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private SessionPublisher.Channel channel;
    private BatchBuilder builder;
    private long invalid;

    SourceFeed(String source, String fileName, String description, SessionPublisher publisher, int batchSize) {
        this.source = source;
        this.fileName = fileName;
        this.description = description;
        this.publisher = publisher;
        this.batchSize = batchSize;
        domains.put(0, fileName);
    }

    @Override
    public void domain(int domid, String name) {
        beforeSamples("domain " + domid);
        domains.put(domid, name);
    }

    @Override
    public void counter(int number, String event, long period) {
        beforeSamples("counter " + number);
        if (number < 0 || number > 255) {
            throw new IllegalArgumentException("counter number " + number + " is outside 0..255");
        }
        EventDescriptor d = new EventDescriptor(event, number, 1L << Math.min(number, 63), 1, NO_MASK, null,
                source + " event " + event + (period > 1 ? ", one sample every " + period + " events" : ""));
        counters.put(number, new CounterConfig(number, d, Math.max(1, period), 0, true, true));
    }

    private void beforeSamples(String what) {
        if (channel != null) {
            throw new IllegalStateException(source + " named " + what + " after its first sample; a session's"
                    + " domains and counters are in its start: name them first");
        }
    }

    @Override
    public int image(String name, ImageKind kind, int domid) {
        return dictionary.addImage(name, kind, domid);
    }

    @Override
    public int symbol(String name, int image) {
        return dictionary.addSymbol(name, image);
    }

    @Override
    public void process(int domid, int pid, String name) {
        dictionary.nameProcess(domid, pid, name);
    }

    @Override
    public void sample(int domid, int vcpu, int mode, int counter, long pc, int image, int symbol, long weight,
            long time, int cpu, int pid, int tid) {
        BatchBuilder b = builder;
        if (b == null) {
            b = open();
        }
        b.begin(domid, vcpu, mode, counter, pc, image, symbol, weight, time, cpu, pid, tid);
    }

    @Override
    public void mapping(int domid, int pid, int image, long start, long limit, long fileOffset) {
        dictionary.addMapping(domid, pid, image, start, limit, fileOffset);
    }

    @Override
    public void buildId(int image, String hex) {
        dictionary.buildId(image, hex);
    }

    @Override
    public void flag(int flag) {
        if (flag != SampleBatch.CHAIN_FROM_PC && flag != SampleBatch.MODE_UNKNOWN) {
            throw new IllegalArgumentException(source + " set flag " + flag + " on a sample; a sample's flags are "
                    + "CHAIN_FROM_PC (" + SampleBatch.CHAIN_FROM_PC + ") and MODE_UNKNOWN (" + SampleBatch.MODE_UNKNOWN
                    + ")");
        }
        if (builder == null) {
            throw new IllegalStateException(source + " set flag " + flag + " before its first sample; a flag is the"
                    + " sample's just started");
        }
        builder.flag(flag);
    }

    @Override
    public void caller(long pc, int image, int symbol, int mode) {
        builder.caller(pc, image, symbol, mode);
    }

    @Override
    public void end() {
        builder.end();
    }

    @Override
    public void invalid(long samples, String why) {
        invalid += samples;
        invalidByReason.merge(why, samples, Long::sum);
    }

    @Override
    public void note(String line) {
        notes.add(line);
    }

    private BatchBuilder open() {
        if (counters.isEmpty()) {
            counter(0, "SAMPLES", 1);
        }
        SessionPublisher.Channel ch = publisher.open(source, fileName, "unknown", description, 0,
                new ArrayList<>(counters.values()), domains, dictionary, false);
        channel = ch;
        builder = new BatchBuilder(ch.sessionId(), batchSize, BatchBuilder.Reuse.WHEN_RELEASED, 0, (batch, lease) -> {
            // Each consumer that queues the batch holds its lease; the arrays come back when all are done.
            lease.hold();
            ch.publish(batch, lease::release);
        });
        return builder;
    }

    /** Ends the session: what was delivered, what was invalid, and why it ended. */
    SessionSummary close(String endReason) {
        if (builder == null) {
            open();
        }
        builder.close();
        long delivered = builder.publishedSamples();
        List<String> all = new ArrayList<>(notes);
        invalidByReason.forEach((why, n) -> all.add(n + " samples not delivered: " + why));
        if (delivered == 0 && invalid == 0) {
            all.add("the file held no samples");
        }
        Map<String, Long> books = new LinkedHashMap<>();
        books.put("images", (long) dictionary.imageCount());
        books.put("symbols", (long) dictionary.symbolCount());
        return channel.close(new Accounting(delivered + invalid, delivered, 0, 0, invalid), books, all, endReason);
    }
}
