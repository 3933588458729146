package org.hyperprof.pipeline;

import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.hyperprof.api.sample.SampleBatch;

/**
 * The one batch builder every source fills: resolved samples go into primitive arrays, sample by
 * sample, with no allocation per sample; a full batch (or a flush) is handed to the sink together
 * with its {@link Lease}. Whoever keeps the batch past the sink's call (a consumer's queue, a report
 * thread) {@linkplain Lease#hold() holds} the lease and releases it when done; once nobody holds it,
 * the arrays come back and the next batch is filled in them ({@link SampleBatch}'s ownership rule).
 *
 * <p>Threading: one thread fills at a time. The simulator's daemons fill under the builder's
 * monitor (they hold it while they append a drained buffer); {@link #flush}, {@link #close} and
 * {@link #discardDomain} take it themselves. After {@link #close()} samples are refused and nothing
 * more is handed on.
 */
public final class BatchBuilder {

    /** Receives each full or flushed batch. */
    @FunctionalInterface
    public interface Sink {
        /**
         * Takes a batch. The batch's arrays are the sink's to read during the call; to keep them
         * longer, {@link Lease#hold()} before returning and {@link Lease#release()} when done.
         */
        void batch(SampleBatch batch, Lease lease);
    }

    /** What happens to a batch's arrays once it is handed on. */
    public enum Reuse {
        /** Reused as soon as the sink returns: the sink reads the batch while it is called only. */
        AT_ONCE,
        /** Reused once every holder of the batch's lease released it. */
        WHEN_RELEASED,
        /** Never reused: each batch gets new arrays. */
        NEVER
    }

    /**
     * A handed batch's claim on its arrays: they come back to the builder when the last holder
     * releases. The builder holds it while the sink is called.
     */
    public static final class Lease {
        private final BatchBuilder owner;
        private final SampleBatch batch;
        private final Runnable returned;
        private final AtomicInteger holders = new AtomicInteger(1);

        Lease(BatchBuilder owner, SampleBatch batch) {
            this.owner = owner;
            this.batch = batch;
            this.returned = null;
        }

        private Lease(Runnable returned) {
            this.owner = null;
            this.batch = null;
            this.returned = returned;
        }

        /**
         * A lease for a batch some other builder made: {@code returned} runs once the caller and
         * everyone who held it released it. The caller holds it: release it after handing it on.
         */
        public static Lease of(Runnable returned) {
            return new Lease(returned);
        }

        /** Keeps the batch's arrays until {@link #release()}. */
        public void hold() {
            if (holders.getAndIncrement() <= 0) {
                holders.decrementAndGet();
                throw new IllegalStateException("a batch's lease was held after its arrays went back to the builder");
            }
        }

        /** Gives the arrays back; the last release returns them to the builder. */
        public void release() {
            int left = holders.decrementAndGet();
            if (left == 0) {
                if (owner != null) {
                    owner.returned(this);
                } else {
                    returned.run();
                }
            } else if (left < 0) {
                throw new IllegalStateException("a batch's lease was released more often than it was held");
            }
        }
    }

    private final long sessionId;
    private final int capacity;
    private final Reuse reuse;
    private final Sink sink;
    /** With {@link Reuse#WHEN_RELEASED}: arrays in circulation at most; 0 allocates when none came back. */
    private final int maxSlabs;
    private final ConcurrentLinkedQueue<Lease> back = new ConcurrentLinkedQueue<>();
    private final ArrayBlockingQueue<Lease> backWaited;
    private int slabs;

    private int[] domain;
    private int[] vcpu;
    private byte[] mode;
    private byte[] counter;
    private long[] pc;
    private int[] image;
    private int[] symbol;
    private long[] weight;
    private long[] time;
    private int[] cpu;
    private int[] pid;
    private int[] tid;
    private int[] comm;
    private byte[] flags;
    private int[] chainStart;
    private long[] chainPc;
    private int[] chainImage;
    private int[] chainSymbol;
    private byte[] chainMode;

    private int size;
    private int chainCount;
    private boolean sampleOpen;
    private boolean closed;
    private long samples;
    private long publishedSamples;
    private long publishedBatches;

    /** A builder whose batches' arrays are never reused (each batch is new). */
    public BatchBuilder(long sessionId, int capacity, Sink sink) {
        this(sessionId, capacity, Reuse.NEVER, 0, sink);
    }

