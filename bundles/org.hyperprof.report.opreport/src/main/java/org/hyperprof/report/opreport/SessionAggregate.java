package org.hyperprof.report.opreport;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.kit.LongIntTable;
import org.hyperprof.report.kit.Rejections;
import org.hyperprof.report.kit.ReportAggregate;

/**
 * What opreport keeps of one session, all in primitive maps keyed by (context, counter, id) where
 * a context is one (domain, vCPU, thread) triple and a thread one (pid, tid, physical CPU): what
 * {@code separate=} may keep apart when the report is made:
 * <ul>
 * <li>samples per symbol (the flat summaries, opreport -l, and opreport's per image, which adds up
 * the image's symbols);
 * <li>samples per (symbol, PC) address, for the per-instruction details (opreport -d), bounded to
 * {@value #MAX_ADDRESSES} distinct addresses per session;
 * <li>for call chains: samples per caller&rarr;callee arc (one per pair of adjacent frames of a
 * sample's stack, leaf first) and, per symbol, the samples in which it appears among the callers
 * but is not the leaf (its self samples plus these are its inclusive samples), bounded to
 * {@value #MAX_ARCS} distinct arcs per session;
 * </ul>
 * plus the batches and samples it took or rejected, and the summary once the session ends.
 *
 * <p>Batches arrive on the consumer's delivery thread while reports may be rendered from the shell;
 * every method synchronizes on this object, and a report works from a {@link #snapshot()} copy so
 * that rendering never holds up aggregation for longer than the copies take.
 */
final class SessionAggregate extends ReportAggregate {

    /** Distinct (domain, vCPU, thread) contexts per session; the context takes key bits 62..40 (23 bits). */
    static final int MAX_CONTEXTS = 1 << 20;

    /** Distinct (pid, tid, CPU) threads per session. */
    static final int MAX_THREADS = 1 << 20;

    /** Distinct (symbol, PC) addresses kept for the details view per session. */
    static final int MAX_ADDRESSES = 1 << 20;

    /** Distinct caller&rarr;callee arcs kept for the call graph per session. */
    static final int MAX_ARCS = 1 << 20;

    /** (domain << 32 | vCPU, thread id) to context id. */
    private final LongPairIds contexts = new LongPairIds(16, MAX_CONTEXTS);
    /** (pid << 32 | tid, CPU) to thread id. */
    private final LongPairIds threads = new LongPairIds(16, MAX_THREADS);
    private final LongIntTable symbolSamples = new LongIntTable(1024);
    private final LongPairIds addresses;
    private final LongIntTable addressSamples = new LongIntTable(1024);
    private final LongPairIds arcs;
    private final LongIntTable arcSamples = new LongIntTable(256);
    private final LongIntTable callerOnlySamples = new LongIntTable(256);

    /** The last (domain, vCPU, pid, tid, CPU) and its context: consecutive samples mostly share it. */
    private int lastDomain = -1;
    private int lastVcpu = -1;
    private int lastPid;
    private int lastTid;
    private int lastCpu;
    private int lastContext = -1;

    /**
     * The last sample each frame was counted in as a caller, so that a frame that appears twice in
     * one stack (recursion) adds one inclusive sample, not two. Frames are symbols, or for frames
     * without symbol their image.
     */
    private long[] symbolStamp = new long[256];
    private long[] imageStamp = new long[64];
    private long stackSerial;

    private long samplesWithCallers;
    private long callerEntries;
    private long rejectedCallerEntries;
    private String firstChainProblem;
    private long arcsNotKept;
    private long samplesWithoutAddress;

    SessionAggregate(SessionInfo info) {
        this(info, MAX_ADDRESSES, MAX_ARCS);
    }

    /** With other bounds on the addresses and arcs it keeps (tests reach the bounds this way). */
    SessionAggregate(SessionInfo info, int maxAddresses, int maxArcs) {
        super(info, 0);
        this.addresses = new LongPairIds(1024, maxAddresses);
        this.arcs = new LongPairIds(256, maxArcs);
        Arrays.fill(symbolStamp, -1);
        Arrays.fill(imageStamp, -1);
    }

