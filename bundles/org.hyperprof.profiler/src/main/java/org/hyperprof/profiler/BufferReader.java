package org.hyperprof.profiler;

import org.hyperprof.api.xenoprof.SharedBuffer;

/**
 * The daemon's side of one vCPU's shared ring. A drain reads {@code event_head} once, validates
 * it, bulk-copies the entries between tail and head into preallocated primitive arrays, turns
 * them into samples (escape records start call traces), and publishes the new tail once.
 *
 * <p>The page is writable by the guest, so the indices read from it are untrusted: a head or tail
 * outside {@code [0, size)} is never used; it is counted, and the drain does nothing else (a
 * garbage tail is reset to the head so the next drain starts clean). No exception, no allocation.
 */
final class BufferReader {
    final SharedBuffer buffer;
    final int vcpu;
    /** {@code event_size} as read once when the buffer was mapped. */
    final int size;

    private final long[] eip;
    private final byte[] mode;
    private final byte[] event;

    private long drainedEntries;
    private long samples;
    private long callerEntries;
    private long badHeadReads;
    private long badTailReads;
    private long danglingEscapes;
    private long unknownEscapes;
    private long unattributedEntries;

    BufferReader(SharedBuffer buffer) {
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
     * @param domid      the domain whose buffer this is
     * @param view       the domain's view of the session, or null when no session runs (entries are
     *                   consumed and counted as unattributed entries)
     * @param collector  the session's batches (its lock held by the caller), or null without a session
     * @param maxCallers how many return addresses may follow a trace's sample (Xen's backtrace depth;
     *                   {@link Integer#MAX_VALUE} when not known)
     * @return entries read
     */
    int drain(int domid, DomainView view, BatchCollector collector, int maxCallers) {
        if (size < 2) {
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
        } else {
            parse(domid, count, view, collector, maxCallers);
        }
        drainedEntries += count;
        buffer.writeTail(head);
        return count;
    }

    /**
     * Turns {@code count} copied entries into samples. An escape record {@code {~0, mode, 1}}
     * starts a call trace: the next entry is the sample, and the {@code event == 0} entries after
     * it (at most {@code maxCallers}, up to the next escape or sample) are its callers.
     */
    private void parse(int domid, int count, DomainView view, BatchCollector collector, int maxCallers) {
        int i = 0;
        while (i < count) {
            long pc = eip[i];
            int ev = event[i] & 0xFF;
            if (pc == SharedBuffer.ESCAPE_CODE) {
                if (ev != SharedBuffer.TRACE_BEGIN) {
                    unknownEscapes++;
                    i++;
                    continue;
                }
                if (i + 1 >= count || eip[i + 1] == SharedBuffer.ESCAPE_CODE) {
                    // Xen wrote the escape but the sample did not fit (ring full): a trace with no sample.
                    danglingEscapes++;
                    i++;
                    continue;
                }
                i++;
                int m = mode[i] & 0xFF;
                collector.beginSample(domid, vcpu, m, event[i] & 0xFF, eip[i], view.resolveSample(eip[i], m));
                samples++;
                i++;
                int callers = 0;
                while (i < count && callers < maxCallers && event[i] == 0 && eip[i] != SharedBuffer.ESCAPE_CODE) {
                    collector.addCaller(eip[i], view.resolve(eip[i]));
                    callers++;
                    i++;
                }
                callerEntries += callers;
                collector.endSample();
            } else {
                int m = mode[i] & 0xFF;
                collector.beginSample(domid, vcpu, m, ev, pc, view.resolveSample(pc, m));
                collector.endSample();
                samples++;
                i++;
            }
        }
    }

    /** Entries between tail and head now, or 0 when either index is out of range. */
    int pending() {
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

    long drainedEntries() {
        return drainedEntries;
    }

    long samples() {
        return samples;
    }

    long callerEntries() {
        return callerEntries;
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

    long unattributedEntries() {
        return unattributedEntries;
    }
}
