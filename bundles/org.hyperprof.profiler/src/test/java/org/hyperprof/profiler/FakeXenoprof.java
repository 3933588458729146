package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;

/**
 * Records every hypercall and every map/bind/unbind as {@code "<domid>:<call>"}; results are 0
 * unless a failure was scripted with {@link #fail}. Keeps just enough state for the daemon to
 * work: who is primary, the lists, buffers per domain and with whom their pages are shared
 * (get_buffer: the caller; set_passive: the primary), bound VIRQ handlers, and the stop flush.
 */
final class FakeXenoprof implements Xenoprof {
    final List<String> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Long> failures = new HashMap<>();
    private final Map<Integer, Integer> vcpus;
    private final int hardwareDomain;
    final Map<Integer, FakeSharedBuffer[]> buffers = new HashMap<>();
    final Map<Integer, VirqHandler> handlers = new LinkedHashMap<>();
    final Map<Integer, DomainType> types = new HashMap<>();
    /** With whom each domain's pages are shared. */
    final Map<Integer, Integer> sharedWith = new HashMap<>();
    final List<Integer> active = new ArrayList<>();
    final List<Integer> passive = new ArrayList<>();
    /** Which domains exist (the host sets it; destroyed ones do not). */
    java.util.function.IntPredicate exists = id -> true;
    int numEvents = 2;
    /** Hands out buffers in reverse vCPU order: the daemon must go by vcpu_id, not by index. */
    boolean reversedBuffers;
    int primary = -1;
    int depth;
    XenoprofState state = XenoprofState.IDLE;
    /** When set, what statistics() answers; otherwise the books are summed from the buffers. */
    XenoprofStatistics statistics;
    /** Samples Xen dropped as corrupted (head or tail out of range), for the summed books. */
    long corrupted;
    /** Every buffer ever allocated, with its domain, destroyed ones included: Xen's statistics outlive them. */
    private final Map<FakeSharedBuffer, Integer> everAllocated = new LinkedHashMap<>();
    private final java.util.Set<Integer> everPassive = new java.util.HashSet<>();
    RuntimeException throwOn;
    String throwOp;

    FakeXenoprof(int hardwareDomain, Map<Integer, Integer> vcpusByDomain) {
        this.hardwareDomain = hardwareDomain;
        this.vcpus = vcpusByDomain;
    }

    /** The next call of {@code op} by {@code domid} returns {@code result}. */
    FakeXenoprof fail(int domid, XenoprofOp op, long result) {
        failures.put(domid + ":" + op, result);
        return this;
    }

    /** Only the hypercalls (not map/bind), in order. */
    List<String> hypercalls() {
        List<String> out = new ArrayList<>();
        for (String c : calls) {
            if (!c.contains("[")) {
                out.add(c);
            }
        }
        return out;
    }

    /** Calls made by one domain, in order, map/bind included. */
    List<String> callsBy(int domid) {
        List<String> out = new ArrayList<>();
        for (String c : calls) {
            if (c.startsWith(domid + ":")) {
                out.add(c.substring(c.indexOf(':') + 1));
            }
        }
        return out;
    }

