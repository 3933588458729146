package org.hyperprof.profiler;

import org.hyperprof.api.xenoprof.SharedBuffer;

/**
 * The daemon's side of one vCPU's shared ring. A drain reads {@code event_head} once, validates
 * it, bulk-copies the entries between tail and head into preallocated primitive arrays, decodes
 * them into samples, and publishes the new tail once.
 *
 * <p>The page is writable by the guest, so the indices read from it are untrusted: a head or tail
 * outside {@code [0, size)} is never used; it is counted, and the drain does nothing else (a
 * garbage tail is reset to the head so the next drain starts clean). No exception, no allocation.
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

    /** Mode of an escape record that ended the last drain and still waits for its sample; -1 if none. */
    private int pendingEscapeMode = -1;

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
    private boolean frozen;
    private long frozenPending;

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
     * @return entries read
     */
    int drain(SampleView view, BatchCollector collector, int depth, int numCounters) {
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
        int tail = buffer.tail();
        if (tail < 0 || tail >= size) {
            badTailReads++;
            buffer.writeTail(head);
            return 0;
        }
        if (head == tail) {
            return 0;
        }
        int count = head > tail ? head - tail : size - tail + head;
        buffer.copy(tail, count, eip, mode, event, 0);
        if (view == null || collector == null) {
            unattributedEntries += count;
            pendingEscapeMode = -1;
        } else {
            decode(count, view, collector, Math.max(0, depth), numCounters);
        }
        drainedEntries += count;
        buffer.writeTail(head);
        return count;
    }

    private void decode(int count, SampleView view, BatchCollector collector, int depth, int numCounters) {
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
            if (pendingEscapeMode >= 0) {
                int escapeMode = pendingEscapeMode;
                pendingEscapeMode = -1;
                i = traceSample(i, count, escapeMode, view, collector, depth, numCounters);
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
            collector.beginSample(owner, vcpu, m, ev, pc, view.resolveSample(pc, m));
            collector.endSample();
            samples++;
            i++;
        }
    }

    /** The sample at {@code i} of a trace begun in {@code escapeMode}, and its callers; returns the next index. */
    private int traceSample(int i, int count, int escapeMode, SampleView view, BatchCollector collector, int depth,
            int numCounters) {
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
            collector.beginSample(owner, vcpu, m, ev, pc, view.resolveSample(pc, m));
            samples++;
        }
        while (i < count && callers < depth && eip[i] != SharedBuffer.ESCAPE_CODE && event[i] == 0
                && (mode[i] & 0xFF) == m) {
            if (ok) {
                collector.addCaller(eip[i], view.resolveCaller(eip[i], m));
                callerEntries++;
            } else {
                // Return addresses of a sample that could not be decoded belong to nobody.
                orphanEntries++;
            }
            callers++;
            i++;
        }
        if (ok) {
            collector.endSample();
        }
        return i;
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
        return livePending();
    }

    private int livePending() {
        if (size < 2) {
            return 0;
        }
        int head = buffer.head();
        int tail = buffer.tail();
        if (head < 0 || head >= size || tail < 0 || tail >= size) {
            return 0;
        }
        return head >= tail ? head - tail : size - tail + head;
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

    /** Everything decoding had to skip, as one snapshot. */
    DecodeCounts decodeCounts() {
        return new DecodeCounts(danglingEscapes, unknownEscapes, orphanEntries, badEvents, badModes, badHeadReads,
                badTailReads, refusedDrains);
    }

    /** What a reader skipped or refused, by kind. */
    record DecodeCounts(long danglingEscapes, long unknownEscapes, long orphanEntries, long badEvents, long badModes,
            long badHeadReads, long badTailReads, long refusedDrains) {

        static final DecodeCounts ZERO = new DecodeCounts(0, 0, 0, 0, 0, 0, 0, 0);

        DecodeCounts plus(DecodeCounts o) {
            return new DecodeCounts(danglingEscapes + o.danglingEscapes, unknownEscapes + o.unknownEscapes,
                    orphanEntries + o.orphanEntries, badEvents + o.badEvents, badModes + o.badModes,
                    badHeadReads + o.badHeadReads, badTailReads + o.badTailReads, refusedDrains + o.refusedDrains);
        }

        DecodeCounts minus(DecodeCounts o) {
            return new DecodeCounts(danglingEscapes - o.danglingEscapes, unknownEscapes - o.unknownEscapes,
                    orphanEntries - o.orphanEntries, badEvents - o.badEvents, badModes - o.badModes,
                    badHeadReads - o.badHeadReads, badTailReads - o.badTailReads, refusedDrains - o.refusedDrains);
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
            part(b, badTailReads, "out-of-range event_tail read(s) reset to the head");
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
