package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The simulator's output for a seed does not change when the engine is made faster: every shipped
 * scenario (but one whose images are the machine's own libraries) under every shipped policy it prices, run for a short fixed time, gives the digest recorded in
 * {@code golden-runs.txt} next to this class. The digest covers, in order, every entry Xenoprof's
 * buffers delivered (PC, mode, event; escape records and call traces included), every entry left
 * in the guests' own profilers' buffers, every host counter, and ground truth A (the per-function
 * ledger). Truth B (work on a guest's behalf) is left out: it is meant to change as the scenarios
 * learn which guest function makes each hypercall.
 *
 * <p>A change that alters the simulation on purpose re-records the digests: run this test with
 * {@code -Dgolden.print=true}, which prints the lines of the file, and say why in the commit.
 */
class GoldenRunTest {
    private static final List<String> POLICIES = List.of("systemwide", "saverestore", "lazy", "offset", "partitioned");
    /** Long enough for every scenario to switch vCPUs, take hundreds of samples and refill credit. */
    private static final long RUN_MICROS = 40_000;
    /** A short period, so that the runs take many samples (and some buffers fill). */
    private static final long PERIOD = 20_000;
    private static final long CALL_TRACE_DEPTH = 4;

    static Stream<Arguments> runs() throws IOException, ScenarioException {
        List<Arguments> out = new ArrayList<>();
        for (String scenario : shippedScenarios()) {
            // Only a scenario that prices the virtual PMU's work runs under a policy that virtualizes it.
            boolean pricesVpmu = !((SimHost) Fixtures.everyModel().load(scenario, null)).scenario().vpmu().costs()
                    .isEmpty();
            for (String policy : POLICIES) {
                if (policy.equals("systemwide") || pricesVpmu) {
                    out.add(Arguments.of(scenario, policy));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} under {1}")
    @MethodSource("runs")
    void aRunGivesTheRecordedDigest(String scenario, String policy) throws Exception {
        String digest = digest(scenario, policy);
        if (Boolean.getBoolean("golden.print")) {
            System.out.println(scenario + " " + policy + " " + digest);
        }
        String expected = recorded().get(scenario + " " + policy);
        assertNotNull(expected, () -> "golden-runs.txt has no digest for " + scenario + " under " + policy
                + "; run with -Dgolden.print=true and add the line " + scenario + " " + policy + " " + digest);
        assertEquals(expected, digest, () -> scenario + " under " + policy + " no longer runs as recorded: the"
                + " engine changed what it simulates for a seed");
    }

    private static String digest(String scenario, String policy)
            throws ScenarioException, HostStoppedException, NoSuchAlgorithmException {
        HostServiceImpl service = Fixtures.everyModel();
        service.addPolicy(new org.hyperprof.vpmu.saverestore.SaveRestorePolicy(), "org.hyperprof.vpmu.saverestore");
        service.addPolicy(new org.hyperprof.vpmu.lazy.LazyPolicy(), "org.hyperprof.vpmu.lazy");
        service.addPolicy(new org.hyperprof.vpmu.offset.OffsetPolicy(), "org.hyperprof.vpmu.offset");
        service.addPolicy(new org.hyperprof.vpmu.partitioned.PartitionedPolicy(), "org.hyperprof.vpmu.partitioned");
        SimHost host = (SimHost) service.load(scenario, null, Map.of("vpmu.policy", policy), null);
        Digest d = new Digest();
        Map<Integer, SharedBuffer[]> buffers = startXenoprof(host, d);
        host.run(RUN_MICROS, null);
        d.add("stop " + host.xenoprof().hypercall(0, XenoprofOp.STOP, null));
        buffers.forEach((domid, own) -> {
            for (SharedBuffer b : own) {
                d.drain(domid, b);
            }
        });
        for (DomainInfo dom : host.domains()) {
            for (SharedBuffer b : host.guestProfilerBuffers(dom.domid())) {
                d.drain(100 + dom.domid(), b);
            }
        }
        new TreeMap<>(host.counters()).forEach((k, v) -> d.add(k + "=" + v));
        for (GroundTruth.Row r : host.groundTruth().rows()) {
            d.add(r.domid() + "/" + r.vcpu() + "/" + r.mode() + "/" + r.image() + "/" + r.symbol() + "="
                    + java.util.Arrays.toString(r.signalMilli()));
        }
        return d.hex();
    }

    /**
     * A Xenoprof session as the study's profile starts it: dom0 primary, PV domains active, HVM domains
     * passive, the model's default event, call traces on. A hypercall a policy refuses is recorded, not
     * failed: what the policy does is part of the run.
     */
    private static Map<Integer, SharedBuffer[]> startXenoprof(SimHost host, Digest d) {
        Xenoprof x = host.xenoprof();
        Map<Integer, SharedBuffer[]> buffers = new LinkedHashMap<>();
        List<Integer> active = new ArrayList<>();
        List<Integer> passive = new ArrayList<>();
        for (DomainInfo dom : host.domains()) {
            (dom.hvm() ? passive : active).add(dom.domid());
        }
        d.add("init " + x.hypercall(0, XenoprofOp.INIT, new XenoprofInit()));
        x.hypercall(0, XenoprofOp.RESET_ACTIVE_LIST, null);
        for (int domid : active) {
            d.add("active " + domid + " " + x.hypercall(0, XenoprofOp.SET_ACTIVE, domid));
        }
        x.hypercall(0, XenoprofOp.RESET_PASSIVE_LIST, null);
        for (int domid : passive) {
            long set = x.hypercall(0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(domid, 2048));
            d.add("passive " + domid + " " + set);
            if (set == 0) {
                buffers.put(domid, x.mapBuffers(0, domid));
            }
        }
        for (int domid : active) {
            if (domid != 0) {
                x.hypercall(domid, XenoprofOp.INIT, new XenoprofInit());
            }
            long got = x.hypercall(domid, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(2048));
            d.add("buffer " + domid + " " + got);
            if (got != 0) {
                continue; // the policy keeps Xenoprof out: the guests' own profilers sample
            }
            SharedBuffer[] own = x.mapBuffers(domid, domid);
            buffers.put(domid, own);
            x.bindVirq(domid, vcpu -> {
                d.drain(domid, own[vcpu]);
                if (domid == 0) {
                    for (int p : passive) {
                        for (SharedBuffer b : buffers.getOrDefault(p, new SharedBuffer[0])) {
                            d.drain(p, b);
                        }
                    }
                }
            });
        }
        d.add("backtrace " + x.hypercall(0, XenoprofOp.SET_BACKTRACE, CALL_TRACE_DEPTH));
        d.add("reserve " + x.hypercall(0, XenoprofOp.RESERVE_COUNTERS, null));
        XenoprofCounter c = Fixtures.defaultEvent(host.model(), PERIOD);
        d.add("counter " + x.hypercall(0, XenoprofOp.COUNTER, c));
        d.add("setup " + x.hypercall(0, XenoprofOp.SETUP_EVENTS, null));
        for (int domid : active) {
            x.hypercall(domid, XenoprofOp.ENABLE_VIRQ, null);
        }
        d.add("start " + x.hypercall(0, XenoprofOp.START, null));
        return buffers;
    }

    /** SHA-256 over everything a run produced, in the order it came. */
    private static final class Digest {
        private final MessageDigest sha;
        private long entries;

        Digest() throws NoSuchAlgorithmException {
            sha = MessageDigest.getInstance("SHA-256");
        }

        void add(String line) {
            sha.update((line + "\n").getBytes(StandardCharsets.UTF_8));
        }

        /** Every entry from the buffer's tail to its head, as a daemon reads it. */
        void drain(int owner, SharedBuffer b) {
            int tail = b.tail();
            int head = b.head();
            if (head < 0 || head >= b.size() || tail < 0 || tail >= b.size()) {
                add(owner + " wrecked " + head + " " + tail);
                return;
            }
            while (tail != head) {
                add(owner + ":" + b.vcpuId() + " " + Long.toHexString(b.eip(tail)) + " " + b.mode(tail) + " "
                        + b.event(tail));
                entries++;
                tail = (tail + 1) % b.size();
            }
            b.writeTail(tail);
        }

        String hex() {
            add("entries " + entries);
            return HexFormat.of().formatHex(sha.digest()).substring(0, 32);
        }
    }

    private static List<String> shippedScenarios() throws IOException {
        List<String> names = new ArrayList<>();
        for (String line : lines(HostServiceImpl.SCENARIO_FOLDER + "/scenarios.list")) {
            // real-elf-userland reads the machine's own libjvm.so and C library: its functions, and so
            // its digest, change with the installed JDK and C library.
            if (!line.isBlank() && !line.startsWith("#") && !line.strip().equals("real-elf-userland")) {
                names.add(line.strip());
            }
        }
        assertTrue(names.size() >= 4, "scenarios.list names the shipped scenarios");
        return names;
    }

    private static Map<String, String> recorded() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : lines("org/hyperprof/hypervisor/sim/golden-runs.txt")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 3 && !line.startsWith("#")) {
                out.put(f[0] + " " + f[1], f[2]);
            }
        }
        return out;
    }

    private static List<String> lines(String resource) throws IOException {
        InputStream in = GoldenRunTest.class.getClassLoader().getResourceAsStream(resource);
        if (in == null) {
            return List.of();
        }
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return r.lines().toList();
        }
    }
}