    /**
     * Packs (context, counter, id) into one non-negative key: context in bits 62..40, counter in
     * 39..32, the image id, symbol slot, address id or arc id in 31..0.
     */
    static long key(int context, int counter, int id) {
        return ((long) context << 40) | ((long) counter << 32) | (id & 0xFFFFFFFFL);
    }

    static int keyContext(long key) {
        return (int) (key >>> 40);
    }

    static int keyCounter(long key) {
        return (int) (key >>> 32) & 0xFF;
    }

    static int keyId(long key) {
        return (int) key;
    }

    /**
     * The symbol map's id for a sample: the symbol id, or for a sample without symbol the
     * complement of its image id, so that each image keeps its own "(no symbols)" row.
     */
    static int symbolSlot(int symbol, int image) {
        return symbol >= 0 ? symbol : ~image;
    }

    /**
     * A call-chain entry that does not check out ends that sample's chain there (the sample itself
     * counts) and is counted with the entries after it.
     */
    @Override
    protected void count(SampleBatch batch, int imageCount) {
        growStamps(imageCount);
        int[] domain = batch.domain;
        int[] vcpu = batch.vcpu;
        long[] pc = batch.pc;
        int[] image = batch.image;
        int[] symbol = batch.symbol;
        int[] chainStart = batch.chainStart;
        int[] cpu = batch.cpu;
        int[] pid = batch.pid;
        int[] tid = batch.tid;
        for (int i = 0; i < batch.size; i++) {
            if (!fits(batch, i, imageCount)) {
                reject(batch, i, imageCount);
                continue;
            }
            int d = domain[i];
            int v = vcpu[i];
            int c = counterSlot(batch, i);
            int img = image[i];
            int sym = symbol[i];
            int context = context(d, v, pid[i], tid[i], cpu[i]);
            if (context == LongPairIds.FULL) {
                reject(i, "(domain " + d + ", vcpu " + v + ", pid " + pid[i] + ", tid " + tid[i] + ", cpu "
                        + cpu[i] + ") would be context number " + (Math.max(contexts.size(), threads.size()) + 1)
                        + "; opreport keeps at most " + MAX_CONTEXTS + " (domain, vCPU, thread) contexts and "
                        + MAX_THREADS + " (pid, tid, CPU) threads per session");
                continue;
            }
            int slot = symbolSlot(sym, img);
            symbolSamples.add(key(context, c, slot), 1);
            int address = addresses.id(slot, pc[i]);
            if (address == LongPairIds.FULL) {
                samplesWithoutAddress++;
            } else {
                addressSamples.add(key(context, c, address), 1);
            }
            samples++;
            int start = chainStart[i];
            int end = chainStart[i + 1];
            if (end != start) {
                callers(batch, i, context, c, slot, start, end, imageCount);
            }
        }
    }

    /**
     * Counts the arcs of one sample's stack: leaf&larr;caller 1, caller 1&larr;caller 2, ... and
     * each caller frame once towards its inclusive samples.
     */
    private void callers(SampleBatch batch, int i, int context, int c, int leaf, int start, int end,
            int imageCount) {
        int[] chainImage = batch.chainImage;
        int[] chainSymbol = batch.chainSymbol;
        if (start < 0 || end < start || end > chainImage.length || end > chainSymbol.length
                || end > batch.chainPc.length) {
            rejectedCallerEntries += Math.max(0, end - start);
            chainProblem(i, "its chain runs from entry " + start + " to " + end + ", outside the batch's "
                    + Math.min(chainImage.length, Math.min(chainSymbol.length, batch.chainPc.length)) + " entries");
            return;
        }
        long stack = ++stackSerial;
        stamp(leaf, stack);
        int callee = leaf;
        boolean any = false;
        for (int k = start; k < end; k++) {
            int img = chainImage[k];
            int sym = chainSymbol[k];
            if (!symbols.holds(img, sym, imageCount)) {
                rejectedCallerEntries += end - k;
                chainProblem(i, "caller " + (k - start + 1) + " " + symbols.misfit(img, sym, imageCount)
                        + "; the chain is cut there");
                break;
            }
            int caller = symbolSlot(sym, img);
            int arc = arcs.id(caller, callee);
            if (arc == LongPairIds.FULL) {
                arcsNotKept++;
            } else {
                arcSamples.add(key(context, c, arc), 1);
            }
            if (stamp(caller, stack)) {
                callerOnlySamples.add(key(context, c, caller), 1);
            }
            callerEntries++;
            any = true;
            callee = caller;
        }
        if (any) {
            samplesWithCallers++;
        }
    }

