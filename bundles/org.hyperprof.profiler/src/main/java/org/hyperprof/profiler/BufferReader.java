package org.hyperprof.profiler;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.pipeline.BatchBuilder;

/**
 * The daemon's side of one vCPU's shared ring. A drain reads {@code event_head} and
 * {@code event_tail} once each, validates them, bulk-copies the entries it may read into
 * preallocated primitive arrays, decodes them into samples, and publishes the new tail once.
 *
 * <p>The page is writable by the guest, so the indices read from it are untrusted (XSA-313). A
 * head outside {@code [0, size)} is never used: it is counted and the drain waits for a sane one.
 * Once mapped, the reader never takes its position from the page: it keeps the tail it last
 * published, since it is the ring's only legitimate consumer, and compares the page's tail with it:
 * <ul>
 * <li>a tail outside {@code [0, size)} is counted; Xen writes nothing while it lasts, so the
 * entries from the reader's own tail to the head are intact and read;</li>
 * <li>a tail moved forward, over entries the reader had not read yet (between its own tail and the
 * head): Xen counts those slots free and may already be rewriting them, so they are skipped
 * ({@link #skippedEntries()});</li>
 * <li>a tail moved back, over slots the reader had already read (anywhere else in the ring): they
 * are not read again ({@link #rewoundEntries()}); Xen, which now sees them as unread, has less
 * room and counts samples that do not fit as lost, as for any full ring. The same indices result
 * when a tail moved forward was passed by Xen going round the ring (it wrote over the skipped
 * slots); the page's sample counters tell the two apart: after a rewind every sample Xen wrote
 * since the last drain lies between the reader's tail and the head, after such a lap not all do,
 * and what Xen counts unread is read as for any tail moved forward.</li>
 * </ul>
 * The reader marks every slot it has read ({@link #READ_EIP}, a mode Xen never writes) before it
 * publishes its tail, so the slots behind it hold either that mark, entries Xen wrote since, or
 * (before the first lap) the zeros of a fresh page: a head moved forward over read or never-written
 * slots shows them, and they are skipped as stale ({@link #staleEntries()}), never decoded, not even
 * as return addresses of a fresh sample.
 * The head cannot be checked against the reader's own knowledge, but against Xen's: the page's
 * {@code user/kernel/xen_samples} tell how many samples Xen wrote since the last drain. A head moved
 * back (over unread entries) makes Xen overwrite them: fewer samples between tail and head than Xen
 * wrote. A head moved forward (over slots holding entries read before, or never written) makes the
 * ring show more samples than Xen wrote: the reader cannot tell the stale ones from the fresh, so it
 * delivers none of them ({@link #refusedEntries()}, {@link #staleSamples()}). Every sample Xen
 * wrote that the reader did not deliver for one of these reasons is {@link #unreachedSamples()}: the
 * session counts it invalid. So no entry is ever handed to the consumers twice, and the books stay
 * exact, for any one index write between two drains. (Two writes that cancel out before the next
 * drain, such as a tail moved forward and a head moved forward by as many samples, leave indices and
 * counts that no reader of the page can tell from a clean ring.) No exception, no allocation.
 *
 * <p>Decoding (xenoprof-facts §4.4, §7): an escape record {@code {~0, mode, 1}} starts a call
 * trace; the next entry is the sample, and the {@code event == 0} entries that follow it in the
 * same mode, up to the backtrace depth, are its return addresses (callers). With a depth set Xen
 * begins every sample with an escape record, so an entry outside a trace is an orphaned trace
 * entry. What cannot be decoded is counted and skipped, never given to another sample or domain:
 * <ul>
 * <li>an escape record whose sample never came (followed by another escape, or still alone when the
 * reader is finished): {@link #danglingEscapes()};</li>
 * <li>an escape value with an event other than TRACE_BEGIN: {@link #unknownEscapes()};</li>
 * <li>a return address outside a trace or beyond the depth: {@link #orphanEntries()};</li>
 * <li>a sample whose counter index is not one of the session's counters: {@link #badEvents()};</li>
 * <li>an entry whose mode is not 0, 1 or 2, or a trace's sample in another mode than its escape:
 * {@link #badModes()}.</li>
 * </ul>
 * An escape record that ends a drain waits for its sample in the next drain of the same ring (Xen
 * may have been writing it), so a trace cut by a drain never takes another ring's entry.
 */
