package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Draining, resolving and batching allocate nothing per sample (only one set of arrays per batch). */
class HotPathTest {

    @Test
    void drainingAndResolvingAllocateNothingPerSample() throws Exception {
        FakeHost host = new FakeHost();
        ProfilerImpl p = new ProfilerImpl(host.service(), 1 << 20, 8, Duration.ofSeconds(5));
        p.addResolver("kallsyms", new FakeResolver());
        try {
            Rig.ok(p.opcontrol(0, List.of("--start-daemon", "--buffer-size=64")));
            Rig.ok(p.opcontrol(0, List.of("--start")));
            FakeSharedBuffer b = host.xenoprof.buffer(0, 0);
            long[] pcs = {FakeHost.KERNEL + 0x10, FakeHost.KERNEL + 0x120, FakeHost.XEN + 0x1010, FakeHost.MODULE,
                FakeHost.USER + 0x160, 0x10};
            int rounds = 2000;
            int perRound = 60;
            for (int warm = 0; warm < 200; warm++) {
                fill(b, pcs, perRound);
                host.xenoprof.virq(0, 0);
            }
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            for (int r = 0; r < rounds; r++) {
                fill(b, pcs, perRound);
                host.xenoprof.virq(0, 0);
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            long samples = (long) rounds * perRound;
            assertEquals(0, b.lost);
            assertTrue(allocated < samples / 4, allocated + " bytes allocated for " + samples + " samples");
        } finally {
            p.deactivate();
        }
    }

    private static void fill(FakeSharedBuffer b, long[] pcs, int n) {
        for (int i = 0; i < n; i++) {
            b.sample(pcs[i % pcs.length], i % 3, 0);
        }
    }
}