    @Override
    public long hypercall(int caller, int opNumber, Object arg) {
        if (!exists.test(caller)) {
            throw new IllegalArgumentException("domain " + caller + " does not exist on this host, so it cannot issue"
                    + " XENOPROF hypercalls");
        }
        XenoprofOp op = XenoprofOp.ofNumber(opNumber);
        if (throwOn != null && op.name().equals(throwOp)) {
            throw throwOn;
        }
        String name = op.name().toLowerCase();
        String text = switch (op) {
            case SET_ACTIVE -> name + "(" + arg + ")";
            case SET_PASSIVE -> name + "(" + ((XenoprofPassive) arg).domainId + "," + ((XenoprofPassive) arg).maxSamples + ")";
            case SET_BACKTRACE -> name + "(" + arg + ")";
            case GET_BUFFER -> name + "(" + ((XenoprofGetBuffer) arg).maxSamples + ")";
            case COUNTER -> {
                XenoprofCounter c = (XenoprofCounter) arg;
                yield name + "(" + c.ind + (c.enabled != 0 ? ",event=0x" + Integer.toHexString(c.event) + ",count="
                        + c.count + ",um=0x" + Long.toHexString(c.unitMask) + ",k=" + c.kernel + ",u=" + c.user : ",off")
                        + ")";
            }
            default -> name;
        };
        calls.add(caller + ":" + text);
        Long failure = failures.remove(caller + ":" + op);
        if (failure != null) {
            return failure;
        }
        switch (op) {
            case INIT -> {
                XenoprofInit init = (XenoprofInit) arg;
                init.numEvents = numEvents;
                init.cpuType = "i386/p6";
                if (primary == caller || (primary < 0 && caller == hardwareDomain)) {
                    primary = caller;
                    init.isPrimary = 1;
                    state = XenoprofState.INITIALIZED;
                }
            }
            case GET_BUFFER -> {
                XenoprofGetBuffer gb = (XenoprofGetBuffer) arg;
                types.put(caller, DomainType.IGNORED);
                Integer holder = sharedWith.get(caller);
                if (holder != null && holder != caller) {
                    return -16;
                }
                FakeSharedBuffer[] bs = allocate(caller, gb.maxSamples);
                sharedWith.put(caller, caller);
                resetIndices(caller);
                gb.nbuf = bs.length;
                gb.bufsize = 64 + (bs[0].size() - 1) * 16;
                gb.bufGmaddr = 0x1000L * (caller + 1);
            }
            case RESET_ACTIVE_LIST -> active.clear();
            case SET_ACTIVE -> {
                if (!exists.test((Integer) arg) || !vcpus.containsKey((Integer) arg)) {
                    return -22;
                }
                active.add((Integer) arg);
            }
            case RESET_PASSIVE_LIST -> resetPassive();
            case SET_PASSIVE -> {
                XenoprofPassive p = (XenoprofPassive) arg;
                if (!exists.test(p.domainId) || !vcpus.containsKey(p.domainId)) {
                    return -22;
                }
                if (sharedWith.containsKey(p.domainId)) {
                    return -16;
                }
                FakeSharedBuffer[] bs = allocate(p.domainId, p.maxSamples);
                sharedWith.put(p.domainId, caller);
                types.put(p.domainId, DomainType.PASSIVE);
                passive.add(p.domainId);
                everPassive.add(p.domainId);
                p.nbuf = bs.length;
                p.bufsize = 64 + (bs[0].size() - 1) * 16;
                p.bufGmaddr = 0x1000L * (p.domainId + 1);
            }
            case SET_BACKTRACE -> depth = (int) (long) (Long) arg;
            case RESERVE_COUNTERS -> state = XenoprofState.COUNTERS_RESERVED;
            case SETUP_EVENTS -> state = XenoprofState.READY;
            case ENABLE_VIRQ -> {
                if (caller == primary) {
                    for (int d : passive) {
                        resetIndices(d);
                    }
                }
                resetIndices(caller);
                types.put(caller, DomainType.ACTIVE);
            }
            case START -> state = XenoprofState.PROFILING;
            case STOP -> {
                state = XenoprofState.READY;
                flush();
            }
            case DISABLE_VIRQ -> {
                types.put(caller, DomainType.IGNORED);
                sharedWith.remove(caller);
            }
            case RELEASE_COUNTERS -> {
                state = XenoprofState.INITIALIZED;
                resetPassive();
            }
            case SHUTDOWN -> {
                primary = -1;
                depth = 0;
            }
            default -> {
            }
        }
        return 0;
    }

    private void resetPassive() {
        for (int d : passive) {
            types.put(d, DomainType.IGNORED);
            sharedWith.remove(d);
        }
        passive.clear();
    }

    /** Xen's xenoprof_reset_buf: head and tail of every buffer of the domain back to 0. */
    private void resetIndices(int domid) {
        FakeSharedBuffer[] bs = buffers.get(domid);
        if (bs != null) {
            for (FakeSharedBuffer b : bs) {
                b.position(0);
            }
        }
    }