final class BufferReader {
    final SharedBuffer buffer;
    /** The domain whose buffer this is: every sample drained from it carries this id. */
    final int owner;
    final int vcpu;
    /** {@code event_size} as read once when the buffer was mapped. */
    final int size;

    private final long[] eip;
    private final byte[] mode;
    private final byte[] event;

    /**
     * What the reader writes into each slot it has read: an escape value in mode 0xFF, which Xen
     * never writes (its modes are 0, 1 and 2).
     */
    static final long READ_EIP = SharedBuffer.ESCAPE_CODE;
    static final int READ_MODE = 0xFF;
    static final int READ_EVENT = 0xFF;

    /**
     * OProfile's {@code IBS_FETCH_SAMPLE} and {@code IBS_OP_SAMPLE}: the pseudo-PCs with which Xen
     * starts an AMD IBS block of 8 (fetch) or 14 (op) entries, event 0, outside any call trace, and
     * counts it as one sample (xenoprof-facts §6.7).
     */
    static final long IBS_FETCH_CODE = 13;
    static final long IBS_OP_CODE = 14;
    static final int IBS_FETCH_ENTRIES = 8;
    static final int IBS_OP_ENTRIES = 14;

    /** Mode of an escape record that ended the last drain and still waits for its sample; -1 if none. */
    private int pendingEscapeMode = -1;
    /** The {@code event_tail} this reader last published (the page's may have been rewritten since). */
    private int ownTail;
    /** Xen's {@code user + kernel + xen_samples} of the page when this reader last took entries. */
    private long samplesSeen;

    /** Highest mode a sample of this ring may carry: 2 (xen) for Xenoprof's rings, 1 for a guest's own. */
    private int maxMode = 2;
    /** When set, the counter numbers a sample may name (indexed by number); overrides {@code numCounters}. */
    private boolean[] allowedCounters;

    private long drainedEntries;
    private long samples;
    private long callerEntries;
    private long traceBegins;
    private long badHeadReads;
    private long badTailReads;
    private long danglingEscapes;
    private long unknownEscapes;
    private long orphanEntries;
    private long badEvents;
    private long badModes;
    private long unattributedEntries;
    private long refusedDrains;
    private long rewoundEntries;
    private long skippedEntries;
    private long refusedEntries;
    private long staleSamples;
    private long staleEntries;
    private long ibsBlocks;
    /** IBS blocks decoded into the session's IBS columns. */
    private long ibsSamples;
    private long unreachedSamples;
    private boolean frozen;
    private long frozenPending;
    /**
     * Where Xen's head stood, and how many samples it had written, when a session began following
     * this ring (set by the thread that starts the session, then {@link #boundary} raised; taken by
     * the draining thread). The entries from the reader's tail up to that head are the earlier
     * session's (its books count them undrained): the next drain passes over them unread, so a
     * daemon held across two sessions never hands the new one samples Xen wrote for the old.
     */
    private int boundaryHead;
    private long boundaryWrote;
    private volatile boolean boundary;
    private long carriedEntries;

    /**
     * A ring of a guest's own profiler: its samples are user (0) or kernel (1), never xen, and
     * name the counters the guest programmed (numbers that need not be 0, 1, ...). Anything else
     * is counted as a bad mode or a bad event and skipped, as for Xenoprof's rings.
     *
     * @param counterNumbers the guest's counter numbers; empty = not known (no check)
     */
    static BufferReader guestRing(int owner, SharedBuffer buffer, int[] counterNumbers) {
        BufferReader r = new BufferReader(owner, buffer);
        r.maxMode = 1;
        if (counterNumbers.length > 0) {
            boolean[] allowed = new boolean[256];
            for (int c : counterNumbers) {
                if (c >= 0 && c < allowed.length) {
                    allowed[c] = true;
                }
            }
            r.allowedCounters = allowed;
        }
        return r;
    }

