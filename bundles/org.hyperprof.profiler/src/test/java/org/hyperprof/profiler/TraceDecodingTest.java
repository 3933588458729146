package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.junit.jupiter.api.Test;

/**
 * Escape records, call traces and what the daemon does with entries it cannot decode
 * (xenoprof-facts §4.4, §7): counted and skipped, never given to another sample or domain.
 *
 * <p>A ring's entries are written as Xen writes them: {@code sample} for an entry Xen counted as a
 * sample in the page (the one after an escape record, or any without a depth), {@code add} for an
 * escape record or a return address, which Xen does not count. An undecodable entry stands where a
 * guest scribbled over what Xen wrote.
 */
class TraceDecodingTest {
    private static final long ESC = SharedBuffer.ESCAPE_CODE;
    private static final int BEGIN = SharedBuffer.TRACE_BEGIN;
    private static final int OWNER = Ring.OWNER;
    private static final int COUNTERS = Ring.COUNTERS;

    @Test
    void anEscapeRecordMakesTheNextEntryTheSampleAndTheEventZeroEntriesItsCallers() {
        Ring r = new Ring(32);
        r.add(ESC, 1, BEGIN).sample(0x10, 1, 1).add(0x20, 1, 0).add(0x30, 1, 0);
        r.add(ESC, 0, BEGIN).sample(0x40, 0, 0).add(0x50, 0, 0);
        r.drain(4);
        assertEquals(List.of("10:1:1[20, 30]", "40:0:0[50]"), r.samples(),
                "a counter-0 sample right after an escape is the sample, not a caller");
        assertEquals(3, r.reader.callerEntries());
        assertEquals(2, r.reader.traceBegins());
    }

    @Test
    void atMostDepthReturnAddressesFollowASample() {
        Ring r = new Ring(32);
        r.add(ESC, 1, BEGIN).sample(0x10, 1, 0).add(0x20, 1, 0).add(0x30, 1, 0);
        r.drain(1);
        assertEquals(List.of("10:1:0[20]"), r.samples());
        assertEquals(1, r.reader.orphanEntries(), "the entry beyond the depth is a stray, not a sample");
    }

    @Test
    void anEscapeEndingADrainWaitsForItsSampleInTheNextDrainOfTheSameRing() {
        Ring r = new Ring(32);
        r.sample(0x1, 1, 0).add(ESC, 1, BEGIN);
        r.drain(0);
        r.sample(0x10, 1, 1);
        r.drain(0);
        assertEquals(List.of("1:1:0[]", "10:1:1[]"), r.samples());
        assertEquals(0, r.reader.danglingEscapes());
    }

    @Test
    void anEscapeFollowedByAnEscapeLostItsSample() {
        Ring r = new Ring(32);
        r.add(ESC, 1, BEGIN).add(ESC, 2, BEGIN).sample(0x10, 2, 0).add(0x20, 2, 0);
        r.drain(2);
        assertEquals(List.of("10:2:0[20]"), r.samples());
        assertEquals(1, r.reader.danglingEscapes());
    }

    @Test
    void anEscapeStillAloneWhenTheReaderIsFinishedIsATruncatedTrace() {
        Ring r = new Ring(32);
        r.add(ESC, 1, BEGIN);
        r.drain(2);
        assertEquals(0, r.reader.danglingEscapes(), "not yet: its sample may still come");
        r.reader.finishTraces();
        assertEquals(1, r.reader.danglingEscapes());
        assertEquals(List.of(), r.samples());
    }

    @Test
    void returnAddressesWithoutAPrecedingEscapeAreSkippedWhenADepthIsSet() {
        Ring r = new Ring(32);
        r.add(0x20, 1, 0).add(0x30, 1, 0).add(ESC, 1, BEGIN).sample(0x10, 1, 0);
        r.drain(3);
        assertEquals(List.of("10:1:0[]"), r.samples());
        assertEquals(2, r.reader.orphanEntries());
    }

    @Test
    void anEscapeValueWithAnUnknownEventIsSkipped() {
        Ring r = new Ring(32);
        r.add(ESC, 1, 7).sample(0x10, 1, 0);
        r.drain(0);
        assertEquals(List.of("10:1:0[]"), r.samples(), "without a depth the next entry is a plain sample");
        assertEquals(1, r.reader.unknownEscapes());
    }

    @Test
    void aSampleNamingACounterTheSessionLacksIsSkippedWithItsCallers() {
        Ring r = new Ring(32);
        r.add(ESC, 1, BEGIN).sample(0x10, 1, 9).add(0x20, 1, 0).add(ESC, 1, BEGIN).sample(0x30, 1, 1);
        r.add(0x40, 1, 200);
        r.drain(2);
        assertEquals(List.of("30:1:1[]"), r.samples());
        assertEquals(1, r.reader.badEvents(), "the traced sample of counter 9");
        assertEquals(2, r.reader.orphanEntries(), "its caller, and the entry after the last trace");
    }

    @Test
    void entriesWithAModeOutsideUserKernelXenOrUnlikeTheirEscapeAreSkipped() {
        Ring r = new Ring(32);
        r.sample(0x10, 3, 0).sample(0x20, 1, 0);
        r.drain(0);
        r.add(ESC, 1, BEGIN).sample(0x30, 2, 0).add(0x31, 2, 0);
        r.drain(2);
        assertEquals(List.of("20:1:0[]"), r.samples());
        assertEquals(2, r.reader.badModes());
        assertEquals(1, r.reader.orphanEntries(), "the caller of the skipped sample");
    }