    /** Buffers of a domain, allocated on first use (kept until the domain is destroyed). */
    private FakeSharedBuffer[] allocate(int domid, int maxSamples) {
        FakeSharedBuffer[] bs = buffers.get(domid);
        if (bs == null) {
            int n = vcpus.getOrDefault(domid, 1);
            bs = new FakeSharedBuffer[n];
            for (int v = 0; v < n; v++) {
                bs[v] = new FakeSharedBuffer(reversedBuffers ? n - 1 - v : v, maxSamples);
                everAllocated.put(bs[v], domid);
            }
            buffers.put(domid, bs);
        }
        return bs;
    }

    /** The host destroyed the domain: its buffers, list entries and VIRQ binding go. */
    void destroyed(int domid) {
        buffers.remove(domid);
        types.remove(domid);
        sharedWith.remove(domid);
        sharedWith.values().removeIf(v -> v == domid);
        active.remove(Integer.valueOf(domid));
        passive.remove(Integer.valueOf(domid));
        handlers.remove(domid);
        if (primary == domid) {
            primary = -1;
        }
    }

    /** XENOPROF_stop's flush: VIRQ_XENOPROF to every vCPU of every bound (active) domain. */
    void flush() {
        for (Map.Entry<Integer, VirqHandler> e : new ArrayList<>(handlers.entrySet())) {
            FakeSharedBuffer[] bs = buffers.get(e.getKey());
            for (int v = 0; bs != null && v < bs.length; v++) {
                e.getValue().virq(v);
            }
        }
    }

    /** Delivers VIRQ_XENOPROF to one vCPU of a domain, as the NMI continuation does. */
    void virq(int domid, int vcpu) {
        handlers.get(domid).virq(vcpu);
    }

    FakeSharedBuffer buffer(int domid, int vcpu) {
        for (FakeSharedBuffer b : buffers.get(domid)) {
            if (b.vcpuId() == vcpu) {
                return b;
            }
        }
        throw new IllegalArgumentException("no buffer for vcpu " + vcpu + " of domain " + domid);
    }

    @Override
    public String explain(int caller, XenoprofOp op, long result) {
        return "EXPLAIN " + op.cName() + " by domain " + caller + " returned " + result
                + ": state " + state + "; next step: domain 0 runs --start-daemon";
    }

    @Override
    public XenoprofState state() {
        return state;
    }

    @Override
    public int primary() {
        return primary;
    }

    @Override
    public DomainType domainType(int domid) {
        return types.getOrDefault(domid, DomainType.IGNORED);
    }

    @Override
    public int activeListSize() {
        return 0;
    }

    @Override
    public int activated() {
        return 0;
    }

    @Override
    public int[] activeList() {
        return active.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public int[] passiveList() {
        return passive.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public int backtraceDepth() {
        return depth;
    }

    @Override
    public SharedBuffer[] mapBuffers(int mapper, int owner) {
        calls.add(mapper + ":[map " + owner + "]");
        FakeSharedBuffer[] bs = buffers.get(owner);
        Integer holder = sharedWith.get(owner);
        if (bs != null && (holder == null || holder != mapper)) {
            throw new IllegalStateException("domain " + mapper + " cannot map the buffers of domain " + owner
                    + ": they are shared with " + (holder == null ? "nobody" : "domain " + holder));
        }
        if (bs == null) {
            throw new IllegalStateException("domain " + owner + " has no buffers shared with domain " + mapper
                    + "; XENOPROF_get_buffer would share them");
        }
        return bs.clone();
    }

    @Override
    public void bindVirq(int domid, VirqHandler handler) {
        calls.add(domid + ":[bind]");
        handlers.put(domid, handler);
    }

    @Override
    public void unbindVirq(int domid) {
        calls.add(domid + ":[unbind]");
        handlers.remove(domid);
    }

    @Override
    public XenoprofStatistics statistics() {
        if (statistics != null) {
            return statistics;
        }
        long active = 0;
        long passiveSamples = 0;
        long lost = 0;
        for (Map.Entry<FakeSharedBuffer, Integer> e : everAllocated.entrySet()) {
            FakeSharedBuffer b = e.getKey();
            long delivered = b.user + b.kernel + b.xen;
            if (everPassive.contains(e.getValue())) {
                passiveSamples += delivered;
            } else {
                active += delivered;
            }
            lost += b.lost;
        }
        return new XenoprofStatistics(active + passiveSamples + lost + corrupted, active, passiveSamples, lost, 0, 0, 0,
                corrupted);
    }
}
