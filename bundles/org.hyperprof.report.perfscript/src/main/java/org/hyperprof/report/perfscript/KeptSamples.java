package org.hyperprof.report.perfscript;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.report.kit.ReportAggregate;

/**
 * Every sample of one session in the order it came, with its time and call chain, as primitive
 * columns in chunks of {@value #CHUNK} (no object per sample, and a chunk is only made when the
 * samples reach it). Past a ceiling of samples or of call-chain frames it keeps nothing more and
 * remembers how many it turned away, so that a writer can refuse instead of writing part.
 *
 * <p>Columns only grow, and the chunk tables are made whole up front: a {@link #snapshot} taken
 * under the lock reads its samples later without it.
 */
final class KeptSamples extends ReportAggregate {

    static final int SHIFT = 14;
    static final int CHUNK = 1 << SHIFT;
    static final int MASK = CHUNK - 1;

    /** The ceilings this session was kept under: samples and call-chain frames. */
    final long maxSamples;
    final long maxFrames;

    // Per sample.
    private final long[][] time;
    private final long[][] pc;
    private final long[][] weight;
    private final int[][] domain;
    private final int[][] cpu;
    private final int[][] pid;
    private final int[][] tid;
    private final int[][] comm;
    private final int[][] image;
    private final int[][] symbol;
    private final int[][] chainLength;
    private final byte[][] counter;
    private final byte[][] flags;
    private long kept;

    // Per call-chain frame, sample after sample.
    private final long[][] framePc;
    private final int[][] frameImage;
    private final int[][] frameSymbol;
    private long frames;

    /** Samples that came past a ceiling and were not kept. */
    private long turnedAway;

    KeptSamples(SessionInfo info, long maxSamples, long maxFrames) {
        super(info, 0);
        this.maxSamples = maxSamples;
        this.maxFrames = maxFrames;
        int sampleChunks = chunks(maxSamples);
        time = new long[sampleChunks][];
        pc = new long[sampleChunks][];
        weight = new long[sampleChunks][];
        domain = new int[sampleChunks][];
        cpu = new int[sampleChunks][];
        pid = new int[sampleChunks][];
        tid = new int[sampleChunks][];
        comm = new int[sampleChunks][];
        image = new int[sampleChunks][];
        symbol = new int[sampleChunks][];
        chainLength = new int[sampleChunks][];
        counter = new byte[sampleChunks][];
        flags = new byte[sampleChunks][];
        int frameChunks = chunks(maxFrames);
        framePc = new long[frameChunks][];
        frameImage = new int[frameChunks][];
        frameSymbol = new int[frameChunks][];
    }

    private static int chunks(long ceiling) {
        return (int) ((ceiling + CHUNK - 1) >>> SHIFT);
    }

    /**
     * Keeps the batch's samples that check out, each run of them copied column by column (a batch
     * is mostly one run); past a ceiling, one by one until none fits.
     */
    @Override
    protected void count(SampleBatch batch, int imageCount) {
        int i = 0;
        while (i < batch.size) {
            if (!fits(batch, i, imageCount)) {
                reject(batch, i, imageCount);
                i++;
                continue;
            }
            int end = i + 1;
            while (end < batch.size && fits(batch, end, imageCount)) {
                end++;
            }
            long runFrames = batch.chainStart[end] - batch.chainStart[i];
            if (kept + (end - i) <= maxSamples && frames + runFrames <= maxFrames) {
                keepRun(batch, i, end);
                samples += end - i;
            } else {
                for (int j = i; j < end; j++) {
                    int n = batch.chainLength(j);
                    if (kept == maxSamples || frames + n > maxFrames) {
                        turnedAway++;
                    } else {
                        keepRun(batch, j, j + 1);
                        samples++;
                    }
                }
            }
            i = end;
        }
    }

