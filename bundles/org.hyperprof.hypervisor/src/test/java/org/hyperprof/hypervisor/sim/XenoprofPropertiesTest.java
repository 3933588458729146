package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.hypervisor.xenoprof.XenoprofBuffer;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Property-based tests over random hosts and random operation sequences: generated scenarios of 1
 * to 4 physical CPUs and 1 to 5 domains with random roles, loads and buffer sizes, driven by random
 * hypercalls (legal and in any wrong order), runs, pauses, destructions, hostile index writes and
 * daemons that stop draining. Every domain's images lie at addresses of their own, so an entry's
 * address tells which domain ran it.
 *
 * <p>Accounting, precisely. Session: Xen's statistics balance, {@code total = active + passive +
 * lost + others + invalid + corrupted}, and {@code total} equals the samples the machine took since
 * the primary's last {@code enable_virq} in READY (which resets them). Per buffer: every sample
 * aimed at a buffer ends as exactly one of written ({@code user + kernel + xen} samples), lost (ring
 * full) or corrupted (head or tail out of range); so, summed over every buffer that existed since
 * the reset (freed ones included), written = active + passive, lost = lost and corrupted =
 * corrupted.
 *
 * <p>Isolation: every entry a daemon reads from a domain's buffer (sample, return address) lies in
 * that domain's own images or the hypervisor image; a slot never written reads 0 and is only ever
 * exposed through indices a hostile guest wrote. A passive domain's buffers can be mapped by the
 * primary that listed it (the hardware domain) and by nobody else.
 */
class XenoprofPropertiesTest {

    // ------------------------------------------------------------------------------- generated host

    enum Role { ACTIVE, PASSIVE, UNLISTED }

    record Dom(int vcpus, boolean hvm, int loadPercent, Role role, int kernelWeight, int userWeight, int xenWeight) {
    }

    record HostSpec(int pcpus, List<Dom> domains, int activeSlots, int depth, int period, boolean startSession,
            long seed) {
    }

    sealed interface Step permits Run, Call, Pause, Unpause, Destroy, Hostile, Stall, Resume, Stop {
    }

    record Run(int micros) implements Step {
    }

    record Call(int caller, int op, int arg) implements Step {
    }

    record Pause(int domain) implements Step {
    }

    record Unpause(int domain) implements Step {
    }

    record Destroy(int domain) implements Step {
    }

    record Hostile(int domain, int vcpu, boolean head, int value) implements Step {
    }

    record Stall(int domain) implements Step {
    }

    record Resume(int domain) implements Step {
    }

    record Stop() implements Step {
    }