    BufferReader(int owner, SharedBuffer buffer) {
        this.owner = owner;
        this.buffer = buffer;
        this.vcpu = buffer.vcpuId();
        this.size = Math.max(0, buffer.size());
        this.eip = new long[size];
        this.mode = new byte[size];
        this.event = new byte[size];
        int t = buffer.tail();
        this.ownTail = t >= 0 && t < size ? t : 0;
        this.samplesSeen = xenWrote();
    }

    /**
     * Xen zeroed the ring's indices (the daemon's get_buffer or enable_virq): the reader starts at
     * slot 0, and Xen's samples so far are behind it. A trace still waiting for its sample is truncated.
     */
    void ringReset() {
        finishTraces();
        ownTail = 0;
        samplesSeen = xenWrote();
    }

    /**
     * A session starts following this ring (called by the thread that starts it): what Xen wrote
     * before now, and the reader has not read, belongs to the earlier session. With indices a guest
     * moved, the drain's own checks decide instead.
     */
    void sessionStarts() {
        if (frozen || size < 2) {
            return;
        }
        int head = buffer.head();
        if (head < 0 || head >= size) {
            return;
        }
        boundaryHead = head;
        boundaryWrote = xenWrote();
        boundary = true;
    }

    /** Entries an earlier session left in front of the reader's tail, or 0 (a read-only look). */
    private int carried(int headNow) {
        if (!boundary) {
            return 0;
        }
        int carried = distance(ownTail, boundaryHead);
        // A drain since the boundary already went past it: nothing of the earlier session is left.
        return carried <= distance(ownTail, headNow) ? carried : 0;
    }

    /** Entries passed over unread because an earlier session left them ({@link #sessionStarts()}). */
    long carriedEntries() {
        return carriedEntries;
    }

    /**
     * What is wrong with a domain's buffers of fewer than 2 slots, and what to do: one slot always
     * stays empty, so they hold no sample. Xen refuses every sample aimed at a buffer of 0 slots as
     * corrupted (event_head 0 is outside [0, 0)) and counts every one aimed at a buffer of 1 slot as
     * lost (the ring is always full): a configuration without slots, not a guest's doing.
     */
    static String tooFewSlotsText(int domid, int slots) {
        return "the buffers of domain " + domid + " have " + slots + " slot" + (slots == 1 ? "" : "s")
                + " (event_size " + slots + "), and one slot always stays empty, so they hold no sample: Xen "
                + (slots == 0 ? "refuses every sample aimed at them as corrupted (event_head 0 is outside [0, 0))"
                        : "counts every sample aimed at them as lost (the ring is always full)")
                + "; no guest wrote their indices. Xen sized them from the max_samples of the first get_buffer or"
                + " set_passive for domain " + domid + " and keeps them until the domain is destroyed, whatever"
                + " later calls ask for: load the host again (hp:load) and ask for at least 2 slots"
                + " (opcontrol --buffer-size=N, 16 by default; hp:op " + domid + " get_buffer N; hp:op <primary>"
                + " set_passive " + domid + " N)";
    }

    /** Samples Xen has written into the ring so far, by its own counters in the page. */
    private long xenWrote() {
        return buffer.userSamples() + buffer.kernelSamples() + buffer.xenSamples();
    }

    /** Entries from slot {@code from} up to (not including) slot {@code to}, going round the ring. */
    private int distance(int from, int to) {
        return to >= from ? to - from : size - from + to;
    }

    /**
     * Drains the ring into the session.
     *
     * @param view        how this ring's PCs are resolved; must be the view of {@link #owner} (a
     *                    drain through another domain's view is refused and counted)
     * @param collector   the session's batches (its lock held by the caller), or null without a
     *                    session (entries are consumed and counted as unattributed)
     * @param depth       Xen's backtrace depth now: how many return addresses may follow a sample
     * @param numCounters the session's counters ({@code num_events}); a sample naming another counter
     *                    index is corrupt. 0 when unknown (no check)
     * @param weights     by counter number, the events one overflow stands for (the counter's
     *                    count): each sample's weight; null gives every sample weight 1
     * @return entries read
     */
    int drain(SampleView view, BatchBuilder collector, int depth, int numCounters, long[] weights) {
        return drain(view, collector, depth, numCounters, weights, null);
    }