    /** Marks the frame as seen in this stack; true when it was not seen in it before. */
    private boolean stamp(int slot, long stack) {
        long[] stamps = slot >= 0 ? symbolStamp : imageStamp;
        int index = slot >= 0 ? slot : ~slot;
        if (stamps[index] == stack) {
            return false;
        }
        stamps[index] = stack;
        return true;
    }

    private int context(int domain, int vcpu, int pid, int tid, int cpu) {
        if (domain == lastDomain && vcpu == lastVcpu && pid == lastPid && tid == lastTid && cpu == lastCpu) {
            return lastContext;
        }
        int thread = threads.id(pair(pid, tid), cpu);
        if (thread == LongPairIds.FULL) {
            return LongPairIds.FULL;
        }
        int context = contexts.id(pair(domain, vcpu), thread);
        if (context != LongPairIds.FULL) {
            lastDomain = domain;
            lastVcpu = vcpu;
            lastPid = pid;
            lastTid = tid;
            lastCpu = cpu;
            lastContext = context;
        }
        return context;
    }

    /** Two ints in one long: {@code high} in the upper 32 bits. */
    static long pair(int high, int low) {
        return ((long) high << 32) | (low & 0xFFFFFFFFL);
    }

    /** A consistent copy of everything counted so far. */
    synchronized Snapshot snapshot() {
        return snapshot(true, true);
    }

    /**
     * A consistent copy of the flat counts, with the call graph's and the per-PC counts only when
     * asked for (they may be large; left out, they are empty in the copy).
     */
    synchronized Snapshot snapshot(boolean callgraph, boolean details) {
        Rejections.Books rejected = rejections.books();
        return new Snapshot(info, contexts.copy(), threads.copy(), symbolSamples.copy(),
                details ? addresses.copy() : new LongPairIds(1, 1),
                details ? addressSamples.copy() : new LongIntTable(1),
                callgraph ? arcs.copy() : new LongPairIds(1, 1), callgraph ? arcSamples.copy() : new LongIntTable(1),
                callgraph ? callerOnlySamples.copy() : new LongIntTable(1),
                new Counts(batches, samples, rejected.samples(), rejected.batches(), rejected.first(),
                        samplesWithCallers, callerEntries, rejectedCallerEntries, firstChainProblem, arcsNotKept, arcs.full(),
                        arcs.size(), samplesWithoutAddress, addresses.full(), addresses.size()),
                summary());
    }

    /** Samples aggregated so far for (domain, counter, image), over all the domain's vCPUs. */
    synchronized int imageSamples(int domain, int counter, int image) {
        // an image's samples are those of its symbols (and of its "no symbols" slot): one count per sample
        int[] sum = new int[1];
        symbolSamples.forEach((k, count) -> {
            int slot = keyId(k);
            int slotImage = slot < 0 ? ~slot : info.dictionary().symbolImage(slot);
            if (slotImage == image && keyCounter(k) == counter && domainOf(keyContext(k)) == domain) {
                sum[0] += count;
            }
        });
        return sum[0];
    }

    /** Samples aggregated so far for (domain, counter, symbol); symbol -1 needs its image. */
    synchronized int symbolSamples(int domain, int counter, int symbol, int image) {
        return sumOverVcpus(symbolSamples, domain, counter, symbolSlot(symbol, image));
    }

    /** Samples aggregated so far for (domain, vCPU, counter, symbol) over its threads; symbol -1 needs its image. */
    synchronized int symbolSamples(int domain, int vcpu, int counter, int symbol, int image) {
        int sum = 0;
        for (int context = 0; context < contexts.size(); context++) {
            if (contexts.first(context) == pair(domain, vcpu)) {
                sum += symbolSamples.get(key(context, counter, symbolSlot(symbol, image)), 0);
            }
        }
        return sum;
    }

