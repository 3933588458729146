package org.hyperprof.profiler;

import org.hyperprof.api.xenoprof.SharedBuffer;

/** A vCPU ring with Xen's producer rules (one slot always empty, newest sample lost when full). */
final class FakeSharedBuffer implements SharedBuffer {
    private final int vcpuId;
    private final int size;
    private final long[] eip;
    private final int[] mode;
    private final int[] event;
    private int head;
    private int tail;
    long xen;
    long kernel;
    long user;
    long lost;
    int tailWrites;
    int headReads;

    FakeSharedBuffer(int vcpuId, int size) {
        this.vcpuId = vcpuId;
        this.size = size;
        this.eip = new long[size];
        this.mode = new int[size];
        this.event = new int[size];
    }

    /** Xen's xenoprof_add_sample: false (and lost counted) when the ring is full. */
    boolean add(long pc, int m, int ev) {
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
    boolean sample(long pc, int m, int counter) {
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
    void trace(long pc, int m, int counter, long... callers) {
        add(ESCAPE_CODE, m, TRACE_BEGIN);
        sample(pc, m, counter);
        for (long c : callers) {
            add(c, m, 0);
        }
    }

    /** The host restarts a guest profiler's ring: what it held is discarded. Returns how many entries. */
    int discard() {
        int n = head >= tail ? head - tail : size - tail + head;
        tail = head;
        return n;
    }

    /** Places both indices (as if this many entries had been written and read before). */
    void position(int index) {
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
        tail = t;
    }

    @Override
    public void writeHead(int h) {
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