    /**
     * As {@link #drain(SampleView, BatchBuilder, int, int, long[])}, with the session's IBS columns:
     * each IBS block becomes one sample of every column of its kind, at the block's sampled address
     * (fetch: IbsFetchLinAd; op: IbsOpRip), in the block's mode. Null or empty columns leave the
     * blocks counted but undecoded.
     */
    int drain(SampleView view, BatchBuilder collector, int depth, int numCounters, long[] weights, IbsColumns ibs) {
        if (size < 2) {
            return 0;
        }
        if (view != null && view.domid() != owner) {
            refusedDrains++;
            return 0;
        }
        int head = buffer.head();
        if (head < 0 || head >= size) {
            badHeadReads++;
            return 0;
        }
        if (boundary) {
            passOverCarried(head);
        }
        int tail = buffer.tail();
        int d = Math.max(0, depth);
        long wrote = xenWrote();
        long fresh = Math.max(0, wrote - samplesSeen);
        int from = ownTail;
        int count = distance(ownTail, head);
        boolean copied = false;
        if (tail < 0 || tail >= size) {
            badTailReads++;
        } else if (tail != ownTail) {
            int moved = distance(ownTail, tail);
            if (moved <= count) {
                from = skipTo(tail, moved);
            } else {
                // Behind the reader's tail: moved back over slots it read, unless it was moved forward and
                // Xen has since gone round the ring past it. Then Xen wrote samples that are not between the
                // reader's tail and the head (after a rewind all are), and what Xen counts unread is intact.
                if (count > 0) {
                    buffer.copy(ownTail, count, eip, mode, event, 0);
                }
                if (sampleEntries(count, d) < fresh) {
                    from = skipTo(tail, moved);
                } else {
                    rewoundEntries += size - moved;
                    copied = true;
                }
            }
            count = distance(from, head);
        }
        if (count > 0 && !copied) {
            buffer.copy(from, count, eip, mode, event, 0);
        }
        int read = count;
        count = withoutStaleEntries(count);
        if (view == null || collector == null) {
            unattributedEntries += count;
            pendingEscapeMode = -1;
        } else {
            int sampleEntries = sampleEntries(count, d);
            if (sampleEntries > fresh) {
                // More samples than Xen wrote since the last drain: the head was moved over stale slots.
                refusedEntries += count;
                staleSamples += sampleEntries - fresh;
                unreachedSamples += fresh;
                finishTraces();
            } else {
                unreachedSamples += fresh - sampleEntries;
                decode(count, view, collector, d, numCounters, weights, ibs);
            }
        }
        samplesSeen = wrote;
        drainedEntries += read;
        if (read > 0) {
            // Marked before the tail is published: until then Xen writes none of these slots.
            buffer.fill(from, read, READ_EIP, READ_MODE, READ_EVENT);
        }
        ownTail = head;
        if (tail != head) {
            buffer.writeTail(head);
        }
        return read;
    }

    /** Moves the reader's tail past the entries an earlier session left, as if they had been read then. */
    private void passOverCarried(int head) {
        int n = carried(head);
        boundary = false;
        samplesSeen = Math.max(samplesSeen, boundaryWrote);
        if (n <= 0 || buffer.tail() != ownTail) {
            return;
        }
        finishTraces();
        buffer.fill(ownTail, n, READ_EIP, READ_MODE, READ_EVENT);
        ownTail = (ownTail + n) % size;
        buffer.writeTail(ownTail);
        carriedEntries += n;
    }

