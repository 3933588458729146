package org.hyperprof.hypervisor.xenoprof;

import org.hyperprof.api.xenoprof.SharedBuffer;

/**
 * One vCPU's {@code xenoprof_buf}: the header fields and the {@code event_log} ring that Xen
 * shares writable with a guest.
 *
 * <p>Xen is the only producer and writes the entries and {@code event_head}; the consumer (the
 * owning domain, or the primary for a passive domain) writes {@code event_tail}. Because the page
 * is writable by the guest, the producer side reads head and tail exactly once per operation and
 * validates them before use (XSA-313). One slot always stays empty, so {@code head == tail}
 * means empty and the capacity is {@code size - 1}; a full ring drops the newest entry.
 *
 * <p>The producer methods ({@link #add}, {@link #countSampleMode}, {@link #countLost},
 * {@link #resetIndices}) run on the NMI path: they never allocate.
 */
public final class XenoprofBuffer implements SharedBuffer {
    /** {@code sizeof(struct xenoprof_buf)} natively: a 48-byte header plus one 16-byte entry. */
    public static final int BUF_BYTES = 64;
    /** {@code sizeof(struct event_log)} natively. */
    public static final int EVENT_LOG_BYTES = 16;

    /** {@link #add} result: the entry was written and head advanced. */
    public static final int ADDED = 0;
    /** {@link #add} result: no free slot, nothing written. */
    public static final int FULL = 1;
    /** {@link #add} result: head or tail was outside {@code [0, size)}, nothing written. */
    public static final int CORRUPTED = 2;

    private final int vcpuId;
    private final int size;
    private final long[] eip;
    private final byte[] mode;
    private final byte[] event;

    // The shared indices: volatile so that an entry written before head is published is visible
    // to a consumer that reads head, and a tail written by a consumer thread is seen by Xen.
    private volatile int head;
    private volatile int tail;

    // Written only by the producer (one vCPU runs on one pCPU at a time); read by consumers.
    private volatile long xenSamples;
    private volatile long kernelSamples;
    private volatile long userSamples;
    private volatile long lostSamples;
    private volatile long corruptedSamples;
    private volatile long traceEntriesLost;

    /**
     * A zeroed buffer (XSA-313: nothing stale leaks to the guest).
     *
     * @param vcpuId the vCPU it belongs to ({@code vcpu_id})
     * @param size   {@code event_size}, the number of slots; 0 is legal (Xen accepts a
     *               {@code max_samples} of 0, and every add then counts as corrupted)
     */
    public XenoprofBuffer(int vcpuId, int size) {
        if (size < 0) {
            throw new IllegalArgumentException("event_size must be >= 0 slots, got " + size);
        }
        this.vcpuId = vcpuId;
        this.size = size;
        this.eip = new long[size];
        this.mode = new byte[size];
        this.event = new byte[size];
    }

    /** Xen's {@code xenoprof_buf_space}: free slots for a head and tail read once by the caller. */
    public static int space(int head, int tail, int size) {
        return (tail > head ? 0 : size) + tail - head - 1;
    }

    /**
     * Free slots as Xen computes them before a call trace: head and tail are read once and used
     * raw, without the range check that {@link #add} makes.
     */
    public int freeSlots() {
        int h = head;
        int t = tail;
        return space(h, t, size);
    }

    /**
     * Xen's {@code xenoprof_add_sample}: reads head and tail once; if either is out of range
     * nothing is written ({@link #CORRUPTED}); if there is no free slot nothing is written
     * ({@link #FULL}); otherwise writes the entry at head and publishes the advanced head. Lost
     * and corrupted counters are the caller's business: the same add serves samples, escape
     * records and trace entries, which are accounted differently.
     */
    public int add(long entryEip, int entryMode, int entryEvent) {
        int h = head;
        int t = tail;
        if (h < 0 || h >= size || t < 0 || t >= size) {
            return CORRUPTED;
        }
        if (space(h, t, size) <= 0) {
            return FULL;
        }
        eip[h] = entryEip;
        mode[h] = (byte) entryMode;
        event[h] = (byte) entryEvent;
        int next = h + 1;
        head = next >= size ? 0 : next;
        return ADDED;
    }

    /**
     * A block of {@code n} entries (an AMD IBS block), each {@code {eips[i], mode, event}}, written
     * whole or not at all: head and tail are read once; out of range is {@link #CORRUPTED}; fewer
     * than {@code n} free slots is {@link #FULL}; otherwise the entries are written and the advanced
     * head published once.
     */
    public int addBlock(long[] eips, int n, int entryMode, int entryEvent) {
        int h = head;
        int t = tail;
        if (h < 0 || h >= size || t < 0 || t >= size) {
            return CORRUPTED;
        }
        if (space(h, t, size) < n) {
            return FULL;
        }
        for (int i = 0; i < n; i++) {
            eip[h] = eips[i];
            mode[h] = (byte) entryMode;
            event[h] = (byte) entryEvent;
            h = h + 1 >= size ? 0 : h + 1;
        }
        head = h;
        return ADDED;
    }

    /** A sample (not a trace entry) was added: bump {@code user/kernel/xen_samples} by its mode. */
    public void countSampleMode(int sampleMode) {
        if (sampleMode == 0) {
            userSamples++;
        } else if (sampleMode == 1) {
            kernelSamples++;
        } else {
            xenSamples++;
        }
    }

    /** A sample found the ring full: {@code lost_samples++}. */
    public void countLost() {
        lostSamples++;
    }

