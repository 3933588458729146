package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.pmu;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_CTL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_CTL;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.hyperprof.testing.pmu.PmuFixtures.rates;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** cyclesUntilOverflow predicts advance to the cycle, for the core counters and for IBS, however it is sliced. */
class AmdExactnessTest {
    private static final long VAL_BITS = (1L << 49) | (1L << 18);

    /** Fractional rates: 0.85 IPC, 1.3 micro-ops per instruction, unhalted cycles. */
    private static SignalRates workload() {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 850;
        r[Signal.UOPS.ordinal()] = 1105;
        return SignalRates.of(r);
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void theOverflowHappensExactlyAtThePredictedCycleAndNotOneBefore(AmdPmuModel model) throws EventSpecException {
        String inst = model == AmdFixture.ATHLON ? "RETIRED_INSNS" : "RETIRED_INSTRUCTIONS";
        for (long count : new long[] {50_000, 100_000, 123_457}) {
            AmdPmu early = started(model, inst + ":" + count);
            long t = early.cyclesUntilOverflow(workload(), 3);
            early.advance(t - 1, workload(), 3);
            assertFalse(early.interruptPending(), "one cycle early");
            AmdPmu exact = started(model, inst + ":" + count);
            exact.advance(t, workload(), 3);
            assertTrue(exact.interruptPending(), "at the predicted cycle");
            assertEquals(count, Math.floorDiv(t * 850, 1000), "t cycles at 0.85 IPC give exactly count instructions");
        }
    }

    private static AmdPmu started(AmdPmuModel model, String spec) throws EventSpecException {
        AmdPmu pmu = pmu(model);
        pmu.reserve();
        pmu.setup(configs(model, spec));
        pmu.start();
        return pmu;
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void slicingTheRunAtEveryPredictedOverflowGivesTheSameSamplesAsTheMathSays(AmdPmuModel model)
            throws EventSpecException {
        String inst = model == AmdFixture.ATHLON ? "RETIRED_INSNS" : "RETIRED_INSTRUCTIONS";
        AmdPmu pmu = started(model, inst + ":50000");
        long total = 10_000_003;
        long left = total;
        int samples = 0;
        while (left > 0) {
            long step = Math.min(left, pmu.cyclesUntilOverflow(workload(), 1));
            pmu.advance(step, workload(), 1);
            left -= step;
            if (pmu.interruptPending()) {
                pmu.acknowledgeInterrupt();
                samples += pmu.checkCounters(c -> { });
            }
        }
        assertEquals(total * 850 / 1000 / 50_000, samples);
    }

    @Test
    void ibsSamplesHappenExactlyAtThePredictedCycle() {
        for (IbsConfig config : new IbsConfig[] {new IbsConfig(false, true, 0x10000, 0, true, false),
            new IbsConfig(true, false, 0, 0x8000, false, false), new IbsConfig(true, false, 0, 0x8000, false, true)}) {
            for (String caps : new String[] {"0x7", "0x1f"}) {
                AmdPmu early = ibs(caps, config);
                long t = early.cyclesUntilOverflow(workload(), 3);
                early.advance(t - 1, workload(), 3);
                assertFalse(early.interruptPending(), config + " caps " + caps + ": one cycle early");
                AmdPmu exact = ibs(caps, config);
                exact.advance(t, workload(), 3);
                assertTrue(exact.interruptPending(), config + " caps " + caps + ": at the predicted cycle");
                assertTrue(((exact.read(IBS_FETCH_CTL) | exact.read(IBS_OP_CTL)) & VAL_BITS) != 0);
            }
        }
    }

    @Test
    void fetchAndOpSamplingTogetherStayExactSampleAfterSample() {
        for (String caps : new String[] {"0x7", "0x1f"}) {
            AmdPmu pmu = ibs(caps, new IbsConfig(true, true, 0x1230, 0x1110, true, true));
            long[] entries = new long[22];
            for (int i = 0; i < 60; i++) {
                long t = pmu.cyclesUntilOverflow(workload(), 3);
                pmu.advance(t - 1, workload(), 3);
                assertFalse(pmu.interruptPending(), "caps " + caps + " sample " + i + ": one cycle early");
                pmu.advance(1, workload(), 3);
                assertTrue(pmu.interruptPending(), "caps " + caps + " sample " + i + ": at the predicted cycle");
                pmu.acknowledgeInterrupt();
                assertTrue(pmu.checkIbs(entries) > 0);
            }
        }
    }

    private static AmdPmu ibs(String caps, IbsConfig config) {
        AmdPmu pmu = (AmdPmu) FAMILY10.createPmu(0, java.util.Map.of("ibs.caps", caps));
        pmu.reserve();
        pmu.setup(new CounterConfig[0]);
        pmu.setupIbs(config);
        pmu.start();
        return pmu;
    }

    @Test
    void ibsSampleCountOverALongRunMatchesThePeriodsDrawn() {
        AmdPmu pmu = ibs("0x7", new IbsConfig(true, true, 0x4000, 0x4000, true, false));
        long[] entries = new long[22];
        long left = 5_000_000;
        int fetchBlocks = 0;
        int opBlocks = 0;
        long instructions = 0;
        while (left > 0) {
            long step = Math.min(left, pmu.cyclesUntilOverflow(workload(), 3));
            pmu.advance(step, workload(), 3);
            left -= step;
            if (pmu.interruptPending()) {
                pmu.acknowledgeInterrupt();
                int n = pmu.checkIbs(entries);
                for (int k = 0; k < n; k += entries[k] == 13 ? 8 : 14) {
                    if (entries[k] == 13) {
                        fetchBlocks++;
                    } else {
                        assertEquals(14, entries[k]);
                        opBlocks++;
                    }
                }
            }
        }
        instructions = 5_000_000L * 850 / 1000;
        // Fetch periods are 0x4000 minus 0..15 random fetches; op periods 0x400 +-128, times 16, in cycles.
        assertTrue(fetchBlocks >= instructions / 0x4000 && fetchBlocks <= instructions / (0x4000 - 15) + 1,
                "fetch blocks " + fetchBlocks);
        assertTrue(opBlocks >= 5_000_000 / ((0x400 + 127) * 16) && opBlocks <= 5_000_000 / ((0x400 - 128) * 16) + 1,
                "op blocks " + opBlocks);
    }

    @Test
    void nothingCountingMeansNoOverflowAhead() {
        AmdPmu pmu = pmu(FAMILY10);
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(workload(), 3));
        assertEquals(Long.MAX_VALUE, ibs("0x7", new IbsConfig(true, true, 0x4000, 0x4000, true, false))
                .cyclesUntilOverflow(SignalRates.HALTED, 3), "halted time emits no fetches and no cycles");
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 0));
    }
}