    /**
     * Drops the entries copied that the reader marked as read, and the zeros of slots never
     * written (Xen never writes {@code {0, user, 0}} as a sample or a return address: none is at
     * address 0; only inside an IBS block, which is kept whole), keeping the others in order;
     * returns how many are kept.
     */
    private int withoutStaleEntries(int count) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            int block = ibsBlock(i, count);
            if (block > 0) {
                // An IBS block holds register halves that are often 0, in user mode too: Xen wrote it whole.
                if (kept != i) {
                    System.arraycopy(eip, i, eip, kept, block);
                    System.arraycopy(mode, i, mode, kept, block);
                    System.arraycopy(event, i, event, kept, block);
                }
                kept += block;
                i += block - 1;
                continue;
            }
            long pc = eip[i];
            int m = mode[i];
            int ev = event[i];
            if ((pc == READ_EIP && (m & 0xFF) == READ_MODE) || (pc == 0 && m == 0 && ev == 0)) {
                continue;
            }
            if (kept != i) {
                eip[kept] = pc;
                mode[kept] = (byte) m;
                event[kept] = (byte) ev;
            }
            kept++;
        }
        staleEntries += count - kept;
        return kept;
    }

    /** The tail was moved forward by {@code moved} entries, to {@code tail}: they are skipped. */
    private int skipTo(int tail, int moved) {
        skippedEntries += moved;
        // The escape record's sample, if one was waiting for it, was among the skipped.
        finishTraces();
        return tail;
    }

    /**
     * The entries among the first {@code count} copied that {@link #decode} takes as samples (valid
     * or not): with a depth, the first entry after an escape record (TRACE_BEGIN) that is not an
     * escape itself; without, every entry that is not an escape value. Xen counts each of them once
     * in the page's sample counters, and nothing else.
     */
    private int sampleEntries(int count, int depth) {
        boolean escaped = pendingEscapeMode >= 0;
        int n = 0;
        for (int i = 0; i < count; i++) {
            int block = escaped ? 0 : ibsBlock(i, count);
            if (block > 0) {
                n++;
                i += block - 1;
            } else if (eip[i] == SharedBuffer.ESCAPE_CODE) {
                escaped |= (event[i] & 0xFF) == SharedBuffer.TRACE_BEGIN;
            } else if (escaped || depth == 0) {
                n++;
                escaped = false;
            }
        }
        return n;
    }

    private void decode(int count, SampleView view, BatchBuilder collector, int depth, int numCounters,
            long[] weights, IbsColumns ibs) {
        int i = 0;
        while (i < count) {
            long pc = eip[i];
            int m = mode[i] & 0xFF;
            int ev = event[i] & 0xFF;
            if (pc == SharedBuffer.ESCAPE_CODE) {
                i++;
                if (ev != SharedBuffer.TRACE_BEGIN) {
                    unknownEscapes++;
                    continue;
                }
                traceBegins++;
                if (pendingEscapeMode >= 0) {
                    // Xen wrote an escape but its sample did not follow: a trace with no sample.
                    danglingEscapes++;
                }
                pendingEscapeMode = m;
                continue;
            }
            int block = pendingEscapeMode >= 0 ? 0 : ibsBlock(i, count);
            if (block > 0) {
                ibsBlocks++;
                int[] columns = ibs == null ? null : ibs.of(pc);
                if (columns != null && columns.length > 0) {
                    ibsSample(i, columns, view, collector, weights);
                }
                i += block;
                continue;
            }
            if (pendingEscapeMode >= 0) {
                int escapeMode = pendingEscapeMode;
                pendingEscapeMode = -1;
                i = traceSample(i, count, escapeMode, view, collector, depth, numCounters, weights);
                continue;
            }
            if (depth > 0) {
                // With a depth Xen starts every sample with an escape: this is a stray trace entry.
                orphanEntries++;
                i++;
                continue;
            }
            if (!validSample(m, ev, numCounters)) {
                i++;
                continue;
            }
            begin(collector, m, ev, pc, view.resolveSample(pc, m), weights);
            collector.end();
            samples++;
            i++;
        }
    }

    /** The IBS block at {@code i} as one sample of each of {@code columns}, at the address Xen logged after the marker. */
    private void ibsSample(int i, int[] columns, SampleView view, BatchBuilder collector, long[] weights) {
        int m = mode[i] & 0xFF;
        if (m > maxMode) {
            badModes++;
            return;
        }
        long address = eip[i + 1];
        m = view.ibsMode(address, m);
        long resolved = view.resolveSample(address, m);
        for (int column : columns) {
            begin(collector, m, column, address, resolved, weights);
            collector.end();
        }
        ibsSamples++;
    }

    /** The sample at {@code i} of a trace begun in {@code escapeMode}, and its callers; returns the next index. */
    private int traceSample(int i, int count, int escapeMode, SampleView view, BatchBuilder collector, int depth,
            int numCounters, long[] weights) {
        long pc = eip[i];
        int m = mode[i] & 0xFF;
        int ev = event[i] & 0xFF;
        boolean ok = validSample(m, ev, numCounters);
        if (ok && m != escapeMode) {
            badModes++;
            ok = false;
        }
        i++;
        int callers = 0;
        if (ok) {
            begin(collector, m, ev, pc, view.resolveSample(pc, m), weights);
            samples++;
        }
        while (i < count && callers < depth && eip[i] != SharedBuffer.ESCAPE_CODE && event[i] == 0
                && (mode[i] & 0xFF) == m) {
            if (ok) {
                long caller = view.resolveCaller(eip[i], m);
                collector.caller(eip[i], DomainView.image(caller), DomainView.symbol(caller), m);
                callerEntries++;
            } else {
                // Return addresses of a sample that could not be decoded belong to nobody.
                orphanEntries++;
            }
            callers++;
            i++;
        }
        if (ok) {
            collector.end();
        }
        return i;
    }

    /**
     * By counter number (the byte a buffer entry carries), the events one overflow stands for: each
     * configured counter's count, 1 for a number no counter has (such a sample is refused anyway
     * when the number of counters is known).
     */
    static long[] weights(java.util.List<org.hyperprof.api.pmu.CounterConfig> counters) {
        long[] w = new long[256];
        java.util.Arrays.fill(w, 1);
        for (org.hyperprof.api.pmu.CounterConfig c : counters) {
            w[c.counter() & 0xFF] = Math.max(1, c.count());
        }
        return w;
    }

    /**
     * Starts a sample of this ring's domain and vCPU. A Xenoprof buffer entry carries no time, no
     * physical CPU and no process: those columns are unknown.
     */
    private void begin(BatchBuilder collector, int m, int ev, long pc, long resolved, long[] weights) {
        collector.begin(owner, vcpu, m, ev, pc, DomainView.image(resolved), DomainView.symbol(resolved),
                weights == null ? 1 : weights[ev & 0xFF], SampleBatch.UNKNOWN, SampleBatch.UNKNOWN, SampleBatch.UNKNOWN,
                SampleBatch.UNKNOWN);
    }

    /**
     * The entries of the IBS block that starts at {@code i} of the copied entries, or 0 when none
     * does: its marker, then as many entries as the kind has, all with event 0 and one mode.
     */
    private int ibsBlock(int i, int count) {
        long pc = eip[i];
        int n = pc == IBS_FETCH_CODE ? IBS_FETCH_ENTRIES : pc == IBS_OP_CODE ? IBS_OP_ENTRIES : 0;
        if (n == 0 || i + n > count) {
            return 0;
        }
        byte m = mode[i];
        for (int k = i; k < i + n; k++) {
            if (event[k] != 0 || mode[k] != m || eip[k] == SharedBuffer.ESCAPE_CODE) {
                return 0;
            }
        }
        return n;
    }

    private boolean validSample(int m, int ev, int numCounters) {
        if (m > maxMode) {
            badModes++;
            return false;
        }
        boolean[] allowed = allowedCounters;
        if (allowed != null) {
            if (!allowed[ev & 0xFF]) {
                badEvents++;
                return false;
            }
            return true;
        }
        if (numCounters > 0 && ev >= numCounters) {
            badEvents++;
            return false;
        }
        return true;
    }

    /**
     * The reader is let go (its daemon shut down, or the session's last drain): an escape record
     * still waiting for its sample is a truncated trace.
     */
    void finishTraces() {
        if (pendingEscapeMode >= 0) {
            danglingEscapes++;
            pendingEscapeMode = -1;
        }
    }

    /** Entries between tail and head now, or 0 when either index is out of range; frozen once frozen. */
    int pending() {
        if (frozen) {
            return (int) frozenPending;
        }
        int head = buffer.head();
        return Math.max(0, livePending() - (head >= 0 && head < size ? carried(head) : 0));
    }

    /** What the next drain would read: from the reader's own tail, or from a tail moved forward. */
    private int livePending() {
        if (size < 2) {
            return 0;
        }
        int head = buffer.head();
        int tail = buffer.tail();
        if (head < 0 || head >= size || tail < 0 || tail >= size) {
            return 0;
        }
        int own = distance(ownTail, head);
        int moved = distance(ownTail, tail);
        return moved <= own ? own - moved : own;
    }

    /** Whether event_head or event_tail is out of range now (a guest wrote garbage into the page). */
    boolean indicesCorrupt() {
        if (size < 2) {
            return false;
        }
        int head = buffer.head();
        int tail = buffer.tail();
        return head < 0 || head >= size || tail < 0 || tail >= size;
    }

    /**
     * Fixes what this reader left unread, before Xen resets the ring's indices (a new get_buffer or
     * enable_virq) or frees it (its domain was destroyed): from then on {@link #pending()} answers
     * that number. Idempotent.
     */
    void freeze() {
        if (!frozen) {
            frozenPending = livePending();
            frozen = true;
            finishTraces();
        }
    }

    boolean frozen() {
        return frozen;
    }

    long drainedEntries() {
        return drainedEntries;
    }

    long samples() {
        return samples;
    }

    long callerEntries() {
        return callerEntries;
    }

    /** Escape records {@code {~0, mode, TRACE_BEGIN}} read (each begins a trace, with or without its sample). */
    long traceBegins() {
        return traceBegins;
    }

    long badHeadReads() {
        return badHeadReads;
    }

    long badTailReads() {
        return badTailReads;
    }

    long danglingEscapes() {
        return danglingEscapes;
    }

    long unknownEscapes() {
        return unknownEscapes;
    }

    long orphanEntries() {
        return orphanEntries;
    }

    long badEvents() {
        return badEvents;
    }

    long badModes() {
        return badModes;
    }

    long unattributedEntries() {
        return unattributedEntries;
    }

    /** Drains refused because they went through another domain's view (an isolation guard; always 0). */
    long refusedDrains() {
        return refusedDrains;
    }

    /** Slots a tail moved back made unread again in Xen's eyes; the reader had read them and did not again. */
    long rewoundEntries() {
        return rewoundEntries;
    }

    /** Unread entries a tail moved forward skipped: not read. */
    long skippedEntries() {
        return skippedEntries;
    }

    /** Entries of drains that showed more samples than Xen wrote (a head moved over stale slots): not delivered. */
    long refusedEntries() {
        return refusedEntries;
    }

    /** AMD IBS blocks read: each counts as one sample in Xen's books and is not decoded into reports. */
    long ibsSamples() {
        return ibsSamples;
    }

    long ibsBlocks() {
        return ibsBlocks;
    }

    /** Slots read before (marked) or never written that a head moved forward showed again: never decoded. */
    long staleEntries() {
        return staleEntries;
    }

    /** Samples those refused drains showed beyond what Xen wrote: stale entries, never delivered. */
    long staleSamples() {
        return staleSamples;
    }

    /** Samples Xen wrote that the reader could not deliver because the indices had been moved (invalid). */
    long unreachedSamples() {
        return unreachedSamples;
    }

    /** Everything decoding had to skip, as one snapshot. */
    DecodeCounts decodeCounts() {
        return new DecodeCounts(danglingEscapes, unknownEscapes, orphanEntries, badEvents, badModes, badHeadReads,
                badTailReads, refusedDrains, rewoundEntries, skippedEntries, refusedEntries, staleSamples,
                staleEntries, ibsBlocks, unreachedSamples, ibsSamples);
    }

    /** What a reader skipped or refused, by kind. */
    record DecodeCounts(long danglingEscapes, long unknownEscapes, long orphanEntries, long badEvents, long badModes,
            long badHeadReads, long badTailReads, long refusedDrains, long rewoundEntries, long skippedEntries,
            long refusedEntries, long staleSamples, long staleEntries, long ibsBlocks, long unreachedSamples,
            long ibsSamples) {

        static final DecodeCounts ZERO = new DecodeCounts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        DecodeCounts plus(DecodeCounts o) {
            return new DecodeCounts(danglingEscapes + o.danglingEscapes, unknownEscapes + o.unknownEscapes,
                    orphanEntries + o.orphanEntries, badEvents + o.badEvents, badModes + o.badModes,
                    badHeadReads + o.badHeadReads, badTailReads + o.badTailReads, refusedDrains + o.refusedDrains,
                    rewoundEntries + o.rewoundEntries, skippedEntries + o.skippedEntries,
                    refusedEntries + o.refusedEntries, staleSamples + o.staleSamples, staleEntries + o.staleEntries,
                    ibsBlocks + o.ibsBlocks, unreachedSamples + o.unreachedSamples, ibsSamples + o.ibsSamples);
        }

        DecodeCounts minus(DecodeCounts o) {
            return new DecodeCounts(danglingEscapes - o.danglingEscapes, unknownEscapes - o.unknownEscapes,
                    orphanEntries - o.orphanEntries, badEvents - o.badEvents, badModes - o.badModes,
                    badHeadReads - o.badHeadReads, badTailReads - o.badTailReads, refusedDrains - o.refusedDrains,
                    rewoundEntries - o.rewoundEntries, skippedEntries - o.skippedEntries,
                    refusedEntries - o.refusedEntries, staleSamples - o.staleSamples, staleEntries - o.staleEntries,
                    ibsBlocks - o.ibsBlocks, unreachedSamples - o.unreachedSamples, ibsSamples - o.ibsSamples);
        }

        boolean isZero() {
            return equals(ZERO);
        }

        /** What decoding skipped, in words; empty when nothing. */
        String decodingText() {
            StringBuilder b = new StringBuilder();
            part(b, danglingEscapes, "escape record(s) without a sample (truncated call traces)");
            part(b, unknownEscapes, "escape value(s) with an unknown event code");
            part(b, orphanEntries, "return address(es) outside a call trace or beyond the depth");
            part(b, badEvents, "sample(s) naming a counter the session does not have");
            part(b, badModes, "entr(ies) with a mode other than user, kernel or xen, or not the mode of their trace");
            part(b, refusedDrains, "drain(s) through another domain's view refused");
            return b.toString();
        }

        /** The hostile-index part in words; empty when nothing. */
        String indexText() {
            StringBuilder b = new StringBuilder();
            part(b, badHeadReads, "out-of-range event_head read(s) ignored");
            part(b, badTailReads, "out-of-range event_tail read(s) replaced by the daemon's own tail");
            part(b, skippedEntries, "unread entr(ies) skipped because event_tail was moved forward over them (Xen"
                    + " counts those slots free)");
            part(b, rewoundEntries, "entr(ies) the daemon had already read that event_tail was moved back over: not"
                    + " read again (not in the books)");
            if (refusedEntries > 0) {
                part(b, refusedEntries, "entr(ies) not delivered because they held " + staleSamples + " sample(s)"
                        + " more than Xen wrote since the last read (event_head was moved over stale slots, read"
                        + " before or never written; the stale ones are not in the books)");
            }
            part(b, staleEntries, "slot(s) read before or never written that event_head was moved forward over:"
                    + " skipped, not read again (not in the books)");
            part(b, unreachedSamples, "sample(s) Xen wrote that the daemon could not read because of the moved"
                    + " indices (counted invalid)");
            return b.toString();
        }

        private static void part(StringBuilder b, long n, String what) {
            if (n > 0) {
                if (b.length() > 0) {
                    b.append(", ");
                }
                b.append(n).append(' ').append(what);
            }
        }
    }
}