    /**
     * A sample aimed at this buffer found head or tail out of range: nothing was written. Xen
     * counts these only globally ({@code corrupted_buffer_samples}); kept per buffer here so that
     * every sample aimed at a buffer is accounted to it: written ({@code user + kernel + xen}),
     * {@code lost} or corrupted.
     */
    public void countCorrupted() {
        corruptedSamples++;
    }

    /** Samples dropped because this buffer's head or tail was out of range (see {@link #countCorrupted}). */
    @Override
    public long corruptedSamples() {
        return corruptedSamples;
    }

    /**
     * Entries between tail and head as the indices stand now: what a consumer has not read yet,
     * or 0 when an index is out of range (a consumer cannot tell what is there).
     */
    public int unread() {
        int h = head;
        int t = tail;
        if (h < 0 || h >= size || t < 0 || t >= size) {
            return 0;
        }
        return h >= t ? h - t : size - t + h;
    }

    /** A call-trace entry found the ring full (the trace was cut short; the sample itself was kept). */
    public void countTraceEntryLost() {
        traceEntriesLost++;
    }

    /** Xen's {@code xenoprof_reset_buf}: head and tail back to 0 (get_buffer, enable_virq). */
    public void resetIndices() {
        head = 0;
        tail = 0;
    }

    /** Call-trace entries that found the ring full during a walk (not part of {@link #lostSamples()}). */
    public long traceEntriesLost() {
        return traceEntriesLost;
    }

    /** Size in bytes of one vCPU's buffer in the native layout for {@code maxSamples} slots. */
    public static int bufferBytes(int maxSamples) {
        return BUF_BYTES + (maxSamples - 1) * EVENT_LOG_BYTES;
    }

    @Override
    public int vcpuId() {
        return vcpuId;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int head() {
        return head;
    }

    @Override
    public int tail() {
        return tail;
    }

    @Override
    public void writeTail(int newTail) {
        tail = newTail;
    }

    @Override
    public void writeHead(int newHead) {
        head = newHead;
    }

    @Override
    public void fill(int from, int count, long entryEip, int entryMode, int entryEvent) {
        checkSlot(from);
        if (count < 0 || count > size) {
            throw new IndexOutOfBoundsException("fill of " + count + " slots: expected 0.." + size
                    + " (the ring of vcpu " + vcpuId + " has " + size + " slots)");
        }
        int first = Math.min(count, size - from);
        java.util.Arrays.fill(eip, from, from + first, entryEip);
        java.util.Arrays.fill(mode, from, from + first, (byte) entryMode);
        java.util.Arrays.fill(event, from, from + first, (byte) entryEvent);
        int rest = count - first;
        java.util.Arrays.fill(eip, 0, rest, entryEip);
        java.util.Arrays.fill(mode, 0, rest, (byte) entryMode);
        java.util.Arrays.fill(event, 0, rest, (byte) entryEvent);
    }

    @Override
    public long eip(int slot) {
        checkSlot(slot);
        return eip[slot];
    }

    @Override
    public int mode(int slot) {
        checkSlot(slot);
        return mode[slot] & 0xFF;
    }

    @Override
    public int event(int slot) {
        checkSlot(slot);
        return event[slot] & 0xFF;
    }

    @Override
    public void copy(int from, int count, long[] eipOut, byte[] modeOut, byte[] eventOut, int offset) {
        if (from < 0 || from >= size) {
            throw new IllegalArgumentException("copy from slot " + from + ": expected a slot in [0, " + size
                    + ") of the buffer of vcpu " + vcpuId);
        }
        if (count < 0 || count > size) {
            throw new IllegalArgumentException("copy of " + count + " entries: expected 0.." + size
                    + " (the ring of vcpu " + vcpuId + " has " + size + " slots)");
        }
        if (offset < 0 || offset + count > eipOut.length || offset + count > modeOut.length
                || offset + count > eventOut.length) {
            throw new IllegalArgumentException("copy of " + count + " entries at offset " + offset
                    + " does not fit the destination arrays (lengths " + eipOut.length + ", " + modeOut.length
                    + ", " + eventOut.length + ")");
        }
        int first = Math.min(count, size - from);
        System.arraycopy(eip, from, eipOut, offset, first);
        System.arraycopy(mode, from, modeOut, offset, first);
        System.arraycopy(event, from, eventOut, offset, first);
        int rest = count - first;
        if (rest > 0) {
            System.arraycopy(eip, 0, eipOut, offset + first, rest);
            System.arraycopy(mode, 0, modeOut, offset + first, rest);
            System.arraycopy(event, 0, eventOut, offset + first, rest);
        }
    }

    @Override
    public long xenSamples() {
        return xenSamples;
    }

    @Override
    public long kernelSamples() {
        return kernelSamples;
    }

    @Override
    public long userSamples() {
        return userSamples;
    }

    @Override
    public long lostSamples() {
        return lostSamples;
    }

    private void checkSlot(int slot) {
        if (slot < 0 || slot >= size) {
            throw new IndexOutOfBoundsException("slot " + slot + " is outside the ring of vcpu " + vcpuId
                    + " (slots 0.." + (size - 1) + ")");
        }
    }

    @Override
    public String toString() {
        return "xenoprof_buf[vcpu " + vcpuId + ", size " + size + ", head " + head + ", tail " + tail + ", lost "
                + lostSamples + ", corrupted " + corruptedSamples + "]";
    }
}
