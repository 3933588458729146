package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.pmu.Signal;
import org.hyperprof.hypervisor.sim.scenario.CallSite;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.HypercallTree;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.SymbolRef;

/**
 * Books the hypervisor's work on a guest's behalf to the guest function that asked for it.
 *
 * <p>Work of a hypercall (a workload's hypervisor code in or below a handler that the domain's
 * {@code callsite} lines name) goes to the guest functions that make that hypercall, split by their
 * weights. Which handler a function's work serves is the nearest handler above it in the domain's
 * caller chains ({@link HypercallTree}): {@code mod_l1_entry<do_mmu_update<do_multicall} serves
 * {@code do_mmu_update} when a call site names it, else {@code do_multicall}; handlers equally near
 * share by their call sites' weights. It is worked out once per (domain, hypervisor function).
 *
 * <p>All other hypervisor work keeps the rule of a domain without call sites: it is booked to the
 * guest function that entered the hypervisor (the nearest guest slice below on the stack, else the
 * function the vCPU last ran). That covers the context switch, the NMI handler, policy charges and
 * traps, the hypercall entry and exit paths ({@code hypercall}, {@code test_all_events}), and work
 * under handlers no call site names.
 *
 * <p>The per-step path is a table lookup and one add, without allocation: a hypercall's work is
 * added up per (vCPU, hypervisor function) and split among the function's requesters when the
 * ledger is read ({@link #flush}), since a split of the sum is the sum of the splits.
 */
final class CallSites {
    private static final int SHARE_BITS = 20;
    /** Shares are in parts of this. */
    private static final long SHARE = 1L << SHARE_BITS;

    /** Catalog ids below this are the hypervisor image's functions (the catalog allocates them first). */
    private final int hypervisorFunctions;
    private final int[] domainOfSlot;
    /** Per (domain, hypervisor function): where its requesters start in the arrays below; one more at the end. */
    private final int[] first;
    /** Guest function ids of the requesters. */
    private final int[] requester;
    /** Per requester: the share of the work up to and including it, in parts of {@link #SHARE}. */
    private final long[] cumulative;
    /**
     * Per (domain, hypervisor function): its index among the domain's functions with requesters, or
     * -1. A vCPU's claimed rows are {@code rowBase[slot] + index}.
     */
    private final int[] local;
    private final int[] rowBase;
    /** Per claimed row: its vCPU slot and its (domain, hypervisor function). */
    private final int[] rowSlot;
    private final int[] rowFunction;
    /** Work some call site asked for, not yet split, per claimed row, as a ledger adds it. */
    private final long[] claimedMilli;
    private final long[] claimedCycles;
    /**
     * Per claimed row: the rates of its cycles not yet multiplied into {@link #claimedMilli}, and
     * those cycles. A row's work mostly runs at one set of rates, so a step adds its cycles and the
     * products are made when the rates change or the row is read (the sum of the products is the
     * product of the sum, bit for bit, in long arithmetic).
     */
    private final long[][] pendingRates;
    private final long[] pendingCycles;

    /** Allocates the call sites' guest functions in {@code catalog}: make it before the ledger rows are sized. */
    CallSites(Scenario scenario, SymbolCatalog catalog) {
        ImageSpec hypervisor = scenario.hypervisor();
        this.hypervisorFunctions = hypervisor.symbols().size();
        List<DomainSpec> domains = scenario.domains();
        int slots = 0;
        for (DomainSpec d : domains) {
            slots += d.vcpus();
        }
        domainOfSlot = new int[slots];
        first = new int[domains.size() * hypervisorFunctions + 1];
        local = new int[domains.size() * hypervisorFunctions];
        Arrays.fill(local, -1);
        int[] claimedOfDomain = new int[domains.size()];
        List<Integer> who = new ArrayList<>();
        List<Long> upTo = new ArrayList<>();
        int slot = 0;
        for (int di = 0; di < domains.size(); di++) {
            DomainSpec d = domains.get(di);
            for (int v = 0; v < d.vcpus(); v++) {
                domainOfSlot[slot++] = di;
            }
            int[] requesters = new int[d.callSites().size()];
            boolean[] isHandler = new boolean[hypervisorFunctions];
            for (int c = 0; c < requesters.length; c++) {
                requesters[c] = catalog.id(d.callSites().get(c).guestFunction());
                isHandler[d.callSites().get(c).handler().index()] = true;
            }
            HypercallTree tree = requesters.length == 0 ? null : HypercallTree.of(d.regions(), hypervisorFunctions);
            for (int f = 0; f < hypervisorFunctions; f++) {
                if (catalog.id(new SymbolRef(hypervisor, f)) != f) {
                    throw new IllegalStateException("the catalog numbers the hypervisor's functions first");
                }
                first[di * hypervisorFunctions + f] = who.size();
                if (tree == null || !tree.runsUnder(f)) {
                    continue;
                }
                int before = who.size();
                addRequesters(d.callSites(), requesters, tree.nearestHandlers(f, isHandler), who, upTo);
                if (who.size() > before) {
                    local[di * hypervisorFunctions + f] = claimedOfDomain[di]++;
                }
            }
        }
        first[first.length - 1] = who.size();
        requester = who.stream().mapToInt(Integer::intValue).toArray();
        cumulative = upTo.stream().mapToLong(Long::longValue).toArray();
        rowBase = new int[slots];
        int rows = 0;
        for (int v = 0; v < slots; v++) {
            rowBase[v] = rows;
            rows += claimedOfDomain[domainOfSlot[v]];
        }
        rowSlot = new int[rows];
        rowFunction = new int[rows];
        for (int v = 0; v < slots; v++) {
            int di = domainOfSlot[v];
            for (int f = 0; f < hypervisorFunctions; f++) {
                int k = local[di * hypervisorFunctions + f];
                if (k >= 0) {
                    rowSlot[rowBase[v] + k] = v;
                    rowFunction[rowBase[v] + k] = di * hypervisorFunctions + f;
                }
            }
        }
        claimedMilli = new long[Math.multiplyExact(rows, Signal.COUNT)];
        claimedCycles = new long[rows];
        pendingRates = new long[rows][];
        pendingCycles = new long[rows];
    }

