package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.hypervisor.xenoprof.XenoprofBuffer;
import org.hyperprof.pipeline.BatchBuilder;

/**
 * One vCPU's shared buffer as Xen fills it and a hostile guest writes it: the real ring
 * ({@link XenoprofBuffer}, Xen's producer checks) and the daemon's real reader ({@link BufferReader})
 * between any number of Xen's samples (with call traces when a depth is set), guest writes of
 * either index (in range or not) and of any entry, and drains. Every value written into the ring
 * carries a tag of its own, so:
 * <ul>
 * <li>no entry is handed to the consumers twice, and none that nobody wrote (a zeroed slot);</li>
 * <li>the buffer's books are exact: Xen's attempts = delivered + lost + invalid, where delivered is
 * what Xen wrote less what the reader could not reach (as the session counts it);</li>
 * <li>when the guest wrote no entry and left its indices in range, every sample delivered by the
 * books reached the consumers: none vanished between the ring and the batches.</li>
 * </ul>
 * In CI the inputs under {@code GuestBufferFuzzTestInputs/} are replayed as ordinary tests; the
 * README's development section gives the command that fuzzes.
 */
class GuestBufferFuzzTest {

    private static final int OWNER = 3;
    private static final int COUNTERS = 2;
    /** Xen's samples and return addresses, and the guest's entries, are told apart by their tags. */
    private static final long XEN_SAMPLE = 0x1000_0000L;
    private static final long XEN_CALLER = 0x2000_0000L;
    private static final long GUEST_ENTRY = 0x3000_0000L;

    @FuzzTest(maxDuration = "10m")
    void guestWritesItsBuffer(FuzzedDataProvider data) {
        int slots = data.consumeInt(2, 40);
        int depth = data.consumeInt(0, 3);
        XenoprofBuffer ring = new XenoprofBuffer(0, slots);
        BufferReader reader = new BufferReader(OWNER, ring);
        List<SampleBatch> batches = new ArrayList<>();
        BatchBuilder collector = new BatchBuilder(1, 16, (b, lease) -> batches.add(b));
        Ring.View view = new Ring.View(OWNER);
        long attempts = 0;
        long xenSamples = 0;
        long tags = 0;
        boolean guestWroteEntries = false;
        for (int step = 0; step < 400 && data.remainingBytes() > 0; step++) {
            switch (data.consumeInt(0, 6)) {
                case 0, 1, 2 -> {
                    attempts++;
                    xenSamples++;
                    xenLogs(ring, depth, XEN_SAMPLE + xenSamples, data.consumeInt(0, 2), data.consumeInt(0, 1),
                            data.consumeInt(0, depth), XEN_CALLER + (xenSamples << 3));
                }
                case 3 -> ring.writeHead(data.consumeBoolean() ? data.consumeInt(0, slots - 1) : data.consumeInt());
                case 4 -> ring.writeTail(data.consumeBoolean() ? data.consumeInt(0, slots - 1) : data.consumeInt());
                case 5 -> {
                    guestWroteEntries = true;
                    int slot = data.consumeInt(0, slots - 1);
                    long eip = data.consumeBoolean() ? SharedBuffer.ESCAPE_CODE : GUEST_ENTRY + ++tags;
                    ring.fill(slot, 1, eip, data.consumeBoolean() ? data.consumeInt(0, 2) : data.consumeInt(0, 255),
                            data.consumeInt(0, 2));
                }
                default -> drain(reader, view, collector, depth);
            }
        }
        drain(reader, view, collector, depth);
        reader.finishTraces();

        // No entry twice, none never written.
        Set<Long> seen = new HashSet<>();
        long handed = 0;
        for (SampleBatch b : batches) {
            for (int i = 0; i < b.size; i++) {
                handed++;
                once(seen, b.pc[i]);
                for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                    once(seen, b.chainPc[c]);
                }
            }
        }

        // The books, as the session keeps them for a buffer.
        long written = ring.userSamples() + ring.kernelSamples() + ring.xenSamples();
        long unreached = reader.unreachedSamples();
        long delivered = written - unreached;
        long invalid = ring.corruptedSamples() + unreached;
        assertTrue(unreached >= 0 && delivered >= 0, "unreached " + unreached + " of " + written + " written");
        assertEquals(attempts, delivered + ring.lostSamples() + invalid,
                "taken = delivered + lost + invalid for the buffer");
        assertTrue(handed <= delivered, () -> "handed " + seen.size() + " entries, more samples than delivered");
        boolean sane = ring.head() >= 0 && ring.head() < slots && ring.tail() >= 0 && ring.tail() < slots;
        if (!guestWroteEntries && sane) {
            BufferReader.DecodeCounts d = reader.decodeCounts();
            assertEquals(delivered, handed + reader.badEvents() + reader.badModes(),
                    () -> "every sample delivered reached the consumers or was counted as undecodable: " + d);
        }
    }

    private static void once(Set<Long> seen, long pc) {
        if (pc == 0) {
            fail("an entry nobody wrote (a zeroed slot) was handed to the consumers");
        }
        if (!seen.add(pc)) {
            fail("the entry " + Long.toHexString(pc) + " was handed to the consumers twice");
        }
    }

    /** Xen's xenoprof_log_event: with a depth, an escape record, the sample, then its return addresses. */
    private static void xenLogs(XenoprofBuffer buf, int depth, long pc, int mode, int counter, int callers,
            long callerTag) {
        if (depth != 0) {
            if (buf.freeSlots() < 2) {
                buf.countLost();
                return;
            }
            int r = buf.add(SharedBuffer.ESCAPE_CODE, mode, SharedBuffer.TRACE_BEGIN);
            if (r != XenoprofBuffer.ADDED) {
                failed(buf, r);
                return;
            }
        }
        int r = buf.add(pc, mode, counter);
        if (r != XenoprofBuffer.ADDED) {
            failed(buf, r);
        } else {
            buf.countSampleMode(mode);
        }
        for (int i = 0; depth != 0 && i < callers; i++) {
            if (buf.add(callerTag + i, mode, 0) != XenoprofBuffer.ADDED) {
                buf.countTraceEntryLost();
                return;
            }
        }
    }

    private static void failed(XenoprofBuffer buf, int result) {
        if (result == XenoprofBuffer.FULL) {
            buf.countLost();
        } else {
            buf.countCorrupted();
        }
    }

    private static void drain(BufferReader reader, Ring.View view, BatchBuilder collector, int depth) {
        synchronized (collector) {
            reader.drain(view, collector, depth, COUNTERS, null);
        }
        collector.flush();
    }
}