    /**
     * @param maxSlabs with {@link Reuse#WHEN_RELEASED}, how many sets of arrays may be out at once:
     *                 the filling thread waits for one to come back when all are out (a bound on
     *                 memory and a brake on a source that can wait); 0 allocates a new set instead
     */
    public BatchBuilder(long sessionId, int capacity, Reuse reuse, int maxSlabs, Sink sink) {
        if (capacity < 1) {
            throw new IllegalArgumentException("batch capacity " + capacity + " must be at least 1");
        }
        if (maxSlabs < 0) {
            throw new IllegalArgumentException("at most " + maxSlabs + " sets of arrays: give 0 (no bound) or more");
        }
        this.sessionId = sessionId;
        this.capacity = capacity;
        this.reuse = reuse;
        this.maxSlabs = maxSlabs;
        this.backWaited = maxSlabs > 0 ? new ArrayBlockingQueue<>(maxSlabs) : null;
        this.sink = sink;
        allocate(capacity);
        slabs = 1;
    }

    public long sessionId() {
        return sessionId;
    }

    private void allocate(int chainCapacity) {
        domain = new int[capacity];
        vcpu = new int[capacity];
        mode = new byte[capacity];
        counter = new byte[capacity];
        pc = new long[capacity];
        image = new int[capacity];
        symbol = new int[capacity];
        weight = new long[capacity];
        time = new long[capacity];
        cpu = new int[capacity];
        pid = new int[capacity];
        tid = new int[capacity];
        comm = new int[capacity];
        flags = new byte[capacity];
        chainStart = new int[capacity + 1];
        chainPc = new long[chainCapacity];
        chainImage = new int[chainCapacity];
        chainSymbol = new int[chainCapacity];
        chainMode = new byte[chainCapacity];
    }

    /**
     * Starts sample number {@link #pending()}, with no {@linkplain SampleBatch#flags flags}; its
     * flags and callers follow through {@link #flag} and {@link #caller}, then {@link #end()}.
     * Ignored once closed.
     */
    public void begin(int sampleDomain, int sampleVcpu, int sampleMode, int sampleCounter, long samplePc,
            int sampleImage, int sampleSymbol, long sampleWeight, long sampleTime, int sampleCpu, int samplePid,
            int sampleTid) {
        if (closed) {
            return;
        }
        int i = size;
        domain[i] = sampleDomain;
        vcpu[i] = sampleVcpu;
        mode[i] = (byte) sampleMode;
        counter[i] = (byte) sampleCounter;
        pc[i] = samplePc;
        image[i] = sampleImage;
        symbol[i] = sampleSymbol;
        weight[i] = sampleWeight;
        time[i] = sampleTime;
        cpu[i] = sampleCpu;
        pid[i] = samplePid;
        tid[i] = sampleTid;
        comm[i] = SampleBatch.UNKNOWN;
        flags[i] = 0;
        chainStart[i] = chainCount;
        sampleOpen = true;
    }

    /** Sets the open sample's {@linkplain SampleBatch#comm comm id} (begun as {@link SampleBatch#UNKNOWN}). */
    public void comm(int sampleComm) {
        if (sampleOpen) {
            comm[size] = sampleComm;
        }
    }

    /** Sets {@code flag} ({@link SampleBatch#CHAIN_FROM_PC}, {@link SampleBatch#MODE_UNKNOWN}) on the open sample. */
    public void flag(int flag) {
        if (sampleOpen) {
            flags[size] |= (byte) flag;
        }
    }

    /**
     * Appends a caller (return address) of the open sample, innermost first, and the mode it ran
     * in ({@link SampleBatch#UNKNOWN} if the source cannot tell).
     */
    public void caller(long callerPc, int callerImage, int callerSymbol, int callerMode) {
        if (!sampleOpen) {
            return;
        }
        int c = chainCount;
        if (c == chainPc.length) {
            growChain(Math.max(16, c * 2));
        }
        chainPc[c] = callerPc;
        chainImage[c] = callerImage;
        chainSymbol[c] = callerSymbol;
        chainMode[c] = (byte) callerMode;
        chainCount = c + 1;
    }

    private void growChain(int n) {
        chainPc = Arrays.copyOf(chainPc, n);
        chainImage = Arrays.copyOf(chainImage, n);
        chainSymbol = Arrays.copyOf(chainSymbol, n);
        chainMode = Arrays.copyOf(chainMode, n);
    }

    /**
     * Appends {@code count} callers of the open sample at once, innermost first, from
     * {@code from} in the given arrays: for a source that resolves a whole call chain before
     * handing it on (one copy instead of a call per frame).
     */
    public void callers(long[] callerPcs, int[] callerImages, int[] callerSymbols, byte[] callerModes, int from,
            int count) {
        if (!sampleOpen || count <= 0) {
            return;
        }
        int c = chainCount;
        if (c + count > chainPc.length) {
            growChain(Math.max(Math.max(16, chainPc.length * 2), c + count));
        }
        System.arraycopy(callerPcs, from, chainPc, c, count);
        System.arraycopy(callerImages, from, chainImage, c, count);
        System.arraycopy(callerSymbols, from, chainSymbol, c, count);
        System.arraycopy(callerModes, from, chainMode, c, count);
        chainCount = c + count;
    }

