package org.hyperprof.testing.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

import org.hyperprof.api.sample.SampleBatch;

/**
 * Samples for a {@link SampleBatch}, added one by one with their callers (innermost first, as the
 * batch carries them), then made into a batch of its own arrays. Tests give each sample its values;
 * the shapes they find convenient (repeated samples, callers as pairs or frames) are theirs.
 */
public final class TestBatches {
    private record Caller(long pc, int image, int symbol, byte mode) {
    }

    private record Sample(int domain, int vcpu, byte mode, byte counter, long pc, int image, int symbol, long weight,
            long time, int cpu, int pid, int tid, int flags, List<Caller> callers) {
    }

    private final long sessionId;
    private final List<Sample> samples = new ArrayList<>();
    private int chainCount;

    public TestBatches(long sessionId) {
        this.sessionId = sessionId;
    }

    /**
     * Adds a sample of weight 1 with no time, CPU or process and no callers yet ({@link #caller}
     * adds them); {@code rawMode} is Xenoprof's mode byte.
     */
    public TestBatches sample(int domid, int vcpuId, byte rawMode, int counterIndex, long samplePc, int imageId,
            int symbolId) {
        return sample(domid, vcpuId, rawMode, counterIndex, samplePc, imageId, symbolId, 1, SampleBatch.UNKNOWN,
                SampleBatch.UNKNOWN, SampleBatch.UNKNOWN, SampleBatch.UNKNOWN);
    }

    /** Adds a sample with every column given, and no callers yet. */
    public TestBatches sample(int domid, int vcpuId, byte rawMode, int counterIndex, long samplePc, int imageId,
            int symbolId, long sampleWeight, long sampleTime, int sampleCpu, int samplePid, int sampleTid) {
        samples.add(new Sample(domid, vcpuId, rawMode, (byte) counterIndex, samplePc, imageId, symbolId, sampleWeight,
                sampleTime, sampleCpu, samplePid, sampleTid, 0, new ArrayList<>()));
        return this;
    }

    /** Sets the last sample's {@linkplain SampleBatch#flags flags}. */
    public TestBatches flags(int sampleFlags) {
        Sample s = last();
        samples.set(samples.size() - 1, new Sample(s.domain(), s.vcpu(), s.mode(), s.counter(), s.pc(), s.image(),
                s.symbol(), s.weight(), s.time(), s.cpu(), s.pid(), s.tid(), sampleFlags, s.callers()));
        return this;
    }

    /** Adds a caller of the last sample, outward of those added before, in the sample's mode. */
    public TestBatches caller(long callerPc, int imageId, int symbolId) {
        return caller(callerPc, imageId, symbolId, last().mode());
    }

    /** Adds a caller of the last sample, outward of those added before, in mode {@code callerMode}. */
    public TestBatches caller(long callerPc, int imageId, int symbolId, int callerMode) {
        last().callers().add(new Caller(callerPc, imageId, symbolId, (byte) callerMode));
        chainCount++;
        return this;
    }

    private Sample last() {
        if (samples.isEmpty()) {
            throw new IllegalStateException("a caller or flag belongs to a sample: add the sample first");
        }
        return samples.get(samples.size() - 1);
    }

    /** Samples added so far. */
    public int size() {
        return samples.size();
    }

    /** Frames of call chains added so far. */
    public int chainCount() {
        return chainCount;
    }

    private int[] ints(ToIntFunction<Sample> column) {
        return samples.stream().mapToInt(column).toArray();
    }

    private long[] longs(ToLongFunction<Sample> column) {
        return samples.stream().mapToLong(column).toArray();
    }

    private byte[] bytes(ToIntFunction<Sample> column) {
        return bytes(samples, column);
    }

    private static <T> byte[] bytes(List<T> rows, ToIntFunction<T> column) {
        byte[] out = new byte[rows.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) column.applyAsInt(rows.get(i));
        }
        return out;
    }

    /** A batch of its own arrays holding the samples added so far. */
    public SampleBatch build() {
        List<Caller> chain = samples.stream().flatMap(s -> s.callers().stream()).toList();
        int[] chainStart = new int[samples.size() + 1];
        for (int i = 0; i < samples.size(); i++) {
            chainStart[i + 1] = chainStart[i] + samples.get(i).callers().size();
        }
        return new SampleBatch(sessionId, samples.size(), ints(Sample::domain), ints(Sample::vcpu),
                bytes(Sample::mode), bytes(Sample::counter), longs(Sample::pc), ints(Sample::image),
                ints(Sample::symbol), longs(Sample::weight), longs(Sample::time), ints(Sample::cpu), ints(Sample::pid),
                ints(Sample::tid), bytes(Sample::flags), chainStart, chain.stream().mapToLong(Caller::pc).toArray(),
                chain.stream().mapToInt(Caller::image).toArray(), chain.stream().mapToInt(Caller::symbol).toArray(),
                bytes(chain, Caller::mode));
    }
}
