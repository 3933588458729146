package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;

/**
 * One vCPU ring with Xen's producer rules ({@link FakeSharedBuffer}), the daemon's reader of it and
 * the batches its drains produce: the reader alone, without a profiler around it.
 */
final class Ring {
    /** The domain whose ring it is. */
    static final int OWNER = 5;
    /** The session's counters: a sample naming counter 2 or more is corrupt. */
    static final int COUNTERS = 2;

    /** A view that tags with its domain and resolves every PC to image 0 without symbol. */
    record View(int domid) implements SampleView {
        @Override
        public long resolveSample(long pc, int mode) {
            return DomainView.pack(0, SessionDictionary.NO_SYMBOL);
        }

        @Override
        public long resolveCaller(long pc, int mode) {
            return DomainView.pack(0, SessionDictionary.NO_SYMBOL);
        }
    }

    final FakeSharedBuffer buffer;
    final BufferReader reader;
    final List<SampleBatch> batches = new ArrayList<>();
    final BatchBuilder collector = new BatchBuilder(1, 64, (b, lease) -> batches.add(b));

    Ring(int slots) {
        buffer = new FakeSharedBuffer(0, slots);
        reader = new BufferReader(OWNER, buffer);
    }

    /** An entry Xen does not count as a sample: an escape record or a return address. */
    Ring add(long pc, int mode, int event) {
        assertTrue(buffer.add(pc, mode, event), "test ring too small");
        return this;
    }

    /** An entry Xen counted as a sample. */
    Ring sample(long pc, int mode, int event) {
        assertTrue(buffer.sample(pc, mode, event), "test ring too small");
        return this;
    }

    int drain(int depth) {
        return drain(depth, null);
    }

    /** A drain for a session whose IBS events have the columns {@code ibs}. */
    int drain(int depth, IbsColumns ibs) {
        int n;
        synchronized (collector) {
            n = reader.drain(new View(OWNER), collector, depth, COUNTERS, null, ibs);
        }
        collector.flush();
        return n;
    }

    /** Samples as "pc:mode:counter[callers]", PCs in hex. */
    List<String> samples() {
        List<String> out = new ArrayList<>();
        for (SampleBatch b : batches) {
            for (int i = 0; i < b.size; i++) {
                StringBuilder s = new StringBuilder(Long.toHexString(b.pc[i]) + ":" + b.mode[i] + ":" + b.counter[i]);
                List<String> callers = new ArrayList<>();
                for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                    callers.add(Long.toHexString(b.chainPc[c]));
                }
                out.add(s.append(callers).toString());
            }
        }
        return out;
    }

    /** The sampled PCs delivered, in order. */
    List<Long> pcs() {
        List<Long> out = new ArrayList<>();
        for (SampleBatch b : batches) {
            for (int i = 0; i < b.size; i++) {
                out.add(b.pc[i]);
            }
        }
        return out;
    }
}
