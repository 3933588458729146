package org.hyperprof.api.sample;

/**
 * A batch of resolved samples as parallel primitive arrays. Index {@code i < size} is one sample:
 * the domain whose buffer held it, the vCPU, the Xenoprof mode, the counter that overflowed, the
 * PC, and the image and symbol ids of the session's {@link SessionDictionary}.
 *
 * <p>Call chains (when the session has a backtrace depth) are in {@code chainPc}, {@code chainImage}
 * and {@code chainSymbol}: sample {@code i}'s callers, innermost first, are the entries from
 * {@code chainStart[i]} to {@code chainStart[i + 1] - 1}. Without call chains {@code chainStart}
 * is all zeros.
 *
 * <p>A batch is immutable once handed to consumers; each consumer may keep it.
 */
public final class SampleBatch {
    public final long sessionId;
    public final int size;
    public final int[] domain;
    public final int[] vcpu;
    public final byte[] mode;
    public final byte[] counter;
    public final long[] pc;
    public final int[] image;
    public final int[] symbol;
    public final int[] chainStart;
    public final long[] chainPc;
    public final int[] chainImage;
    public final int[] chainSymbol;

    /** Arrays are taken as they are (not copied): the producer hands them over. */
    public SampleBatch(long sessionId, int size, int[] domain, int[] vcpu, byte[] mode, byte[] counter, long[] pc,
            int[] image, int[] symbol, int[] chainStart, long[] chainPc, int[] chainImage, int[] chainSymbol) {
        if (domain.length < size || vcpu.length < size || mode.length < size || counter.length < size
                || pc.length < size || image.length < size || symbol.length < size || chainStart.length < size + 1) {
            throw new IllegalArgumentException("batch arrays shorter than its size " + size);
        }
        this.sessionId = sessionId;
        this.size = size;
        this.domain = domain;
        this.vcpu = vcpu;
        this.mode = mode;
        this.counter = counter;
        this.pc = pc;
        this.image = image;
        this.symbol = symbol;
        this.chainStart = chainStart;
        this.chainPc = chainPc;
        this.chainImage = chainImage;
        this.chainSymbol = chainSymbol;
    }

    /** Number of call-chain entries of sample {@code i}. */
    public int chainLength(int i) {
        return chainStart[i + 1] - chainStart[i];
    }
}