    private static void addRequesters(List<CallSite> sites, int[] requesters, int[] handlers, List<Integer> who,
            List<Long> upTo) {
        long total = 0;
        for (CallSite c : sites) {
            if (serves(c, handlers)) {
                total += c.weight();
            }
        }
        long sum = 0;
        for (int c = 0; c < sites.size(); c++) {
            if (serves(sites.get(c), handlers)) {
                sum += sites.get(c).weight();
                who.add(requesters[c]);
                upTo.add(sum == total ? SHARE : (long) ((double) sum / total * SHARE));
            }
        }
    }

    private static boolean serves(CallSite c, int[] handlers) {
        for (int h : handlers) {
            if (c.handler().index() == h) {
                return true;
            }
        }
        return false;
    }

    /** Books {@code step} cycles of hypervisor slice {@code s}, run for guest vCPU {@code v}, in {@code behalf}. */
    void book(GroundTruthLedger behalf, PhysicalCpu p, VirtualCpu v, Slice s, long step) {
        int base = behalf.row(v.slot, 0);
        int fn = s.row - base;
        if (s.kind == Slice.WORK && fn < hypervisorFunctions) {
            int k = local[domainOfSlot[v.slot] * hypervisorFunctions + fn];
            if (k >= 0) {
                int row = rowBase[v.slot] + k;
                long[] rates = s.rateArray;
                if (pendingRates[row] == rates) {
                    pendingCycles[row] += step;
                } else {
                    multiplyIn(row);
                    pendingRates[row] = rates;
                    pendingCycles[row] = step;
                }
                claimedCycles[row] += step;
                return;
            }
        }
        int entered = guestFunctionBelow(p, v, base);
        if (entered >= 0) {
            behalf.add(base + entered, step, s.rateArray);
        }
    }

    /** Adds a row's pending cycles times their rates to its claimed events. */
    private void multiplyIn(int row) {
        long[] rates = pendingRates[row];
        if (rates == null) {
            return;
        }
        long cycles = pendingCycles[row];
        int at = row * Signal.COUNT;
        for (int i = 0; i < Signal.COUNT; i++) {
            claimedMilli[at + i] += cycles * rates[i];
        }
        pendingRates[row] = null;
        pendingCycles[row] = 0;
    }

    /**
     * Moves the hypercall work booked so far into {@code behalf}, each (vCPU, hypervisor function)
     * total split among the function's requesters by their shares (the last takes what rounding
     * left, so no event is lost or made). Call it before reading or resetting {@code behalf}.
     */
    void flush(GroundTruthLedger behalf) {
        long[] milli = new long[Signal.COUNT];
        for (int row = 0; row < claimedCycles.length; row++) {
            if (claimedCycles[row] == 0) {
                continue;
            }
            multiplyIn(row);
            int slot = rowSlot[row];
            int t = rowFunction[row];
            int at = row * Signal.COUNT;
            long before = 0;
            for (int r = first[t]; r < first[t + 1]; r++) {
                long upTo = cumulative[r];
                for (int i = 0; i < Signal.COUNT; i++) {
                    milli[i] = part(claimedMilli[at + i], upTo) - part(claimedMilli[at + i], before);
                }
                behalf.addTotals(behalf.row(slot, requester[r]), milli,
                        part(claimedCycles[row], upTo) - part(claimedCycles[row], before));
                before = upTo;
            }
            Arrays.fill(claimedMilli, at, at + Signal.COUNT, 0);
            claimedCycles[row] = 0;
        }
    }

    /** {@code floor(v * share / SHARE)} for {@code v >= 0}, exact whatever the size of {@code v}. */
    private static long part(long v, long share) {
        if (share == SHARE) {
            return v;
        }
        long high = Math.multiplyHigh(v, share);
        long low = v * share;
        return (high << (64 - SHARE_BITS)) | (low >>> SHARE_BITS);
    }

    /** The guest function the hypervisor was entered from on {@code p}: the nearest guest slice below, else where {@code v} last ran. */
    private static int guestFunctionBelow(PhysicalCpu p, VirtualCpu v, int base) {
        for (int i = p.depth - 1; i >= 0; i--) {
            Slice s = p.stack[i];
            if (s.guestCode()) {
                return s.row - base;
            }
        }
        return v.lastGuestFn;
    }
}
