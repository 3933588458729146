package org.hyperprof.api.sample;

import java.util.Arrays;

/**
 * A batch of resolved samples as parallel primitive arrays, the one currency of the sample
 * pipeline: every source (the simulated host, a perf.data import, a live recording, folded stacks)
 * makes them and every consumer reads them. Index {@code i < size} is one sample:
 * <ul>
 * <li>{@code domain}: the domain whose buffer held it (for a plain host recording, the host);</li>
 * <li>{@code vcpu}: the vCPU (the CPU the process ran on, for a recording without domains);</li>
 * <li>{@code mode}: the Xenoprof mode (0 user, 1 kernel, 2 hypervisor);</li>
 * <li>{@code counter}: the counter (event) that overflowed;</li>
 * <li>{@code pc}: the sampled program counter;</li>
 * <li>{@code image}, {@code symbol}: ids of the session's {@link SessionDictionary};</li>
 * <li>{@code weight}: the events the sample stands for (the counter's period when it overflowed;
 * 1 where a source has no period), at least 1; reports weigh by it;</li>
 * <li>{@code time}: when it was taken, in nanoseconds of the source's clock (perf's clock for a
 * recording, simulated time since the host started for the simulator), or {@link #UNKNOWN};</li>
 * <li>{@code cpu}: the physical CPU that took it, or {@link #UNKNOWN};</li>
 * <li>{@code pid}, {@code tid}: the process and thread in the domain, or {@link #UNKNOWN}; process
 * names are in the dictionary ({@link SessionDictionary#processName}).</li>
 * <li>{@code comm}: the command name the thread had when the sample was taken (perf's comm, which
 * exec and {@code prctl(PR_SET_NAME)} change), as a comm id of the dictionary
 * ({@link SessionDictionary#commName}), or {@link #UNKNOWN} for a source that does not know it.</li>
 * <li>{@code flags}: facts about the sample as bits, 0 when none holds: {@link #CHAIN_FROM_PC},
 * {@link #MODE_UNKNOWN}.</li>
 * </ul>
 *
 * <p>Call chains (when the session has a backtrace depth) are in {@code chainPc}, {@code chainImage},
 * {@code chainSymbol} and {@code chainMode}: sample {@code i}'s callers, innermost first, are the
 * entries from {@code chainStart[i]} to {@code chainStart[i + 1] - 1}. {@code chainMode} is the
 * mode each caller ran in (as {@code mode}: a caller in the kernel of a user-mode sample's process
 * is a kernel entry), or {@link #UNKNOWN} where the source cannot tell. Without call chains
 * {@code chainStart} is all zeros.
 *
 * <h2>Who owns the arrays</h2>
 * The source that made a batch lends it: a consumer reads it during its
 * {@link SampleConsumer#samples} call only, and must not change it. Once every consumer the batch
 * was offered to has returned from that call (or will never be called with it), the source may
 * fill the same arrays again. A consumer that keeps anything past the call copies it, the whole
 * batch with {@link #copy()} or the columns it needs. This is what lets the pipeline run without
 * allocating per batch; it is a change from 1.x, where batches could be kept.
 */
public final class SampleBatch {
    /** A time, CPU, pid, tid or caller's mode the source does not know. */
    public static final int UNKNOWN = -1;

    /**
     * Flag: the recorded call chain began with the sample's own address, which is not repeated
     * among its callers. perf counts such a sample under that address as a callee too, and keys an
     * address no symbol covers differently there (see {@link SessionDictionary#isAddress}).
     */
    public static final int CHAIN_FROM_PC = 1;

    /**
     * Flag: the source could not tell the sample's mode (perf's cpumode "unknown", or a value no
     * mode has); {@code mode} holds the mode it was attributed to, user.
     */
    public static final int MODE_UNKNOWN = 2;

    public final long sessionId;
    public final int size;
    public final int[] domain;
    public final int[] vcpu;
    public final byte[] mode;
    public final byte[] counter;
    public final long[] pc;
    public final int[] image;
    public final int[] symbol;
    public final long[] weight;
    public final long[] time;
    public final int[] cpu;
    public final int[] pid;
    public final int[] tid;
    /** @since 2.1 */
    public final int[] comm;
    public final byte[] flags;
    public final int[] chainStart;
    public final long[] chainPc;
    public final int[] chainImage;
    public final int[] chainSymbol;
    public final byte[] chainMode;

