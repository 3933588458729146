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
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * Records every hypercall and every map/bind/unbind as {@code "<domid>:<call>"}; results are 0
 * unless a failure was scripted with {@link #fail}. Keeps just enough state for the daemon to
 * work: who is primary, buffers per domain, bound VIRQ handlers, and the stop flush.
 */
final class FakeXenoprof implements Xenoprof {
    final List<String> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Long> failures = new HashMap<>();
    private final Map<Integer, Integer> vcpus;
    private final int hardwareDomain;
    final Map<Integer, FakeSharedBuffer[]> buffers = new HashMap<>();
    final Map<Integer, VirqHandler> handlers = new LinkedHashMap<>();
    final Map<Integer, DomainType> types = new HashMap<>();
    int numEvents = 2;
    /** Hands out buffers in reverse vCPU order: the daemon must go by vcpu_id, not by index. */
    boolean reversedBuffers;
    int primary = -1;
    int depth;
    XenoprofState state = XenoprofState.IDLE;
    XenoprofStatistics statistics = new XenoprofStatistics(0, 0, 0, 0, 0, 0, 0, 0);
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
        XenoprofOp op = XenoprofOp.ofNumber(opNumber);
        if (throwOn != null && op.name().equals(throwOp)) {
            throw throwOn;
        }
        String name = op.name().toLowerCase();
        String text = switch (op) {
            case SET_ACTIVE -> name + "(" + arg + ")";
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
                int n = vcpus.getOrDefault(caller, 1);
                FakeSharedBuffer[] bs = new FakeSharedBuffer[n];
                for (int v = 0; v < n; v++) {
                    bs[v] = new FakeSharedBuffer(reversedBuffers ? n - 1 - v : v, gb.maxSamples);
                }
                buffers.put(caller, bs);
                gb.nbuf = n;
                gb.bufsize = 64 + (gb.maxSamples - 1) * 16;
                gb.bufGmaddr = 0x1000L * (caller + 1);
                types.put(caller, DomainType.IGNORED);
            }
            case RESERVE_COUNTERS -> state = XenoprofState.COUNTERS_RESERVED;
            case SETUP_EVENTS -> state = XenoprofState.READY;
            case ENABLE_VIRQ -> types.put(caller, DomainType.ACTIVE);
            case START -> state = XenoprofState.PROFILING;
            case STOP -> {
                state = XenoprofState.READY;
                flush();
            }
            case DISABLE_VIRQ -> types.put(caller, DomainType.IGNORED);
            case RELEASE_COUNTERS -> state = XenoprofState.INITIALIZED;
            case SHUTDOWN -> primary = -1;
            default -> {
            }
        }
        return 0;
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
        return new int[0];
    }

    @Override
    public int[] passiveList() {
        return new int[0];
    }

    @Override
    public int backtraceDepth() {
        return depth;
    }

    @Override
    public SharedBuffer[] mapBuffers(int mapper, int owner) {
        calls.add(mapper + ":[map " + owner + "]");
        FakeSharedBuffer[] bs = buffers.get(owner);
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
        return statistics;
    }
}
