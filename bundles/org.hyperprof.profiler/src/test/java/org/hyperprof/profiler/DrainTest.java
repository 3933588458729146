package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.Test;

/** The daemon drains a vCPU ring on its VIRQ the way the XenLinux driver did, hardened against a hostile page. */
class DrainTest {

    private static final long K = FakeHost.KERNEL;

    @Test
    void drainReadsAcrossTheWrapInOrderAndWritesTheTailOnce() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 1);
            for (int i = 0; i < 12; i++) {
                b.sample(K + 0x100, 1, 0);
            }
            rig.xen.virq(1, 1);
            assertEquals(12, b.tail());
            for (int i = 0; i < 8; i++) {
                b.sample(K + i, 1, 0);
            }
            assertEquals(4, b.head(), "8 entries from slot 12 wrap to head 4 in a 16-slot ring");
            b.tailWrites = 0;
            b.headReads = 0;
            rig.xen.virq(1, 1);
            assertEquals(1, b.headReads, "event_head is read once per drain");
            assertEquals(1, b.tailWrites, "event_tail is written once per drain");
            assertEquals(4, b.tail());
            rig.finish();
            SampleBatch batch = rig.consumer.batches.get(0);
            assertEquals(20, batch.size);
            for (int i = 0; i < 8; i++) {
                assertEquals(K + i, batch.pc[12 + i], "sample " + i + " in ring order");
                assertEquals(1, batch.domain[12 + i]);
                assertEquals(1, batch.vcpu[12 + i]);
                assertEquals(1, batch.mode[12 + i]);
            }
        }
    }

    @Test
    void anEmptyRingIsLeftAlone() {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            rig.xen.virq(0, 0);
            assertEquals(0, b.tailWrites);
        }
    }

    @Test
    void aHostileHeadIsIgnoredAndCountedWithoutMovingTheTail() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            b.sample(K, 1, 0);
            b.writeHead(99);
            rig.xen.virq(1, 0);
            b.writeHead(-5);
            rig.xen.virq(1, 0);
            assertEquals(0, b.tailWrites, "a garbage head is never used");
            assertEquals(0, b.tail());
            assertTrue(rig.op(1, "--status").output().contains("ignored 2 bad head and 0 bad tail reads"));
            b.writeHead(1);
            rig.xen.virq(1, 0);
            assertEquals(1, b.tail(), "once the head is sane again the daemon drains");
            rig.finish();
            assertEquals(1, rig.consumer.samples());
        }
    }

    @Test
    void aGarbageTailIsResetToTheHeadAndCounted() {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(1, 0);
            b.sample(K, 1, 0);
            b.writeTail(1 << 20);
            rig.xen.virq(1, 0);
            assertEquals(b.head(), b.tail());
            assertTrue(rig.op(1, "--status").output().contains("ignored 0 bad head and 1 bad tail reads"));
        }
    }

    @Test
    void theVirqOfAVcpuDrainsTheBufferWhoseVcpuIdMatchesNotTheOneAtThatIndex() throws Exception {
        FakeHost host = new FakeHost();
        host.xenoprof.reversedBuffers = true;
        try (Rig rig = new Rig(host, 64).profiling()) {
            FakeSharedBuffer vcpu0 = rig.xen.buffer(1, 0);
            FakeSharedBuffer vcpu1 = rig.xen.buffer(1, 1);
            assertEquals(vcpu0, rig.xen.buffers.get(1)[1], "buffer of vCPU 0 sits at index 1");
            vcpu0.sample(K, 1, 0);
            vcpu1.sample(K + 1, 1, 0);
            rig.xen.virq(1, 0);
            assertEquals(1, vcpu0.tail());
            assertEquals(0, vcpu1.tail(), "the other vCPU's buffer waits for its own VIRQ");
            rig.xen.virq(1, 1);
            rig.finish();
            SampleBatch batch = rig.consumer.batches.get(0);
            assertEquals(0, batch.vcpu[0]);
            assertEquals(1, batch.vcpu[1]);
        }
    }

    @Test
    void anEscapeRecordStartsACallTraceWhoseReturnAddressesBecomeTheChain() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.depth = 4;
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            b.trace(K + 0x10, 1, 1, K + 0x110, FakeHost.MODULE + 0x20);
            // With a depth set, Xen starts every sample with an escape record, even one without callers.
            b.trace(K + 0x20, 1, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            SampleBatch batch = rig.consumer.batches.get(0);
            assertEquals(2, batch.size, "the escape record and the return addresses are not samples");
            assertEquals(K + 0x10, batch.pc[0]);
            assertEquals(1, batch.counter[0]);
            assertEquals(2, batch.chainLength(0));
            assertEquals(K + 0x110, batch.chainPc[batch.chainStart[0]]);
            assertEquals(FakeHost.MODULE + 0x20, batch.chainPc[batch.chainStart[0] + 1]);
            var d = rig.consumer.info.dictionary();
            assertEquals("br_handle_frame", d.symbolName(batch.chainSymbol[batch.chainStart[0]]));
            assertEquals("net_tx_action", d.symbolName(batch.chainSymbol[batch.chainStart[0] + 1]));
            assertEquals("netback.ko", d.imageName(batch.chainImage[batch.chainStart[0] + 1]));
            assertEquals(0, batch.chainLength(1), "a trace without return addresses has an empty chain");
        }
    }

    @Test
    void aReturnAddressBeyondTheDepthIsNeitherACallerNorASample() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.depth = 1;
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            b.trace(K + 0x10, 1, 0, K + 0x110);
            // With a depth set Xen begins every sample with an escape: an entry without one is a stray.
            b.add(K + 0x20, 1, 0);
            b.trace(K + 0x30, 1, 0);
            rig.xen.virq(0, 0);
            assertTrue(rig.op(0, "--status").output().contains("skipped 1 stray return addresses"),
                    rig.op(0, "--status").output());
            rig.finish();
            SampleBatch batch = rig.consumer.batches.get(0);
            assertEquals(2, batch.size, "Xen writes at most backtrace-depth return addresses");
            assertEquals(1, batch.chainLength(0));
            assertEquals(K + 0x30, batch.pc[1]);
            assertEquals(0, batch.chainLength(1));
        }
    }

    @Test
    void anEscapeWhoseSampleDidNotFitIsSkippedAndCounted() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            b.add(SharedBuffer.ESCAPE_CODE, 1, SharedBuffer.TRACE_BEGIN);
            b.trace(K + 0x10, 1, 0);
            b.add(SharedBuffer.ESCAPE_CODE, 1, SharedBuffer.TRACE_BEGIN);
            rig.xen.virq(0, 0);
            String status = rig.op(0, "--status").output();
            assertTrue(status.contains("1 escape records without sample"),
                    "an escape followed by an escape lost its sample; the last one may still get its own: " + status);
            rig.finish();
            assertEquals(List.of(K + 0x10), List.of(rig.consumer.batches.get(0).pc[0]));
            assertEquals(1, rig.consumer.samples());
            assertTrue(rig.consumer.summary.notes().stream().anyMatch(n -> n.contains("domain 0 vcpu 0")
                    && n.contains("2 escape record(s) without a sample")), rig.consumer.summary.notes().toString());
        }
    }

    @Test
    void theStopFlushDrainsEveryActiveDomainAndHandsOverThePartialBatch() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(0, 0).sample(K, 1, 0);
            rig.xen.buffer(1, 0).sample(K, 1, 0);
            rig.xen.buffer(1, 1).sample(FakeHost.XEN + 0x1000, 2, 0);
            Rig.ok(rig.op(0, "--stop"));
            assertTrue(OpcontrolSequenceTest.waitFor(() -> rig.consumer.samples() == 3),
                    "the batch is handed over at stop, before the session ends");
            assertEquals(0, rig.xen.buffer(1, 1).tail() - rig.xen.buffer(1, 1).head());
        }
    }

    @Test
    void fullBatchesAreHandedOverWhileSamplingGoesOn() throws Exception {
        try (Rig rig = new Rig(new FakeHost(), 4).profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            for (int i = 0; i < 10; i++) {
                b.sample(K + i, 1, 0);
            }
            rig.xen.virq(0, 0);
            assertTrue(OpcontrolSequenceTest.waitFor(() -> rig.consumer.batches.size() == 2), "two full batches of 4");
            rig.finish();
            assertEquals(List.of(4, 4, 2), rig.consumer.batches.stream().map(x -> x.size).toList());
        }
    }

    @Test
    void theShutdownDrainsWhatIsLeftBeforeDisablingTheVirq() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.op(0, "--stop");
            // Xen-mode samples never raise the VIRQ: they wait in the ring for the next drain.
            rig.xen.buffer(1, 0).sample(FakeHost.XEN + 0x1000, 2, 0);
            rig.xen.calls.clear();
            Rig.ok(rig.op(1, "--shutdown"));
            Rig.ok(rig.op(0, "--shutdown"));
            assertTrue(rig.consumer.awaitEnd());
            assertEquals(List.of("1 xen-syms do_grant_table_op"), rig.resolved());
        }
    }

    @Test
    void resetDiscardsTheDomainsSamplesNotYetHandedOver() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(0, 0).sample(K, 1, 0);
            rig.xen.buffer(1, 0).sample(K, 1, 0);
            rig.xen.virq(0, 0);
            rig.xen.virq(1, 0);
            rig.xen.buffer(1, 0).sample(K + 1, 1, 0);
            String out = Rig.ok(rig.op(1, "--reset")).output();
            assertTrue(out.contains("discarded 2 samples"), out);
            rig.finish();
            assertEquals(List.of("0 vmlinux netif_receive_skb"), rig.resolved());
        }
    }

    /**
     * Xen logs an AMD IBS block (marker 13 or 14, then the sampled address and the IBS registers in
     * halves, event 0) and counts it as one sample: the daemon reads it as one, not as eight samples
     * more than Xen wrote, and without IBS columns decodes it into none; with call traces on it is no
     * stray entry either.
     */
    @Test
    void anIbsBlockIsReadAsTheOneSampleXenCountsItAs() {
        for (int depth : new int[] {0, 2}) {
            Ring r = new Ring(64);
            r.sample(BufferReader.IBS_FETCH_CODE, 1, 0);
            for (int k = 1; k < BufferReader.IBS_FETCH_ENTRIES; k++) {
                r.add(0xc0100000L + k, 1, 0);
            }
            if (depth > 0) {
                r.add(SharedBuffer.ESCAPE_CODE, 1, SharedBuffer.TRACE_BEGIN);
            }
            r.sample(0xc0100abcL, 1, 0);
            r.drain(depth);
            assertEquals(List.of("c0100abc:1:0[]"), r.samples(), "depth " + depth);
            assertEquals(1, r.reader.ibsBlocks(), "depth " + depth);
            assertEquals(0, r.reader.refusedEntries() + r.reader.unreachedSamples() + r.reader.orphanEntries(),
                    "depth " + depth);
        }
    }

    /** An IBS block as Xen logs it: marker, sampled address, then the registers in halves (most of them 0 here). */
    private static void ibsBlock(Ring r, long marker, long address, int mode) {
        int entries = marker == BufferReader.IBS_FETCH_CODE ? BufferReader.IBS_FETCH_ENTRIES : BufferReader.IBS_OP_ENTRIES;
        r.sample(marker, mode, 0);
        r.add(address, mode, 0);
        r.add(address & 0xFFFF_FFFFL, mode, 0);
        r.add(address >>> 32, mode, 0);
        for (int k = 4; k < entries; k++) {
            r.add(0, mode, 0);
        }
    }

    /**
     * With the session's IBS columns, each block is one sample of every column of its kind, at the
     * address Xen logged after the marker and in the block's mode, user mode included: the block's
     * zero halves are not the zeros of never-written slots.
     */
    @Test
    void anIbsBlockIsOneSampleOfEachColumnOfItsKindAtTheSampledAddress() {
        Ring r = new Ring(64);
        ibsBlock(r, BufferReader.IBS_FETCH_CODE, 0x0804_8123L, 0);
        ibsBlock(r, BufferReader.IBS_OP_CODE, 0xc010_0456L, 1);
        r.sample(0xc0100abcL, 1, 0);
        r.drain(0, new IbsColumns(new int[] {0x10}, new int[] {0x20, 0x21}));
        assertEquals(List.of("8048123:0:16[]", "c0100456:1:32[]", "c0100456:1:33[]", "c0100abc:1:0[]"), r.samples());
        assertEquals(2, r.reader.ibsBlocks());
        assertEquals(2, r.reader.ibsSamples());
        assertEquals(0, r.reader.staleEntries() + r.reader.refusedEntries() + r.reader.unreachedSamples(),
                "nothing of the blocks was taken for stale slots");
    }
}