    /** Samples whose stack has {@code caller} directly above {@code callee} (symbol -1 needs its image). */
    synchronized int arcSamples(int domain, int counter, int callerSymbol, int callerImage, int calleeSymbol,
            int calleeImage) {
        int arc = arcIdOf(symbolSlot(callerSymbol, callerImage), symbolSlot(calleeSymbol, calleeImage));
        return arc < 0 ? 0 : sumOverVcpus(arcSamples, domain, counter, arc);
    }

    /** Samples in which the symbol is among the callers but is not the leaf, once per sample. */
    synchronized int callerOnlySamples(int domain, int counter, int symbol, int image) {
        return sumOverVcpus(callerOnlySamples, domain, counter, symbolSlot(symbol, image));
    }

    private int sumOverVcpus(LongIntTable counts, int domain, int counter, int id) {
        int sum = 0;
        for (int context = 0; context < contexts.size(); context++) {
            if (domainOf(context) == domain) {
                sum += counts.get(key(context, counter, id), 0);
            }
        }
        return sum;
    }

    private int domainOf(int context) {
        return (int) (contexts.first(context) >>> 32);
    }

    private int arcIdOf(int caller, int callee) {
        for (int arc = 0; arc < arcs.size(); arc++) {
            if (arcs.first(arc) == caller && arcs.second(arc) == callee) {
                return arc;
            }
        }
        return -1;
    }

    /** Grows the caller stamps to the symbols learned and the dictionary's images, new slots unstamped. */
    private void growStamps(int imageCount) {
        symbolStamp = grown(symbolStamp, symbols.known());
        imageStamp = grown(imageStamp, imageCount);
    }

    private static long[] grown(long[] stamps, int count) {
        if (count <= stamps.length) {
            return stamps;
        }
        int old = stamps.length;
        long[] more = Arrays.copyOf(stamps, Math.max(count, old * 2));
        Arrays.fill(more, old, more.length, -1);
        return more;
    }

    private void chainProblem(int i, String why) {
        if (firstChainProblem == null) {
            firstChainProblem = at(i, why);
        }
    }

    /** The session's tallies at the time of a snapshot. */
    record Counts(long batches, long samples, long rejectedSamples, long rejectedBatches, String firstRejection,
            long samplesWithCallers, long callerEntries, long rejectedCallerEntries, String firstChainProblem,
            long arcsNotKept, boolean arcsFull, int arcsKept, long samplesWithoutAddress, boolean addressesFull,
            int addressesKept) {
    }

    /**
     * An immutable copy of a session's counts, for rendering off the delivery thread. Keys of the
     * count maps are {@link #key}s whose context is an id of {@code contexts} (first = domain,
     * second = vCPU), whose address ids are ids of {@code addresses} (first = symbol slot, second =
     * PC) and whose arc ids are ids of {@code arcs} (first = caller slot, second = callee slot).
     */
    record Snapshot(SessionInfo info, LongPairIds contexts, LongPairIds threads, LongIntTable symbolSamples,
            LongPairIds addresses, LongIntTable addressSamples, LongPairIds arcs, LongIntTable arcSamples,
            LongIntTable callerOnlySamples, Counts counts, SessionSummary summary) {

        long batches() {
            return counts.batches();
        }

        long samples() {
            return counts.samples();
        }

        long rejectedSamples() {
            return counts.rejectedSamples();
        }

        long rejectedBatches() {
            return counts.rejectedBatches();
        }

        String firstRejection() {
            return counts.firstRejection();
        }

        int domain(int context) {
            return (int) (contexts.first(context) >>> 32);
        }

        int vcpu(int context) {
            return (int) contexts.first(context);
        }

        /** The process of the context's samples, or {@code SampleBatch.UNKNOWN}. */
        int pid(int context) {
            return (int) (threads.first((int) contexts.second(context)) >>> 32);
        }

        /** The thread of the context's samples, or {@code SampleBatch.UNKNOWN}. */
        int tid(int context) {
            return (int) threads.first((int) contexts.second(context));
        }

        /** The physical CPU that took the context's samples, or {@code SampleBatch.UNKNOWN}. */
        int cpu(int context) {
            return (int) threads.second((int) contexts.second(context));
        }
    }
}
