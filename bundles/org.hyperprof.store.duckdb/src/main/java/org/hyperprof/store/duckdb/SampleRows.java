package org.hyperprof.store.duckdb;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.report.kit.EntrySlots;
import org.hyperprof.report.kit.Hashing;

/**
 * A session's samples as the store keeps them: one row per distinct key (event, domain, vCPU, CPU,
 * mode, pid, tid, image, symbol, PC, stack, time bucket, flags) with its sample count and weight, in
 * parallel primitive arrays found through an open-addressing index. Counting a sample whose row
 * exists allocates nothing; the arrays double as rows are added. Confined to the store's delivery
 * thread of the session.
 */
final class SampleRows {
    /** The width of a time bucket: the resolution of a stored session's time ranges. */
    static final long TIME_BUCKET_NANOS = 10_000_000L;

    private final int[] eventOfCounter;
    private final StackTable stacks = new StackTable();
    private final EntrySlots index = new EntrySlots(1024, this::hashOf);
    private int size;
    private long samples;
    private int[] event = new int[512];
    private int[] domain = new int[512];
    private int[] vcpu = new int[512];
    private int[] cpu = new int[512];
    private byte[] mode = new byte[512];
    private int[] pid = new int[512];
    private int[] tid = new int[512];
    private int[] image = new int[512];
    private int[] symbol = new int[512];
    private long[] pc = new long[512];
    private int[] stack = new int[512];
    private long[] bucket = new long[512];
    private byte[] flags = new byte[512];
    private long[] count = new long[512];
    private long[] weight = new long[512];

    /**
     * @param eventOfCounter the index into the session's counters of each counter number a batch
     *                       carries ({@code SessionInfo.counterSlots()}), -1 for none
     */
    SampleRows(int[] eventOfCounter) {
        this.eventOfCounter = eventOfCounter.clone();
    }

    /** Counts every sample of the batch into its row. */
    void add(SampleBatch b) {
        for (int i = 0; i < b.size; i++) {
            int ev = eventOfCounter[b.counter[i] & 0xFF];
            int st = stacks.id(b, i);
            long t = b.time[i];
            long bk = t < 0 ? SampleBatch.UNKNOWN : t / TIME_BUCKET_NANOS;
            long hash = hash(ev, b.domain[i], b.vcpu[i], b.cpu[i], b.mode[i], b.pid[i], b.tid[i], b.image[i],
                    b.symbol[i], b.pc[i], st, bk, b.flags[i]);
            int row = find(hash, ev, b, i, st, bk);
            if (row == EntrySlots.FREE) {
                row = add(hash, ev, b, i, st, bk);
            }
            count[row]++;
            weight[row] += b.weight[i];
        }
        samples += b.size;
    }

    private int find(long hash, int ev, SampleBatch b, int i, int st, long bk) {
        for (int slot = index.first(hash); ; slot = index.next(slot)) {
            int r = index.entry(slot);
            if (r == EntrySlots.FREE || pc[r] == b.pc[i] && symbol[r] == b.symbol[i] && image[r] == b.image[i]
                    && bucket[r] == bk && stack[r] == st && domain[r] == b.domain[i] && vcpu[r] == b.vcpu[i]
                    && event[r] == ev && mode[r] == b.mode[i] && cpu[r] == b.cpu[i] && pid[r] == b.pid[i]
                    && tid[r] == b.tid[i] && flags[r] == b.flags[i]) {
                return r;
            }
        }
    }

    private int add(long hash, int ev, SampleBatch b, int i, int st, long bk) {
        if (size == pc.length) {
            grow();
        }
        int r = size++;
        event[r] = ev;
        domain[r] = b.domain[i];
        vcpu[r] = b.vcpu[i];
        cpu[r] = b.cpu[i];
        mode[r] = b.mode[i];
        pid[r] = b.pid[i];
        tid[r] = b.tid[i];
        image[r] = b.image[i];
        symbol[r] = b.symbol[i];
        pc[r] = b.pc[i];
        stack[r] = st;
        bucket[r] = bk;
        flags[r] = b.flags[i];
        index.add(r, hash);
        return r;
    }

    private void grow() {
        int n = pc.length * 2;
        event = Arrays.copyOf(event, n);
        domain = Arrays.copyOf(domain, n);
        vcpu = Arrays.copyOf(vcpu, n);
        cpu = Arrays.copyOf(cpu, n);
        mode = Arrays.copyOf(mode, n);
        pid = Arrays.copyOf(pid, n);
        tid = Arrays.copyOf(tid, n);
        image = Arrays.copyOf(image, n);
        symbol = Arrays.copyOf(symbol, n);
        pc = Arrays.copyOf(pc, n);
        stack = Arrays.copyOf(stack, n);
        bucket = Arrays.copyOf(bucket, n);
        flags = Arrays.copyOf(flags, n);
        count = Arrays.copyOf(count, n);
        weight = Arrays.copyOf(weight, n);
    }

    private long hashOf(int r) {
        return hash(event[r], domain[r], vcpu[r], cpu[r], mode[r], pid[r], tid[r], image[r], symbol[r], pc[r],
                stack[r], bucket[r], flags[r]);
    }

    private static long hash(int ev, int dom, int vc, int cp, byte md, int ps, int ts, int img, int sym, long p,
            int st, long bk, byte fl) {
        long h = Hashing.mix(p ^ ((long) st << 40));
        h = Hashing.mix(h ^ (((long) img << 32) | (sym & 0xFFFFFFFFL)));
        h = Hashing.mix(h ^ (((long) dom << 32) | (vc & 0xFFFFFFFFL)));
        h = Hashing.mix(h ^ (((long) ps << 32) | (ts & 0xFFFFFFFFL)));
        return Hashing.mix(h ^ bk ^ ((long) cp << 24) ^ ((long) ev << 48) ^ ((long) md << 56) ^ ((long) fl << 60));
    }

    /** Rows: 0 to {@code size() - 1}. */
    int size() {
        return size;
    }

    /** Samples counted: the sum of the rows' counts. */
    long samples() {
        return samples;
    }

    StackTable stacks() {
        return stacks;
    }

    int event(int r) {
        return event[r];
    }

    int domain(int r) {
        return domain[r];
    }

    int vcpu(int r) {
        return vcpu[r];
    }

    int cpu(int r) {
        return cpu[r];
    }

    byte mode(int r) {
        return mode[r];
    }

    int pid(int r) {
        return pid[r];
    }

    int tid(int r) {
        return tid[r];
    }

    int image(int r) {
        return image[r];
    }

    int symbol(int r) {
        return symbol[r];
    }

    long pc(int r) {
        return pc[r];
    }

    int stack(int r) {
        return stack[r];
    }

    long bucket(int r) {
        return bucket[r];
    }

    byte flags(int r) {
        return flags[r];
    }

    long count(int r) {
        return count[r];
    }

    long weight(int r) {
        return weight[r];
    }
}