    @Test
    void aCallerInAnotherModeEndsTheTrace() {
        Ring r = new Ring(32);
        r.add(ESC, 0, BEGIN).sample(0x10, 0, 0).add(0x20, 1, 0);
        r.drain(4);
        assertEquals(List.of("10:0:0[]"), r.samples());
        assertEquals(1, r.reader.orphanEntries());
    }

    @Test
    void withoutADepthAnEscapedSampleHasNoCallers() {
        Ring r = new Ring(32);
        r.add(ESC, 1, BEGIN).sample(0x10, 1, 0).sample(0x20, 1, 0);
        r.drain(0);
        assertEquals(List.of("10:1:0[]", "20:1:0[]"), r.samples(),
                "Xen writes no return address without a depth: the next entry is a sample of its own");
    }

    @Test
    void aDrainThroughAnotherDomainsViewIsRefusedAndLeavesTheRingAlone() {
        Ring r = new Ring(8);
        r.sample(0x10, 1, 0);
        int n;
        synchronized (r.collector) {
            n = r.reader.drain(new Ring.View(OWNER + 1), r.collector, 0, COUNTERS, null);
        }
        assertEquals(0, n);
        assertEquals(1, r.reader.refusedDrains());
        assertEquals(0, r.buffer.tail(), "the entry waits for its own domain's drain");
        r.drain(0);
        assertEquals(List.of("10:1:0[]"), r.samples());
    }

    @Test
    void everySampleCarriesTheRingOwnersDomain() {
        Ring r = new Ring(16);
        r.sample(0x10, 1, 0).add(ESC, 1, BEGIN).sample(0x20, 1, 1);
        r.drain(0);
        for (SampleBatch b : r.batches) {
            for (int i = 0; i < b.size; i++) {
                assertEquals(OWNER, b.domain[i]);
            }
        }
    }

    // ---------------------------------------------------------------- hostile streams

    record Entry(long pc, int mode, int event) {
    }

    @Provide
    Arbitrary<List<Entry>> hostileEntries() {
        Arbitrary<Long> pcs = Arbitraries.oneOf(Arbitraries.just(ESC), Arbitraries.longs().between(1, 0xFFFF),
                Arbitraries.just(0L));
        Arbitrary<Integer> modes = Arbitraries.oneOf(Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 255));
        Arbitrary<Integer> events = Arbitraries.oneOf(Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(0, 255));
        return Combinators.combine(pcs, modes, events).as(Entry::new).list().ofMaxSize(60);
    }

    /**
     * Whatever a hostile guest or a truncated drain leaves in the ring, decoding never throws, every
     * entry is classified exactly once, no trace is longer than the depth, callers share their
     * sample's mode, and every sample names a real counter and mode and carries the owner's id. Xen's
     * counters here count every entry that is not an escape value, at least what decoding takes for
     * samples, so that no drain is refused; what decoding does not take is unreached.
     */
    @Property(tries = 300)
    void decodingAnyEntryStreamNeverThrowsAndAccountsForEveryEntry(@ForAll("hostileEntries") List<Entry> entries,
            @ForAll @IntRange(min = 0, max = 5) int depth, @ForAll @IntRange(min = 1, max = 4) int drains) {
        Ring r = new Ring(64);
        int per = Math.max(1, (entries.size() + drains - 1) / drains);
        int written = 0;
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.pc() == ESC) {
                r.add(e.pc(), e.mode(), e.event());
            } else {
                r.sample(e.pc(), e.mode(), e.event());
            }
            written++;
            if ((i + 1) % per == 0) {
                r.drain(depth);
            }
        }
        r.drain(depth);
        r.reader.finishTraces();
        BufferReader b = r.reader;
        assertEquals(written, b.drainedEntries());
        assertEquals(written, b.traceBegins() + b.unknownEscapes() + b.samples() + b.callerEntries()
                + b.orphanEntries() + b.badEvents() + b.badModes() + b.staleEntries(),
                "each entry is an escape, a sample, a caller, or counted as skipped");
        assertEquals(0, b.refusedEntries());
        long counted = r.buffer.user + r.buffer.kernel + r.buffer.xen;
        assertEquals(counted, b.samples() + b.badEvents() + b.badModes() + b.unreachedSamples(),
                "every sample Xen counted is delivered, undecodable, or unreached");
        for (SampleBatch batch : r.batches) {
            for (int i = 0; i < batch.size; i++) {
                assertEquals(OWNER, batch.domain[i]);
                assertTrue(batch.mode[i] >= 0 && batch.mode[i] <= 2, "mode " + batch.mode[i]);
                assertTrue(batch.counter[i] >= 0 && batch.counter[i] < COUNTERS, "counter " + batch.counter[i]);
                assertTrue(batch.chainLength(i) <= depth, "chain " + batch.chainLength(i) + " > depth " + depth);
                assertTrue(batch.pc[i] != ESC, "an escape value is never a sample");
                for (int c = batch.chainStart[i]; c < batch.chainStart[i + 1]; c++) {
                    assertTrue(batch.chainPc[c] != ESC, "an escape value is never a caller");
                }
            }
        }
        assertTrue(b.danglingEscapes() <= b.traceBegins());
    }
}
