package org.hyperprof.hypervisor.sim.scenario;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

import org.hyperprof.api.pmu.CpuMode;

/**
 * Who calls whom in a domain's hypervisor work, as its hypervisor regions' caller chains say: the
 * question it answers is which hypercall handler a piece of hypervisor work serves. A chain may stop
 * short of the handler ({@code get_page_type<get_page_from_l1e<mod_l1_entry}); another chain that
 * goes on from its last caller ({@code mod_l1_entry<do_mmu_update<do_multicall<hypercall}) completes
 * it, so the tree joins every chain's caller edges. Functions are indexes in the hypervisor image's
 * symbol file.
 */
public final class HypercallTree {
    /** Per function: the functions the domain's chains show calling it. */
    private final int[][] callers;
    /** Per function: whether the domain's hypervisor work runs in it or passes through it. */
    private final boolean[] present;

    private HypercallTree(int[][] callers, boolean[] present) {
        this.callers = callers;
        this.present = present;
    }

    /** The tree of a domain's hypervisor regions, over a hypervisor image of {@code functions} symbols. */
    public static HypercallTree of(List<RegionSpec> regions, int functions) {
        List<List<Integer>> edges = new ArrayList<>();
        for (int i = 0; i < functions; i++) {
            edges.add(new ArrayList<>(0));
        }
        boolean[] present = new boolean[functions];
        for (RegionSpec r : regions) {
            if (r.mode() != CpuMode.HYPERVISOR) {
                continue;
            }
            for (WeightedSymbol s : r.symbols()) {
                int callee = s.symbol().index();
                present[callee] = true;
                for (SymbolRef c : s.callers()) {
                    if (!edges.get(callee).contains(c.index())) {
                        edges.get(callee).add(c.index());
                    }
                    present[c.index()] = true;
                    callee = c.index();
                }
            }
        }
        int[][] callers = new int[functions][];
        for (int i = 0; i < functions; i++) {
            callers[i] = edges.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        return new HypercallTree(callers, present);
    }

    /** Whether the domain's hypervisor work runs in {@code function} or below it. */
    public boolean runsUnder(int function) {
        return function >= 0 && function < present.length && present[function];
    }

    /** The functions the domain's hypervisor work runs in or passes through, in index order. */
    public List<Integer> functions() {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < present.length; i++) {
            if (present[i]) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * The handlers nearest to {@code function} among {@code isHandler} (itself at distance 0, its
     * callers at 1, ...), all of those at the least distance; empty when none is above it.
     */
    public int[] nearestHandlers(int function, boolean[] isHandler) {
        int[] distance = new int[callers.length];
        Arrays.fill(distance, -1);
        Deque<Integer> queue = new ArrayDeque<>();
        distance[function] = 0;
        queue.add(function);
        int found = -1;
        List<Integer> out = new ArrayList<>();
        while (!queue.isEmpty()) {
            int f = queue.poll();
            if (found >= 0 && distance[f] > found) {
                break;
            }
            if (isHandler[f]) {
                found = distance[f];
                out.add(f);
                continue; // work below a handler serves that handler, not the ones above it
            }
            for (int c : callers[f]) {
                if (distance[c] < 0) {
                    distance[c] = distance[f] + 1;
                    queue.add(c);
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).sorted().toArray();
    }
}
