package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;

import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
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

    @Test
    void thePrimarysPassiveDrainWithCallTracesAllocatesNothingPerSample() throws Exception {
        FakeHost host = FakeHost.withGuests();
        ProfilerImpl p = new ProfilerImpl(host.service(), 1 << 20, 8, Duration.ofSeconds(5));
        p.addResolver("kallsyms", new FakeResolver());
        try {
            Rig.ok(p.opcontrol(0, List.of("--start-daemon", "--buffer-size=256", "--passive-domains=2,3",
                    "--passive-images=vmlinux-2", "--callgraph=2")));
            Rig.ok(p.opcontrol(0, List.of("--start")));
            FakeSharedBuffer own = host.xenoprof.buffer(0, 0);
            FakeSharedBuffer pv = host.xenoprof.buffer(2, 0);
            FakeSharedBuffer hvm = host.xenoprof.buffer(3, 0);
            int rounds = 2000;
            int perRound = 20;
            for (int warm = 0; warm < 200; warm++) {
                traces(own, pv, hvm, perRound);
                host.xenoprof.virq(0, 0);
            }
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            for (int r = 0; r < rounds; r++) {
                traces(own, pv, hvm, perRound);
                host.xenoprof.virq(0, 0);
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            long samples = 3L * rounds * perRound;
            assertEquals(0, own.lost + pv.lost + hvm.lost);
            assertTrue(allocated < samples / 4, allocated + " bytes allocated for " + samples + " samples");
        } finally {
            p.deactivate();
        }
    }

    /** Escape record, sample and callers written entry by entry (the varargs helper would allocate here). */
    private static void traces(FakeSharedBuffer own, FakeSharedBuffer pv, FakeSharedBuffer hvm, int n) {
        long esc = org.hyperprof.api.xenoprof.SharedBuffer.ESCAPE_CODE;
        int begin = org.hyperprof.api.xenoprof.SharedBuffer.TRACE_BEGIN;
        for (int i = 0; i < n; i++) {
            own.add(esc, 1, begin);
            own.sample(FakeHost.KERNEL + 0x10, 1, 0);
            own.add(FakeHost.KERNEL + 0x120, 1, 0);
            own.add(FakeHost.MODULE, 1, 0);
            pv.add(esc, 1, begin);
            pv.sample(FakeHost.KERNEL + 0x110, 1, 0);
            pv.add(FakeHost.MODULE + 8, 1, 0);
            int m = i % 2;
            hvm.add(esc, m, begin);
            hvm.sample(FakeHost.USER + 0x150, m, 0);
            hvm.add(FakeHost.USER + 0x100, m, 0);
        }
    }
}