    /** Keeps samples {@code [from, to)} of the batch and their frames, which fit under the ceilings. */
    private void keepRun(SampleBatch b, int from, int to) {
        int i = from;
        while (i < to) {
            int c = (int) (kept >>> SHIFT);
            int at = (int) (kept & MASK);
            int n = Math.min(to - i, CHUNK - at);
            if (time[c] == null) {
                newSampleChunk(c);
            }
            System.arraycopy(b.time, i, time[c], at, n);
            System.arraycopy(b.pc, i, pc[c], at, n);
            System.arraycopy(b.weight, i, weight[c], at, n);
            System.arraycopy(b.domain, i, domain[c], at, n);
            System.arraycopy(b.cpu, i, cpu[c], at, n);
            System.arraycopy(b.pid, i, pid[c], at, n);
            System.arraycopy(b.tid, i, tid[c], at, n);
            System.arraycopy(b.comm, i, comm[c], at, n);
            System.arraycopy(b.image, i, image[c], at, n);
            System.arraycopy(b.symbol, i, symbol[c], at, n);
            System.arraycopy(b.counter, i, counter[c], at, n);
            System.arraycopy(b.flags, i, flags[c], at, n);
            int[] lengths = chainLength[c];
            int[] starts = b.chainStart;
            for (int k = 0; k < n; k++) {
                lengths[at + k] = starts[i + k + 1] - starts[i + k];
            }
            kept += n;
            i += n;
        }
        int j = b.chainStart[from];
        int end = b.chainStart[to];
        while (j < end) {
            int fc = (int) (frames >>> SHIFT);
            int fa = (int) (frames & MASK);
            int n = Math.min(end - j, CHUNK - fa);
            if (framePc[fc] == null) {
                framePc[fc] = new long[CHUNK];
                frameImage[fc] = new int[CHUNK];
                frameSymbol[fc] = new int[CHUNK];
            }
            System.arraycopy(b.chainPc, j, framePc[fc], fa, n);
            System.arraycopy(b.chainImage, j, frameImage[fc], fa, n);
            System.arraycopy(b.chainSymbol, j, frameSymbol[fc], fa, n);
            frames += n;
            j += n;
        }
    }

    private void newSampleChunk(int c) {
        time[c] = new long[CHUNK];
        pc[c] = new long[CHUNK];
        weight[c] = new long[CHUNK];
        domain[c] = new int[CHUNK];
        cpu[c] = new int[CHUNK];
        pid[c] = new int[CHUNK];
        tid[c] = new int[CHUNK];
        comm[c] = new int[CHUNK];
        image[c] = new int[CHUNK];
        symbol[c] = new int[CHUNK];
        chainLength[c] = new int[CHUNK];
        counter[c] = new byte[CHUNK];
        flags[c] = new byte[CHUNK];
    }

    /** What is kept now, readable without the lock (the columns below these counts never change). */
    synchronized Snapshot snapshot() {
        return new Snapshot(this, kept, frames, turnedAway, rejections.samples(), summary() != null);
    }

    /**
     * The kept samples at one moment.
     *
     * @param samples    samples kept
     * @param frames     call-chain frames kept
     * @param turnedAway samples that came past a ceiling
     * @param rejected   samples that did not check out against the session
     * @param ended      whether the session had ended
     */
    record Snapshot(KeptSamples of, long samples, long frames, long turnedAway, long rejected, boolean ended) {

        SessionInfo info() {
            return of.info;
        }

        long time(long s) {
            return of.time[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        long pc(long s) {
            return of.pc[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        long weight(long s) {
            return of.weight[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int domain(long s) {
            return of.domain[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int cpu(long s) {
            return of.cpu[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int pid(long s) {
            return of.pid[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int tid(long s) {
            return of.tid[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int comm(long s) {
            return of.comm[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int image(long s) {
            return of.image[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int symbol(long s) {
            return of.symbol[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        int chainLength(long s) {
            return of.chainLength[(int) (s >>> SHIFT)][(int) (s & MASK)];
        }

        /** The position of the sample's counter in the session's counter list. */
        int counterSlot(long s) {
            return of.counterSlots[of.counter[(int) (s >>> SHIFT)][(int) (s & MASK)] & 0xFF];
        }

        boolean has(long s, int flag) {
            return (of.flags[(int) (s >>> SHIFT)][(int) (s & MASK)] & flag) != 0;
        }

        long framePc(long f) {
            return of.framePc[(int) (f >>> SHIFT)][(int) (f & MASK)];
        }

        int frameImage(long f) {
            return of.frameImage[(int) (f >>> SHIFT)][(int) (f & MASK)];
        }

        int frameSymbol(long f) {
            return of.frameSymbol[(int) (f >>> SHIFT)][(int) (f & MASK)];
        }
    }
}