    /** Where the open sample's callers start, for {@link #dropCallers}. */
    public int chainMark() {
        return chainStart[size];
    }

    /** Drops the open sample's callers from {@code mark} on (a corrupt call chain). */
    public void dropCallers(int mark) {
        if (mark >= chainStart[size] && mark <= chainCount) {
            chainCount = mark;
        }
    }

    /** Closes the open sample; a full batch is handed on. */
    public void end() {
        if (!sampleOpen) {
            return;
        }
        sampleOpen = false;
        size++;
        chainStart[size] = chainCount;
        samples++;
        if (size == capacity) {
            flush();
        }
    }

    /** Hands on the samples gathered so far as one batch, if any. */
    public synchronized void flush() {
        if (size == 0 || closed) {
            return;
        }
        SampleBatch batch = new SampleBatch(sessionId, size, domain, vcpu, mode, counter, pc, image, symbol, weight,
                time, cpu, pid, tid, comm, flags, chainStart, chainPc, chainImage, chainSymbol, chainMode);
        Lease lease = new Lease(this, batch);
        publishedSamples += size;
        publishedBatches++;
        int chainCapacity = Math.max(capacity, chainPc.length);
        if (reuse == Reuse.NEVER) {
            allocate(chainCapacity);
        } else if (reuse == Reuse.WHEN_RELEASED) {
            Lease next = takeBack();
            if (next == null) {
                allocate(chainCapacity);
                slabs++;
            } else {
                adopt(next);
            }
        }
        size = 0;
        chainCount = 0;
        try {
            sink.batch(batch, lease);
        } finally {
            chainStart[0] = 0;
            if (reuse == Reuse.WHEN_RELEASED) {
                lease.release();
            }
        }
    }

    /** A set of arrays that came back, waiting for one when every allowed set is out; null: allocate. */
    private Lease takeBack() {
        if (backWaited == null) {
            return back.poll();
        }
        Lease l = backWaited.poll();
        if (l != null || slabs < maxSlabs) {
            return l;
        }
        try {
            return backWaited.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the consumers to give a batch back", e);
        }
    }

    private void returned(Lease lease) {
        if (backWaited != null) {
            backWaited.offer(lease);
        } else {
            back.offer(lease);
        }
    }

    private void adopt(Lease l) {
        SampleBatch b = l.batch;
        domain = b.domain;
        vcpu = b.vcpu;
        mode = b.mode;
        counter = b.counter;
        pc = b.pc;
        image = b.image;
        symbol = b.symbol;
        weight = b.weight;
        time = b.time;
        cpu = b.cpu;
        pid = b.pid;
        tid = b.tid;
        comm = b.comm;
        flags = b.flags;
        chainStart = b.chainStart;
        chainPc = b.chainPc;
        chainImage = b.chainImage;
        chainSymbol = b.chainSymbol;
        chainMode = b.chainMode;
    }

    /** Flushes and refuses everything after. */
    public synchronized void close() {
        flush();
        closed = true;
    }

    /**
     * opcontrol --reset: removes the samples of {@code domid} not yet handed on.
     *
     * @return how many samples were removed
     */
    public synchronized int discardDomain(int domid) {
        int n = size;
        int removed = 0;
        int from = chainStart[0];
        size = 0;
        chainCount = 0;
        sampleOpen = false;
        // The kept samples are appended again in place: a kept sample and its callers only move
        // down, so each is read before anything is written over it.
        for (int i = 0; i < n; i++) {
            int to = chainStart[i + 1];
            if (domain[i] == domid) {
                removed++;
            } else {
                byte kept = flags[i];
                int keptComm = comm[i];
                begin(domain[i], vcpu[i], mode[i], counter[i], pc[i], image[i], symbol[i], weight[i], time[i], cpu[i],
                        pid[i], tid[i]);
                flags[size] = kept;
                comm[size] = keptComm;
                for (int c = from; c < to; c++) {
                    caller(chainPc[c], chainImage[c], chainSymbol[c], chainMode[c]);
                }
                sampleOpen = false;
                size++;
                chainStart[size] = chainCount;
            }
            from = to;
        }
        return removed;
    }

    /** Samples not yet handed on (the open sample's index). */
    public int pending() {
        return size;
    }

    /** Samples ended in all (handed on or pending). */
    public long samples() {
        return samples;
    }

    public synchronized long publishedSamples() {
        return publishedSamples;
    }

    public synchronized long publishedBatches() {
        return publishedBatches;
    }

    /** Sets of arrays made so far (one, with {@link Reuse#AT_ONCE}). */
    public int slabs() {
        return slabs;
    }
}
