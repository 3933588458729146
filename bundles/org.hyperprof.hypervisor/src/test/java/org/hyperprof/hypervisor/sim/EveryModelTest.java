package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 4: the same workload on every model gives profiles that agree with one another and with
 * the ground truth within sampling error. The default scenario runs on each installed model (its
 * cpu.type overridden; the scenario's P6 options are not passed to the others) with the model's
 * default event, which counts unhalted cycles on every model (P6 and AMD CPU_CLK_UNHALTED, the
 * 970's CYCLES on PMC2) in every mode, so the sample shares estimate the same quantity: each
 * function's share of the cycles the domains ran.
 */
class EveryModelTest {
    static final List<String> MODELS = List.of("i386/p6", "i386/athlon", "x86-64/hammer", "x86-64/family10",
            "x86-64/family15h", "ppc64/970");
    private static final long PERIOD = 100_000;
    private static final int DOM0 = 0;
    private static final int DOMU = 1;
    /** Per model: sample shares by "domain/mode" and by "domain:image:function", of the domains' samples. */
    private static final Map<String, Map<String, Double>> SHARES = new LinkedHashMap<>();
    private static final Map<String, Map<String, Double>> TRUTH = new LinkedHashMap<>();
    private static final Map<String, Long> SAMPLES = new HashMap<>();

    @BeforeAll
    static void profileTheDefaultScenarioOnEveryModel() throws Exception {
        HostServiceImpl service = Fixtures.everyModel();
        for (String cpu : MODELS) {
            SimHost host = (SimHost) service.load(HostService.DEFAULT_SCENARIO, cpu);
            assertEquals(cpu, host.model().cpuType());
            Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), PERIOD));
            host.resetGroundTruth();
            host.run(200_000, null);
            Fixtures.stopProfiling(host, sampled);
            XenoprofStatistics st = host.xenoprof().statistics();
            assertTrue(st.balanced(), cpu + ": " + st);
            Map<String, Double> shares = new HashMap<>();
            long n = 0;
            for (int d : List.of(DOM0, DOMU)) {
                for (long[] e : sampled.mainSamples(d, false)) {
                    shares.merge(d + "/" + CpuMode.ofCode((int) e[1]), 1.0, Double::sum);
                    shares.merge(d + ":" + MultiDomainScenarioTest.functionAt(host.scenario(), d, e[0]), 1.0,
                            Double::sum);
                    n++;
                }
            }
            final long total = n;
            shares.replaceAll((k, v) -> v / total);
            SHARES.put(cpu, shares);
            SAMPLES.put(cpu, total);
            TRUTH.put(cpu, truthShares(host.groundTruth()));
        }
    }

    /** The domains' cycles by "domain/mode" and "domain:image:function", as shares of their total. */
    private static Map<String, Double> truthShares(GroundTruth truth) {
        Map<String, Double> out = new HashMap<>();
        double total = 0;
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() != DOM0 && r.domid() != DOMU) {
                continue;
            }
            double cycles = r.milli(Signal.CYCLES) / 1000.0;
            out.merge(r.domid() + "/" + r.mode(), cycles, Double::sum);
            out.merge(r.domid() + ":" + r.image() + ":" + r.symbol(), cycles, Double::sum);
            total += cycles;
        }
        final double t = total;
        out.replaceAll((k, v) -> v / t);
        return out;
    }

    /** Four standard deviations of a share estimated from {@code n} samples, plus 1 % for the NMI handler's unsampled time. */
    private static double tolerance(double share, long n) {
        return 4 * Math.sqrt(share * (1 - share) / n) + 0.01;
    }

    private static List<String> modeKeys() {
        List<String> keys = new ArrayList<>();
        for (int d : List.of(DOM0, DOMU)) {
            for (CpuMode m : CpuMode.values()) {
                keys.add(d + "/" + m);
            }
        }
        return keys;
    }

    /** The ten functions with the most cycles on the P6 run. */
    private static List<String> hotFunctions() {
        return TRUTH.get("i386/p6").entrySet().stream().filter(e -> e.getKey().contains(":"))
                .sorted((a, b) -> Double.compare(b.getValue(), a.getValue())).limit(10).map(Map.Entry::getKey)
                .toList();
    }

    @Test
    void everyModelSampledTheDefaultScenario() {
        for (String cpu : MODELS) {
            assertTrue(SAMPLES.get(cpu) > 8000, cpu + " took " + SAMPLES.get(cpu) + " samples of the domains");
        }
    }

    @Test
    void eachModelsDomainAndModeSharesAgreeWithTheGroundTruth() {
        assertEachModelAgreesWithTheGroundTruth(modeKeys());
    }

    @Test
    void eachModelsHotFunctionsAgreeWithTheGroundTruth() {
        assertEachModelAgreesWithTheGroundTruth(hotFunctions());
    }

    /** Every model's share of each key is the ground truth's, within the sampling tolerance. */
    private static void assertEachModelAgreesWithTheGroundTruth(List<String> keys) {
        for (String cpu : MODELS) {
            for (String key : keys) {
                double truth = TRUTH.get(cpu).getOrDefault(key, 0.0);
                double share = SHARES.get(cpu).getOrDefault(key, 0.0);
                assertEquals(truth, share, tolerance(truth, SAMPLES.get(cpu)), cpu + " " + key);
            }
        }
    }

    @Test
    void theModelsProfilesAgreeWithOneAnother() {
        List<String> keys = new ArrayList<>(modeKeys());
        keys.addAll(hotFunctions());
        for (String a : MODELS) {
            for (String b : MODELS) {
                for (String key : keys) {
                    double sa = SHARES.get(a).getOrDefault(key, 0.0);
                    double sb = SHARES.get(b).getOrDefault(key, 0.0);
                    double p = (sa + sb) / 2;
                    double n = Math.min(SAMPLES.get(a), SAMPLES.get(b));
                    // The difference of two estimates: sqrt(2) standard deviations of one.
                    assertEquals(sa, sb, 4 * Math.sqrt(2 * p * (1 - p) / n) + 0.01, a + " vs " + b + ": " + key);
                }
            }
        }
    }
}
