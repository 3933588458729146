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
                    + b.weight[i] + " t" + b.time[i] + " cpu" + b.cpu[i] + " " + b.pid[i] + "/" + b.tid[i]
                    + (b.flags[i] == 0 ? "" : " f" + b.flags[i]));
            for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                s.append(" <- 0x").append(Long.toHexString(b.chainPc[c])).append(' ').append(b.chainImage[c]).append(':')
                        .append(b.chainSymbol[c]).append(" m").append(b.chainMode[c]);
            }
            handed.add(s.toString());
        }
    }

    /** A sample of domain {@code d} at {@code pc} with {@code callers} callers. */
    private void sample(int d, long pc, int callers) {
        builder.begin(d, 1, 1, 0, pc, 2, 3, 100000, 1000 + pc, 0, 42, 43);
        for (int c = 0; c < callers; c++) {
            builder.caller(pc + 0x100 + c, 2, 4 + c, c % 2);
        }
        builder.end();
    }

    @Test
    void everyColumnAndEachSamplesCallersAreHandedOnInOrder() {
        sample(0, 0x10, 2);
        sample(1, 0x20, 0);
        builder.flush();
        assertEquals(List.of("d0 v1 m1 c0 0x10 2:3 w100000 t1016 cpu0 42/43 <- 0x110 2:4 m0 <- 0x111 2:5 m1",
                "d1 v1 m1 c0 0x20 2:3 w100000 t1032 cpu0 42/43"), handed);
    }

    @Test
    void aResetRemovesOneDomainsPendingSamplesAndKeepsTheOthersWithTheirFlagsAndCallers() {
        sample(0, 0x10, 1);
        sample(1, 0x20, 2);
        builder.begin(0, 1, 1, 0, 0x30, 2, 3, 100000, 1048, 0, 42, 43);
        builder.flag(SampleBatch.CHAIN_FROM_PC);
        for (int c = 0; c < 3; c++) {
            builder.caller(0x30 + 0x100 + c, 2, 4 + c, c % 2);
        }
        builder.end();
        sample(2, 0x40, 0);
        sample(1, 0x50, 1);
        assertEquals(2, builder.discardDomain(1));
        assertEquals(3, builder.pending());
        sample(1, 0x60, 1);
        builder.flush();
        assertEquals(List.of("d0 v1 m1 c0 0x10 2:3 w100000 t1016 cpu0 42/43 <- 0x110 2:4 m0",
                "d0 v1 m1 c0 0x30 2:3 w100000 t1048 cpu0 42/43 f1 <- 0x130 2:4 m0 <- 0x131 2:5 m1 <- 0x132 2:6 m0",
                "d2 v1 m1 c0 0x40 2:3 w100000 t1064 cpu0 42/43",
                "d1 v1 m1 c0 0x60 2:3 w100000 t1096 cpu0 42/43 <- 0x160 2:4 m0"), handed);
    }

    @Test
    void aCallerWithNoSampleOpenIsIgnoredAndNothingIsTakenOnceClosed() {
        builder.caller(0x99, 0, 0, 0);
        builder.flag(SampleBatch.CHAIN_FROM_PC);
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
        byte[] modes = new byte[40];
        for (int c = 0; c < 40; c++) {
            pcs[c] = 0x10 + 0x100 + c;
            images[c] = 2;
            symbols[c] = 4 + c;
            modes[c] = (byte) (c % 2);
        }
        builder.begin(0, 1, 1, 0, 0x10, 2, 3, 100000, 1016, 0, 42, 43);
        builder.callers(pcs, images, symbols, modes, 0, 40);
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
