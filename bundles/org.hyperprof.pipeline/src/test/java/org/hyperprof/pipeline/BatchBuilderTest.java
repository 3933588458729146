package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.sample.SampleBatch;
import org.junit.jupiter.api.Test;

/** The batch builder's columns and call chains, and opcontrol --reset's removal of one domain's samples. */
class BatchBuilderTest {
    private final List<String> handed = new ArrayList<>();
    private final BatchBuilder builder = new BatchBuilder(5, 100, (batch, lease) -> describe(batch));

    private void describe(SampleBatch b) {
        for (int i = 0; i < b.size; i++) {
            StringBuilder s = new StringBuilder("d" + b.domain[i] + " v" + b.vcpu[i] + " m" + b.mode[i] + " c"
                    + b.counter[i] + " 0x" + Long.toHexString(b.pc[i]) + " " + b.image[i] + ":" + b.symbol[i] + " w"
                    + b.weight[i] + " t" + b.time[i] + " cpu" + b.cpu[i] + " " + b.pid[i] + "/" + b.tid[i]);
            for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                s.append(" <- 0x").append(Long.toHexString(b.chainPc[c])).append(' ').append(b.chainImage[c]).append(':')
                        .append(b.chainSymbol[c]);
            }
            handed.add(s.toString());
        }
    }

    /** A sample of domain {@code d} at {@code pc} with {@code callers} callers. */
    private void sample(int d, long pc, int callers) {
        builder.begin(d, 1, 1, 0, pc, 2, 3, 100000, 1000 + pc, 0, 42, 43);
        for (int c = 0; c < callers; c++) {
            builder.caller(pc + 0x100 + c, 2, 4 + c);
        }
        builder.end();
    }

    @Test
    void everyColumnAndEachSamplesCallersAreHandedOnInOrder() {
        sample(0, 0x10, 2);
        sample(1, 0x20, 0);
        builder.flush();
        assertEquals(List.of("d0 v1 m1 c0 0x10 2:3 w100000 t1016 cpu0 42/43 <- 0x110 2:4 <- 0x111 2:5",
                "d1 v1 m1 c0 0x20 2:3 w100000 t1032 cpu0 42/43"), handed);
    }

    @Test
    void aResetRemovesOneDomainsPendingSamplesAndKeepsTheOthersWithTheirCallers() {
        sample(0, 0x10, 1);
        sample(1, 0x20, 2);
        sample(0, 0x30, 3);
        sample(2, 0x40, 0);
        sample(1, 0x50, 1);
        assertEquals(2, builder.discardDomain(1));
        assertEquals(3, builder.pending());
        sample(1, 0x60, 1);
        builder.flush();
        assertEquals(List.of("d0 v1 m1 c0 0x10 2:3 w100000 t1016 cpu0 42/43 <- 0x110 2:4",
                "d0 v1 m1 c0 0x30 2:3 w100000 t1048 cpu0 42/43 <- 0x130 2:4 <- 0x131 2:5 <- 0x132 2:6",
                "d2 v1 m1 c0 0x40 2:3 w100000 t1064 cpu0 42/43",
                "d1 v1 m1 c0 0x60 2:3 w100000 t1096 cpu0 42/43 <- 0x160 2:4"), handed);
    }

    @Test
    void aCallerWithNoSampleOpenIsIgnoredAndNothingIsTakenOnceClosed() {
        assertEquals(-1, builder.caller(0x99, 0, 0));
        sample(0, 0x10, 0);
        builder.close();
        sample(0, 0x20, 1);
        builder.flush();
        assertEquals(List.of("d0 v1 m1 c0 0x10 2:3 w100000 t1016 cpu0 42/43"), handed);
        assertEquals(1, builder.publishedSamples());
    }

    @Test
    void aWholeCallChainHandedOnAtOnceIsTheSameAsFrameByFrameAndTheArraysGrowForIt() {
        long[] pcs = new long[40];
        int[] images = new int[40];
        int[] symbols = new int[40];
        for (int c = 0; c < 40; c++) {
            pcs[c] = 0x10 + 0x100 + c;
            images[c] = 2;
            symbols[c] = 4 + c;
        }
        builder.begin(0, 1, 1, 0, 0x10, 2, 3, 100000, 1016, 0, 42, 43);
        builder.callers(pcs, images, symbols, 0, 40);
        builder.end();
        List<String> atOnce = new ArrayList<>(handed);
        builder.flush();
        atOnce = new ArrayList<>(handed);
        handed.clear();
        sample(0, 0x10, 40);
        builder.flush();
        assertEquals(handed, atOnce);
        assertEquals(1, atOnce.size());
    }
}
