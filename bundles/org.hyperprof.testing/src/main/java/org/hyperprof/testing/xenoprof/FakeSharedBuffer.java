package org.hyperprof.testing.xenoprof;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.xenoprof.SharedBuffer;

/**
 * A vCPU ring with Xen's producer rules (one slot always empty, newest sample lost when full), for
 * tests of what consumes it. Counts tail writes and head reads; a {@link #logging} ring also keeps
 * every index write as text (off by default: the profiler's hot-path tests drain it allocation-free).
 */
public final class FakeSharedBuffer implements SharedBuffer {
    private final int vcpuId;
    private final int size;
    private final long[] eip;
    private final int[] mode;
    private final int[] event;
    private int head;
    private int tail;
    private final List<String> writes;
    public long xen;
    public long kernel;
    public long user;
    public long lost;
    public int tailWrites;
    public int headReads;

    public FakeSharedBuffer(int vcpuId, int size) {
        this(vcpuId, size, false);
    }

    private FakeSharedBuffer(int vcpuId, int size, boolean logging) {
        this.vcpuId = vcpuId;
        this.size = size;
        this.eip = new long[size];
        this.mode = new int[size];
        this.event = new int[size];
        this.writes = logging ? new ArrayList<>() : null;
    }

    /** A ring at {@code index} (head and tail) that logs each index write, e.g. {@code "tail 16"}. */
    public static FakeSharedBuffer logging(int vcpuId, int size, int index) {
        FakeSharedBuffer b = new FakeSharedBuffer(vcpuId, size, true);
        b.position(index);
        return b;
    }

    /** The index writes of a {@link #logging} ring, in order, values unsigned. */
    public List<String> writes() {
        if (writes == null) {
            throw new IllegalStateException("this ring does not log its writes: make it with FakeSharedBuffer.logging");
        }
        return writes;
    }

    /** Xen's xenoprof_add_sample: false (and lost counted) when the ring is full. */
    public boolean add(long pc, int m, int ev) {
        int free = (tail > head ? 0 : size) + tail - head - 1;
        if (free <= 0) {
            lost++;
            return false;
        }
        eip[head] = pc;
        mode[head] = m;
        event[head] = ev;
        head = head + 1 == size ? 0 : head + 1;
        return true;
    }

    /** A sample as Xen logs it: the entry plus the per-mode counter. */
    public boolean sample(long pc, int m, int counter) {
        if (!add(pc, m, counter)) {
            return false;
        }
        if (m == 0) {
            user++;
        } else if (m == 1) {
            kernel++;
        } else {
            xen++;
        }
        return true;
    }

    /** A call trace as Xen logs it with a backtrace depth: escape record, sample, return addresses. */
    public void trace(long pc, int m, int counter, long... callers) {
        add(ESCAPE_CODE, m, TRACE_BEGIN);
        sample(pc, m, counter);
        for (long c : callers) {
            add(c, m, 0);
        }
    }

    /** The host restarts a guest profiler's ring: what it held is discarded. Returns how many entries. */
    public int discard() {
        int n = head >= tail ? head - tail : size - tail + head;
        tail = head;
        return n;
    }

    /** Places both indices (as if this many entries had been written and read before). */
    public void position(int index) {
        head = index;
        tail = index;
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
        headReads++;
        return head;
    }

    @Override
    public int tail() {
        return tail;
    }

    @Override
    public void writeTail(int t) {
        tailWrites++;
        if (writes != null) {
            writes.add("tail " + Integer.toUnsignedString(t));
        }
        tail = t;
    }

    @Override
    public void writeHead(int h) {
        if (writes != null) {
            writes.add("head " + Integer.toUnsignedString(h));
        }
        head = h;
    }

    @Override
    public void fill(int from, int count, long e, int m, int ev) {
        for (int i = 0, slot = from; i < count; i++, slot = slot + 1 == size ? 0 : slot + 1) {
            eip[slot] = e;
            mode[slot] = m;
            event[slot] = ev;
        }
    }

    @Override
    public long eip(int slot) {
        return eip[slot];
    }

    @Override
    public int mode(int slot) {
        return mode[slot];
    }

    @Override
    public int event(int slot) {
        return event[slot];
    }

    @Override
    public void copy(int from, int count, long[] e, byte[] m, byte[] ev, int offset) {
        int s = from;
        for (int i = 0; i < count; i++) {
            e[offset + i] = eip[s];
            m[offset + i] = (byte) mode[s];
            ev[offset + i] = (byte) event[s];
            s = s + 1 == size ? 0 : s + 1;
        }
    }

    @Override
    public long xenSamples() {
        return xen;
    }

    @Override
    public long kernelSamples() {
        return kernel;
    }

    @Override
    public long userSamples() {
        return user;
    }

    @Override
    public long lostSamples() {
        return lost;
    }
}
