package org.hyperprof.testing.vpmu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;

/**
 * A guest's own profiler as the engine runs it: the model's driver against a private copy of the
 * model, replayed register by register through the policy, and its PMI handler.
 */
public final class GuestProfiler {
    public final PhysicalPmu copy;
    private final int[] counters;
    private final int[] controls;
    private final int[] interrupts;
    private final long[] before;
    public long samples;

    public GuestProfiler(PmuModel model, CounterConfig... configs) {
        copy = model.createPmu(0, Map.of());
        copy.setup(configs);
        copy.start();
        counters = copy.counterRegisters();
        controls = copy.controlRegisters();
        interrupts = copy.interruptRegisters();
        before = new long[counters.length];
    }

    /** setup + start as the guest's driver did them on its copy: counters, then controls, then interrupt registers. */
    public void program(Rig rig, int pcpu) {
        for (int r : counters) {
            assertTrue(rig.write(pcpu, r, copy.read(r)));
        }
        for (int r : controls) {
            assertTrue(rig.write(pcpu, r, copy.read(r)));
        }
        for (int r : interrupts) {
            assertTrue(rig.write(pcpu, r, copy.read(r)));
        }
    }

    /** The PMI handler: read every counter, check on the copy, write back what changed and the interrupt registers. */
    public void handle(Rig rig, int pcpu) {
        for (int i = 0; i < counters.length; i++) {
            copy.write(counters[i], rig.read(pcpu, counters[i]));
            before[i] = copy.read(counters[i]);
        }
        samples += copy.checkCounters(counter -> { });
        for (int i = 0; i < counters.length; i++) {
            long now = copy.read(counters[i]);
            if (now != before[i]) {
                rig.write(pcpu, counters[i], now);
            }
        }
        for (int r : interrupts) {
            rig.write(pcpu, r, copy.read(r));
        }
    }
}