    /**
     * A batch without comms (every sample's {@link #comm} {@link #UNKNOWN}). Arrays are taken as they
     * are (not copied): the source lends them (see the class comment).
     */
    public SampleBatch(long sessionId, int size, int[] domain, int[] vcpu, byte[] mode, byte[] counter, long[] pc,
            int[] image, int[] symbol, long[] weight, long[] time, int[] cpu, int[] pid, int[] tid, byte[] flags,
            int[] chainStart, long[] chainPc, int[] chainImage, int[] chainSymbol, byte[] chainMode) {
        this(sessionId, size, domain, vcpu, mode, counter, pc, image, symbol, weight, time, cpu, pid, tid,
                unknownComms(size), flags, chainStart, chainPc, chainImage, chainSymbol, chainMode);
    }

    /**
     * Arrays are taken as they are (not copied): the source lends them (see the class comment).
     *
     * @since 2.1
     */
    public SampleBatch(long sessionId, int size, int[] domain, int[] vcpu, byte[] mode, byte[] counter, long[] pc,
            int[] image, int[] symbol, long[] weight, long[] time, int[] cpu, int[] pid, int[] tid, int[] comm,
            byte[] flags, int[] chainStart, long[] chainPc, int[] chainImage, int[] chainSymbol, byte[] chainMode) {
        if (size < 0 || domain.length < size || vcpu.length < size || mode.length < size || counter.length < size
                || pc.length < size || image.length < size || symbol.length < size || weight.length < size
                || time.length < size || cpu.length < size || pid.length < size || tid.length < size
                || comm.length < size || flags.length < size || chainStart.length < size + 1) {
            throw new IllegalArgumentException("batch arrays shorter than its size " + size);
        }
        int chain = chainStart[size];
        if (chainPc.length < chain || chainImage.length < chain || chainSymbol.length < chain
                || chainMode.length < chain) {
            throw new IllegalArgumentException("call-chain arrays shorter than the batch's " + chain + " entries");
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
        this.weight = weight;
        this.time = time;
        this.cpu = cpu;
        this.pid = pid;
        this.tid = tid;
        this.comm = comm;
        this.flags = flags;
        this.chainStart = chainStart;
        this.chainPc = chainPc;
        this.chainImage = chainImage;
        this.chainSymbol = chainSymbol;
        this.chainMode = chainMode;
    }

    /** Whether sample {@code i} has flag {@code flag} ({@link #CHAIN_FROM_PC}, {@link #MODE_UNKNOWN}). */
    public boolean has(int i, int flag) {
        return (flags[i] & flag) != 0;
    }

    /** Number of call-chain entries of sample {@code i}. */
    public int chainLength(int i) {
        return chainStart[i + 1] - chainStart[i];
    }

    /** Call-chain entries of the whole batch. */
    public int chainEntries() {
        return chainStart[size];
    }

    /** The sum of the batch's weights: the events its samples stand for. */
    public long totalWeight() {
        long w = 0;
        for (int i = 0; i < size; i++) {
            w += weight[i];
        }
        return w;
    }

    /** A batch of its own, trimmed to its size, for a consumer that keeps samples past the call. */
    public SampleBatch copy() {
        int n = size;
        int c = chainEntries();
        return new SampleBatch(sessionId, n, Arrays.copyOf(domain, n), Arrays.copyOf(vcpu, n),
                Arrays.copyOf(mode, n), Arrays.copyOf(counter, n), Arrays.copyOf(pc, n),
                Arrays.copyOf(image, n), Arrays.copyOf(symbol, n),
                Arrays.copyOf(weight, n), Arrays.copyOf(time, n), Arrays.copyOf(cpu, n),
                Arrays.copyOf(pid, n), Arrays.copyOf(tid, n), Arrays.copyOf(comm, n), Arrays.copyOf(flags, n),
                Arrays.copyOf(chainStart, n + 1), Arrays.copyOf(chainPc, c),
                Arrays.copyOf(chainImage, c), Arrays.copyOf(chainSymbol, c), Arrays.copyOf(chainMode, c));
    }

    private static int[] unknownComms(int size) {
        int[] c = new int[Math.max(size, 0)];
        Arrays.fill(c, UNKNOWN);
        return c;
    }
}