    @Provide
    Arbitrary<HostSpec> hosts() {
        Arbitrary<Dom> dom = Combinators.combine(Arbitraries.integers().between(1, 3), Arbitraries.of(false, false, true),
                Arbitraries.integers().between(10, 90), Arbitraries.of(Role.ACTIVE, Role.PASSIVE, Role.PASSIVE,
                        Role.UNLISTED),
                Arbitraries.integers().between(1, 5), Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 3)).as(Dom::new);
        return Combinators.combine(Arbitraries.integers().between(1, 4), dom.list().ofMinSize(1).ofMaxSize(5),
                Arbitraries.of(4, 8, 16, 64), Arbitraries.of(0, 0, 1, 3, 5), Arbitraries.of(3_000, 20_000, 100_000),
                Arbitraries.of(true, true, true, false), Arbitraries.longs()).as(HostSpec::new);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Integer> domain = Arbitraries.integers().between(0, 4);
        Arbitrary<Step> run = Arbitraries.integers().between(200, 6_000).map(m -> (Step) new Run(m));
        Arbitrary<Step> call = Combinators.combine(domain, Arbitraries.integers().between(-1, XenoprofOp.LAST_OP + 1),
                Arbitraries.integers().between(0, 1000)).as((c, op, arg) -> (Step) new Call(c, op, arg));
        Arbitrary<Step> hostile = Combinators.combine(domain, Arbitraries.integers().between(0, 2),
                Arbitraries.of(true, false), Arbitraries.of(-7, -1, 3, 64, 2048, 9999))
                .as((d, v, head, value) -> (Step) new Hostile(d, v, head, value));
        Arbitrary<Step> pause = domain.map(d -> (Step) new Pause(d));
        Arbitrary<Step> unpause = domain.map(d -> (Step) new Unpause(d));
        Arbitrary<Step> destroy = domain.map(d -> (Step) new Destroy(d));
        Arbitrary<Step> stall = domain.map(d -> (Step) new Stall(d));
        Arbitrary<Step> resume = domain.map(d -> (Step) new Resume(d));
        Arbitrary<Step> stop = Arbitraries.just((Step) new Stop());
        // Runs dominate, so that the sessions the calls leave standing take samples.
        Arbitrary<Step> step = Arbitraries.frequencyOf(Tuple.of(12, run), Tuple.of(5, call), Tuple.of(1, pause),
                Tuple.of(1, unpause), Tuple.of(1, destroy), Tuple.of(4, hostile), Tuple.of(2, stall),
                Tuple.of(1, resume), Tuple.of(1, stop));
        return step.list().ofMinSize(1).ofMaxSize(30);
    }

    static final long KERNEL_BASE = 0xc0100000L;
    static final long KERNEL_SPAN = 0x20000L;
    static final long KERNEL_STRIDE = 0x01000000L;
    static final long USER_BASE = 0x08048000L;
    static final long USER_SPAN = 0x1000L;
    static final long USER_STRIDE = 0x00100000L;
    static final long XEN_START = 0xff100000L;
    static final long XEN_END = 0xff12a000L;

    /** The scenario text: domain i's kernel and process are moved by i strides, so that no two domains share an address. */
    static String scenarioText(HostSpec spec) {
        StringBuilder b = new StringBuilder();
        b.append("scenario generated\ncpu.type i386/p6\ncpu.mhz 1000\ncpu.count ").append(spec.pcpus())
                .append("\nseed ").append(spec.seed()).append('\n')
                .append("cost.switch 2000 context_switch=1 __context_switch=1\n")
                .append("cost.nmi 800 do_nmi=1 nmi_callback=1\ncost.idle 600 idle_loop\ncost.halt default_idle\n")
                .append("hypervisor xen-syms 0xff100000-0xff12a000 symbols/xen-syms-3.0.map\n");
        for (int i = 0; i < spec.domains().size(); i++) {
            Dom d = spec.domains().get(i);
            long kernel = KERNEL_BASE + i * KERNEL_STRIDE;
            long user = USER_BASE + i * USER_STRIDE;
            b.append("domain ").append(i).append(" d").append(i).append(" type=")
                    .append(i > 0 && d.hvm() ? "hvm" : "pv").append(" vcpus=").append(d.vcpus()).append(" load=0.")
                    .append(String.format("%02d", d.loadPercent())).append(" burst.us=300")
                    .append(i == 0 ? " hardware=yes" : "").append('\n');
            b.append(String.format("kernel kernel 0x%x-0x%x symbols/vmlinux-syms-2.6.16-xenU.map bias=0x%x%n", kernel,
                    kernel + KERNEL_SPAN, i * KERNEL_STRIDE));
            b.append(String.format("process rcv22 0x%x-0x%x symbols/rcv22.map bias=0x%x%n", user, user + USER_SPAN,
                    i * USER_STRIDE));
            b.append("region k kernel kernel weight=").append(d.kernelWeight()).append('\n')
                    .append("symbol tcp_v4_rcv<ip_local_deliver_finish<ip_local_deliver<ip_rcv_finish 3\n")
                    .append("symbol netif_poll<net_rx_action<__do_softirq 2\n")
                    .append("symbol __copy_to_user_ll<memcpy_toiovec<skb_copy_datagram_iovec<tcp_recvmsg 4\n");
            b.append("region u user rcv22 weight=").append(d.userWeight()).append('\n')
                    .append("symbol main 1\nsymbol timeval_diff<report<main 1\n");
            b.append("region x hypervisor xen-syms weight=").append(d.xenWeight()).append('\n')
                    .append("symbol mod_l1_entry<do_mmu_update<do_multicall<hypercall 2\n")
                    .append("symbol evtchn_send<do_event_channel_op<hypercall 1\n");
        }
        return b.toString();
    }

    // ------------------------------------------------------------------------------------ harness

    /** Plays every domain's kernel driver and daemon, and checks what they read as they read it. */
    static final class Harness {
        final HostSpec spec;
        final SimHost host;
        final Xenoprof x;
        final int n;
        /** Each domain's own mapped buffers, and the passive buffers the primary mapped, by owner. */
        final Map<Integer, SharedBuffer[]> own = new HashMap<>();
        final Map<Integer, SharedBuffer[]> passiveMapped = new HashMap<>();
        final Set<Integer> stalled = new HashSet<>();
        final Set<Integer> bound = new HashSet<>();
        /** Buffers a hostile guest wrote indices into: they may expose never-written slots. */
        final Set<SharedBuffer> tainted = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        /** Every buffer that ever existed, with its counters at the last statistics reset. */
        final Map<XenoprofBuffer, long[]> baseline = new IdentityHashMap<>();
        long takenSinceReset;
        long entriesRead;

        Harness(HostSpec spec) throws Exception {
            this.spec = spec;
            this.host = Fixtures.host(scenarioText(spec));
            this.x = host.xenoprof();
            this.n = spec.domains().size();
        }

        boolean destroyed(int d) {
            return host.domainState(d) == DomainState.DESTROYED;
        }

        /** A hypercall as a domain's kernel makes it, with the driver's reaction to success. */
        long call(int caller, XenoprofOp op, Object arg) {
            if (destroyed(caller)) {
                assertThrows(IllegalArgumentException.class, () -> x.hypercall(caller, op, arg),
                        "a destroyed domain issues no hypercall");
                return Long.MIN_VALUE;
            }
            boolean resets = op == XenoprofOp.ENABLE_VIRQ && caller == x.primary()
                    && x.state() == XenoprofState.READY;
            long r = x.hypercall(caller, op, arg);
            if (resets) {
                resetBaseline();
            }
            if (r == 0 && op == XenoprofOp.GET_BUFFER) {
                mapOwn(caller);
            } else if (r == 0 && op == XenoprofOp.SET_PASSIVE) {
                int target = ((XenoprofPassive) arg).domainId;
                passiveMapped.put(target, x.mapBuffers(caller, target));
            } else if (r == 0 && (op == XenoprofOp.RESET_PASSIVE_LIST || op == XenoprofOp.RELEASE_COUNTERS)) {
                passiveMapped.clear(); // the driver unmaps them
            }
            track();
            return r;
        }

        void mapOwn(int d) {
            SharedBuffer[] buffers;
            try {
                buffers = x.mapBuffers(d, d);
            } catch (IllegalStateException e) {
                return; // an HVM guest gets no usable address: nothing to map, nothing to drain
            }
            own.put(d, buffers);
            if (bound.add(d)) {
                x.bindVirq(d, vcpu -> virq(d, vcpu));
            }
        }

        /** xenoprof_ovf_interrupt: the buffer of that vCPU, then (primary) every passive buffer. */
        void virq(int d, int vcpu) {
            SharedBuffer[] mine = own.get(d);
            if (mine != null) {
                for (SharedBuffer b : mine) {
                    if (b.vcpuId() == vcpu) {
                        drain(d, d, b);
                    }
                }
            }
            if (d == x.primary()) {
                passiveMapped.forEach((owner, buffers) -> {
                    for (SharedBuffer b : buffers) {
                        drain(d, owner, b);
                    }
                });
            }
        }

        void drain(int reader, int owner, SharedBuffer b) {
            if (stalled.contains(reader)) {
                return;
            }
            int head = b.head();
            int tail = b.tail();
            if (head < 0 || head >= b.size() || tail < 0 || tail >= b.size()) {
                return;
            }
            while (tail != head) {
                long eip = b.eip(tail);
                if (eip != SharedBuffer.ESCAPE_CODE) {
                    assertBelongsTo(owner, eip, tainted.contains(b));
                }
                entriesRead++;
                tail = tail + 1 == b.size() ? 0 : tail + 1;
            }
            b.writeTail(tail);
        }

        void assertBelongsTo(int owner, long eip, boolean taintedBuffer) {
            if (eip == 0 && taintedBuffer) {
                return; // a slot never written, exposed by a hostile index
            }
            long kernel = KERNEL_BASE + owner * KERNEL_STRIDE;
            long user = USER_BASE + owner * USER_STRIDE;
            boolean ownImage = eip >= kernel && eip < kernel + KERNEL_SPAN || eip >= user && eip < user + USER_SPAN;
            boolean xen = eip >= XEN_START && eip < XEN_END;
            assertTrue(ownImage || xen, "dom" + owner + "'s buffer holds 0x" + Long.toHexString(eip)
                    + ", which is neither its own code nor Xen's");
        }

        /** Notes buffers as they appear (they are kept after their domain is destroyed). */
        void track() {
            for (int d = 0; d < n; d++) {
                for (XenoprofBuffer b : host.xenoprofCore().buffers(d)) {
                    baseline.putIfAbsent(b, new long[3]);
                }
            }
        }

        void resetBaseline() {
            takenSinceReset = 0;
            track();
            baseline.replaceAll((b, old) -> counts(b));
        }

        static long[] counts(XenoprofBuffer b) {
            return new long[] {b.userSamples() + b.kernelSamples() + b.xenSamples(), b.lostSamples(),
                b.corruptedSamples()};
        }

        void run(int micros) throws Exception {
            takenSinceReset += host.run(micros, null);
            track();
        }

        /** opcontrol's sequence for the generated roles: dom0 primary, then every daemon, then start. */
        void startSession() {
            List<Integer> active = new ArrayList<>();
            List<Integer> passive = new ArrayList<>();
            for (int d = 0; d < n; d++) {
                Role role = spec.domains().get(d).role();
                if (role == Role.ACTIVE) {
                    active.add(d);
                } else if (role == Role.PASSIVE && d != 0) {
                    passive.add(d);
                }
            }
            call(0, XenoprofOp.INIT, new XenoprofInit());
            call(0, XenoprofOp.RESET_ACTIVE_LIST, null);
            for (int d : active) {
                call(0, XenoprofOp.SET_ACTIVE, d);
            }
            call(0, XenoprofOp.RESET_PASSIVE_LIST, null);
            for (int d : passive) {
                call(0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(d, 2048));
            }
            for (int d : active) {
                call(d, XenoprofOp.INIT, new XenoprofInit());
                call(d, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(spec.activeSlots()));
            }
            if (spec.depth() > 0) {
                call(0, XenoprofOp.SET_BACKTRACE, (long) spec.depth());
            }
            call(0, XenoprofOp.RESERVE_COUNTERS, null);
            call(0, XenoprofOp.COUNTER, counter(0, spec.period()));
            call(0, XenoprofOp.SETUP_EVENTS, null);
            for (int d : active) {
                call(d, XenoprofOp.ENABLE_VIRQ, null);
            }
            if (!active.contains(0)) {
                call(0, XenoprofOp.ENABLE_VIRQ, null); // installs the callback, then fails its own list check
            }
            call(0, XenoprofOp.START, null);
        }

        static XenoprofCounter counter(int ind, long period) {
            XenoprofCounter c = new XenoprofCounter();
            c.ind = ind;
            c.count = period;
            c.enabled = 1;
            c.event = Fixtures.CPU_CLK_UNHALTED;
            c.kernel = 1;
            c.user = 1;
            return c;
        }

        Object argument(XenoprofOp op, int sel) {
            if (sel % 23 == 0) {
                return "garbage"; // a bad guest pointer
            }
            int target = sel % (n + 1) == n ? 99 : sel % (n + 1);
            return switch (op) {
                case INIT -> new XenoprofInit();
                case SET_ACTIVE -> target;
                case SET_PASSIVE -> new XenoprofPassive(target, new int[] {16, 64, 2048}[sel % 3]);
                case COUNTER -> counter(sel % 3, new int[] {3_000, 20_000, 100_000}[sel % 3]);
                case GET_BUFFER -> new XenoprofGetBuffer(new int[] {4, 16, 64, 2048}[sel % 4]);
                case SET_BACKTRACE -> (long) (sel % 7);
                case IBS_COUNTER -> new XenoprofIbsCounter();
                default -> null;
            };
        }

        void apply(Step step) throws Exception {
            if (step instanceof Run r) {
                run(r.micros());
            } else if (step instanceof Call c) {
                int caller = c.caller() % n;
                XenoprofOp op = XenoprofOp.ofNumber(c.op());
                if (op == null) {
                    if (!destroyed(caller)) {
                        assertEquals(-22, x.hypercall(caller, c.op(), null), "an op outside 0..17 is -EINVAL");
                    }
                } else {
                    call(caller, op, argument(op, c.arg()));
                }
            } else if (step instanceof Pause p) {
                lifecycle(p.domain() % n, true, () -> host.pauseDomain(p.domain() % n));
            } else if (step instanceof Unpause u) {
                lifecycle(u.domain() % n, false, () -> host.unpauseDomain(u.domain() % n));
            } else if (step instanceof Destroy d) {
                lifecycle(d.domain() % n, true, () -> host.destroyDomain(d.domain() % n));
            } else if (step instanceof Hostile h) {
                // The guest is one of the domains that have buffers: the others have nothing to wreck.
                List<Integer> withBuffers = new ArrayList<>();
                for (int d = 0; d < n; d++) {
                    if (host.xenoprofCore().buffers(d).length > 0) {
                        withBuffers.add(d);
                    }
                }
                XenoprofBuffer[] bs = withBuffers.isEmpty() ? new XenoprofBuffer[0]
                        : host.xenoprofCore().buffers(withBuffers.get(h.domain() % withBuffers.size()));
                if (bs.length > 0) {
                    XenoprofBuffer b = bs[h.vcpu() % bs.length];
                    if (h.head()) {
                        b.writeHead(h.value());
                    } else {
                        b.writeTail(h.value());
                    }
                    tainted.add(b);
                }
            } else if (step instanceof Stall s) {
                stalled.add(s.domain() % n);
            } else if (step instanceof Resume r) {
                stalled.remove(r.domain() % n);
            } else if (step instanceof Stop) {
                call(0, XenoprofOp.STOP, null);
            }
        }

        void lifecycle(int d, boolean refusedForDom0, Runnable change) {
            if (d == 0 && refusedForDom0) {
                assertThrows(IllegalArgumentException.class, change::run, "the hardware domain stays");
            } else if (destroyed(d)) {
                assertThrows(IllegalStateException.class, change::run, "a destroyed domain stays destroyed");
            } else {
                change.run();
            }
        }

        /** The end of a session: stop, then every daemon reads what is left. */
        void finish() {
            stalled.clear();
            call(0, XenoprofOp.STOP, null);
            for (int d = 0; d < n; d++) {
                virq(d, 0);
                SharedBuffer[] mine = own.get(d);
                if (mine != null) {
                    for (SharedBuffer b : mine) {
                        drain(d, d, b);
                    }
                }
            }
        }

        void assertAccounting() {
            XenoprofStatistics s = x.statistics();
            assertTrue(s.balanced(), "taken = delivered + lost + dropped + invalid: " + s);
            assertEquals(takenSinceReset, s.totalSamples(), "the samples the machine took since the reset");
            long written = 0;
            long lost = 0;
            long corrupted = 0;
            for (Map.Entry<XenoprofBuffer, long[]> e : baseline.entrySet()) {
                long[] now = counts(e.getKey());
                written += now[0] - e.getValue()[0];
                lost += now[1] - e.getValue()[1];
                corrupted += now[2] - e.getValue()[2];
            }
            assertEquals(s.delivered(), written, "written into buffers = active + passive: " + s);
            assertEquals(s.lostSamples(), lost, "lost on full buffers: " + s);
            assertEquals(s.corruptedBufferSamples(), corrupted, "corrupted on buffers: " + s);
        }

        /**
         * Passive buffers are shared with the primary that listed them, which is always the hardware
         * domain (dom0): it keeps them mapped even after shutdown cleared the primary (shutdown does not
         * reset the passive list), and no other domain can map them.
         */
        void assertOnlyThePrimaryMapsPassiveBuffers() {
            for (int p : x.passiveList()) {
                for (int d = 0; d < n; d++) {
                    if (d == 0) {
                        assertEquals(host.xenoprofCore().buffers(p).length, x.mapBuffers(d, p).length);
                    } else {
                        int mapper = d;
                        assertThrows(IllegalStateException.class, () -> x.mapBuffers(mapper, p),
                                "dom" + mapper + " maps passive dom" + p + "'s buffers");
                    }
                }
            }
        }
    }

    static Harness play(HostSpec spec, List<Step> steps) throws Exception {
        Harness h = new Harness(spec);
        if (spec.startSession()) {
            h.startSession();
        }
        for (Step s : steps) {
            h.apply(s);
            assertTrue(h.x.statistics().balanced(), () -> "after " + s + ": " + h.x.statistics());
        }
        h.finish();
        return h;
    }

    // ---------------------------------------------------------------------------------- properties

    @Property(tries = 100)
    void everySampleIsAccountedOnceInTheSessionAndInTheBufferItAimedAt(@ForAll("hosts") HostSpec spec,
            @ForAll("steps") List<Step> steps) throws Exception {
        Harness h = play(spec, steps);
        h.assertAccounting();
    }

    @Property(tries = 100)
    void noDomainsBufferEverHoldsAnotherDomainsCodeAndOnlyThePrimaryMapsPassiveBuffers(
            @ForAll("hosts") HostSpec spec, @ForAll("steps") List<Step> steps) throws Exception {
        Harness h = play(spec, steps);
        h.assertOnlyThePrimaryMapsPassiveBuffers();
    }

    @Property(tries = 15)
    void aWellBehavedSessionLetsEveryDaemonReadAllThatWasWrittenForIt(@ForAll("hosts") HostSpec spec)
            throws Exception {
        HostSpec started = new HostSpec(spec.pcpus(), spec.domains(), spec.activeSlots(), spec.depth(), spec.period(),
                true, spec.seed());
        Harness h = new Harness(started);
        h.startSession();
        h.run(20_000);
        h.finish();
        h.assertAccounting();
        long writtenMapped = 0;
        List<SharedBuffer> mapped = new ArrayList<>();
        h.own.values().forEach(bs -> mapped.addAll(List.of(bs)));
        h.passiveMapped.values().forEach(bs -> mapped.addAll(List.of(bs)));
        for (SharedBuffer b : mapped) {
            writtenMapped += b.userSamples() + b.kernelSamples() + b.xenSamples();
            assertEquals(b.head(), b.tail(), "after the flush nothing is left unread in " + b);
        }
        assertTrue(h.entriesRead >= writtenMapped, h.entriesRead + " entries read for " + writtenMapped
                + " samples written into mapped buffers");
    }

    /**
     * The generators reach every fate the properties are about, not only idle hosts: checked on a
     * fixed stream of generated cases, so that the check itself never flakes.
     */
    @Example
    void theGeneratedCasesReachEveryFate() throws Exception {
        java.util.Random random = new java.util.Random(20080425);
        var hostGenerator = hosts().generator(100);
        var stepGenerator = steps().generator(100);
        int cases = 60;
        int sampled = 0;
        int passive = 0;
        int lost = 0;
        int corrupted = 0;
        int destroyed = 0;
        int traced = 0;
        for (int i = 0; i < cases; i++) {
            Harness h = play(hostGenerator.next(random).value(), stepGenerator.next(random).value());
            h.assertAccounting();
            XenoprofStatistics st = h.x.statistics();
            sampled += h.takenSinceReset > 0 ? 1 : 0;
            passive += st.passiveSamples() > 0 ? 1 : 0;
            lost += st.lostSamples() > 0 ? 1 : 0;
            corrupted += st.corruptedBufferSamples() > 0 ? 1 : 0;
            traced += h.host.counters().get("trace.entries.lost") > 0 || h.x.backtraceDepth() > 0 ? 1 : 0;
            for (int d = 0; d < h.n; d++) {
                destroyed += h.destroyed(d) ? 1 : 0;
            }
        }
        String seen = sampled + " sampled, " + passive + " with passive samples, " + lost + " with lost, " + corrupted
                + " with corrupted, " + destroyed + " domains destroyed, " + traced + " traced, of " + cases;
        assertTrue(sampled >= cases / 3 && passive >= 3 && lost >= 3 && corrupted >= 3 && destroyed >= 3
                && traced >= 3, seen);
    }
}
