package org.hyperprof.vpmu.partitioned;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.pmu.p6.P6PmuModel;

import org.hyperprof.testing.vpmu.truth.CountingHost;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Over random sequences of switches (three CPUs, five guest vCPUs and idle, migrations included),
 * guest writes to any PMU register and stretches of counting: no counter ever has two owners.
 * Xenoprof's counters stay Xenoprof's and untouched, each share counter is owned by the vCPU
 * current on its CPU (no one when idle), a vCPU owns counters on one CPU at most, a guest write is
 * refused exactly when it targets Xenoprof's registers, and the hardware share holds the current
 * vCPU's selects.
 */
class AllocatorPropertyTest {
    private static final int CPUS = 3;
    private static final int VCPUS = 5;

    @Property(tries = 300)
    void noCounterEverHasTwoOwnersOnP6(@ForAll @Size(max = 120) List<@IntRange(min = 0, max = 1_000_000) Integer> steps,
            @ForAll @IntRange(min = 1, max = 2) int xenoprof) {
        run(new P6PmuModel(), 0x79, xenoprof, steps);
    }

    @Property(tries = 300)
    void noCounterEverHasTwoOwnersOnAmd(@ForAll @Size(max = 120) List<@IntRange(min = 0, max = 1_000_000) Integer> steps,
            @ForAll @IntRange(min = 1, max = 4) int xenoprof) {
        run(new HammerPmuModel(), 0x76, xenoprof, steps);
    }

    private static void run(PmuModel model, long cyclesEvent, int xenoprof, List<Integer> steps) {
        CountingHost host = new CountingHost(model, CPUS);
        host.options = Map.of("xenoprof-counters", Integer.toString(xenoprof));
        int[] counters = host.pmus[0].counterRegisters().clone();
        int[] selects = host.pmus[0].controlRegisters().clone();
        // Xenoprof's session first, as the hypervisor starts it: its driver owns counters 0..xenoprof-1.
        CounterConfig[] configs = new CounterConfig[counters.length];
        for (int i = 0; i < xenoprof; i++) {
            configs[i] = new CounterConfig(i, model.events().find("CPU_CLK_UNHALTED").orElseThrow(), 0x7FFF_FFFFL, 0,
                    true, true);
        }
        long[][] xenoSelect = new long[CPUS][xenoprof];
        for (int p = 0; p < CPUS; p++) {
            host.pmus[p].real.setup(configs);
            host.pmus[p].real.start();
            for (int i = 0; i < xenoprof; i++) {
                xenoSelect[p][i] = host.pmus[p].real.read(selects[i]);
            }
        }
        PartitionedSession session = (PartitionedSession) new PartitionedPolicy().open(host);
        int[] current = new int[CPUS]; // guest index 0..VCPUS-1, or -1
        java.util.Arrays.fill(current, -1);
        long[] rates = new long[org.hyperprof.api.pmu.Signal.COUNT];
        rates[0] = 1000;
        SignalRates r = SignalRates.of(rates);
        int[] registers = new int[counters.length + selects.length + 1];
        System.arraycopy(counters, 0, registers, 0, counters.length);
        System.arraycopy(selects, 0, registers, counters.length, selects.length);
        registers[registers.length - 1] = 0x340;

        for (int step : steps) {
            int kind = step % 3;
            int pcpu = (step / 3) % CPUS;
            int arg = (step / 9) % (VCPUS + 1);
            int value = step / 54;
            if (kind == 0) {
                int next = arg == VCPUS ? -1 : arg;
                for (int p = 0; p < CPUS; p++) {
                    if (p != pcpu && next >= 0 && current[p] == next) {
                        session.vcpuSwitch(p, 1 + next, 0, -1, 0); // the engine takes it off its old CPU first
                        current[p] = -1;
                    }
                }
                int prev = current[pcpu];
                session.vcpuSwitch(pcpu, prev < 0 ? -1 : 1 + prev, 0, next < 0 ? -1 : 1 + next, 0);
                current[pcpu] = next;
            } else if (kind == 1 && current[pcpu] >= 0) {
                int reg = registers[value % registers.length];
                long v = reg == 0x340 ? 0x400 : value % 2 == 0 ? cyclesEvent | (1L << 16) | (1L << 22) : -value;
                boolean taken = session.guestWrite(pcpu, 1 + current[pcpu], 0, reg, v);
                int index = value % registers.length;
                boolean xenoprofs = (index < counters.length && index < xenoprof)
                        || (index >= counters.length && index - counters.length < xenoprof
                                && index < counters.length + selects.length);
                assertEquals(!xenoprofs, taken, "write to 0x" + Integer.toHexString(reg));
            } else {
                host.pmus[pcpu].real.advance(1 + value % 50_000, r, 3);
            }
            check(session, host, current, counters, selects, xenoprof, xenoSelect);
        }
    }

    private static void check(PartitionedSession session, CountingHost host, int[] current, int[] counters, int[] selects,
            int xenoprof, long[][] xenoSelect) {
        Map<Long, Integer> cpuOf = new HashMap<>();
        for (int p = 0; p < CPUS; p++) {
            for (int i = 0; i < counters.length; i++) {
                long owner = session.owner(p, i);
                if (i < xenoprof) {
                    assertEquals(PartitionedSession.XENOPROF, owner, "Xenoprof's counter " + i + " on CPU " + p);
                    assertEquals(xenoSelect[p][i], host.pmus[p].real.read(selects[i]), "Xenoprof's select untouched");
                    continue;
                }
                long expected = current[p] < 0 ? PartitionedSession.FREE : ((long) (1 + current[p]) << 16);
                assertEquals(expected, owner, "owner of counter " + i + " on CPU " + p);
                if (owner >= 0) {
                    Integer other = cpuOf.putIfAbsent(owner, p);
                    assertEquals(p, other == null ? p : other, "vCPU owns counters on two CPUs");
                    assertEquals(session.guestRead(p, (int) (owner >> 16), 0, selects[i]),
                            host.pmus[p].real.read(selects[i]), "the hardware share holds the owner's select");
                }
            }
        }
    }
}
