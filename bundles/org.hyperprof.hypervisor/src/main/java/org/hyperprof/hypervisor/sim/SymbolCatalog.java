package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.SymbolRef;

/**
 * Dense ids for every function the simulation can run: all functions of the hypervisor image (so
 * that policies may charge work to any of them) and every function a workload names. A ground-truth
 * row is then {@code slot * size() + id}: no map lookup per slice.
 */
final class SymbolCatalog {
    private final Map<ImageSpec, int[]> ids = new IdentityHashMap<>();
    private final Map<String, Integer> hypervisorByName = new HashMap<>();
    private final List<ImageSpec> imageOf = new ArrayList<>();
    private final List<Integer> indexOf = new ArrayList<>();

    private long[] starts = new long[256];
    private long[] sizes = new long[256];
    private int[] modes = new int[256];
    private long[] sizeReciprocals = new long[0];

    SymbolCatalog(ImageSpec hypervisor) {
        for (int i = 0; i < hypervisor.symbols().size(); i++) {
            int id = id(new SymbolRef(hypervisor, i));
            hypervisorByName.putIfAbsent(hypervisor.symbols().name(i), id);
        }
    }

    /** The id of a function, allocated on first use (only while the host is being built). */
    int id(SymbolRef ref) {
        int[] table = ids.computeIfAbsent(ref.image(), image -> {
            int[] t = new int[image.symbols().size()];
            Arrays.fill(t, -1);
            return t;
        });
        int id = table[ref.index()];
        if (id < 0) {
            id = imageOf.size();
            table[ref.index()] = id;
            imageOf.add(ref.image());
            indexOf.add(ref.index());
            if (id == starts.length) {
                starts = Arrays.copyOf(starts, id * 2);
                sizes = Arrays.copyOf(sizes, id * 2);
                modes = Arrays.copyOf(modes, id * 2);
            }
            starts[id] = ref.start();
            sizes[id] = ref.size();
            modes[id] = modeOf(ref.image().kind()).code();
        }
        return id;
    }

    /** The id of a hypervisor function by name, -1 if the hypervisor image has none. */
    int hypervisorFunction(String name) {
        Integer id = hypervisorByName.get(name);
        return id == null ? -1 : id;
    }

    int size() {
        return imageOf.size();
    }

    long start(int id) {
        return starts[id];
    }

    long size(int id) {
        return sizes[id];
    }

    /** {@link Divisor#reciprocal} of the function's size, for drawing a PC inside it (once the catalog is complete). */
    long sizeReciprocal(int id) {
        return sizeReciprocals[id];
    }

    /**
     * Prepares the reciprocals of every function's size; called once every id is allocated (the
     * engine's construction allocates them all before the first slice).
     */
    void complete() {
        int n = size();
        sizeReciprocals = new long[n];
        for (int id = 0; id < n; id++) {
            sizeReciprocals[id] = Divisor.reciprocal(Math.max(1, sizes[id]));
        }
    }

    /** Xenoprof mode code of the function's code: 0 user, 1 kernel, 2 hypervisor. */
    int mode(int id) {
        return modes[id];
    }

    String name(int id) {
        return imageOf.get(id).symbols().name(indexOf.get(id));
    }

    ImageSpec image(int id) {
        return imageOf.get(id);
    }

    static CpuMode modeOf(ImageKind kind) {
        return switch (kind) {
            case HYPERVISOR -> CpuMode.HYPERVISOR;
            case KERNEL, MODULE -> CpuMode.KERNEL;
            case USER, UNKNOWN -> CpuMode.USER;
        };
    }
}
