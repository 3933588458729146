package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.RegionSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.symbols.elf.ElfResolver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6's "done when": a scenario whose user images are real ELF files of this machine (the
 * JDK's libjvm.so through {@code ${java.home}}, the C library) profiles to real symbol names.
 */
class RealElfScenarioTest {
    private static final String SCENARIO = "real-elf-userland";
    private static final int JVM = 1;
    private static final String LIBJVM = System.getProperty("java.home") + "/lib/server/libjvm.so";
    private static final String LIBC = "/lib/x86_64-linux-gnu/libc.so.6";

    private static SimHost load() throws ScenarioException {
        return (SimHost) Fixtures.everyModel().load(SCENARIO, null);
    }

    private static Mapping mapping(SimHost host, String image) {
        return host.domain(JVM).memoryMap().stream().filter(m -> m.image().equals(image)).findFirst().orElseThrow();
    }

    /** The workload's function names of one image, as the scenario file names them. */
    private static Set<String> named(Scenario s, String image) {
        Set<String> out = new HashSet<>();
        for (RegionSpec r : s.domains().get(JVM).regions()) {
            if (r.image().name().equals(image)) {
                for (WeightedSymbol w : r.symbols()) {
                    out.add(w.symbol().name());
                }
            }
        }
        return out;
    }

    @Test
    void theEmbeddedScenarioLoadsTheJdksOwnLibjvmAndTheMachinesCLibraryAsElfImages() throws Exception {
        SimHost host = load();
        assertEquals("x86-64/hammer", host.model().cpuType());
        Mapping jvm = mapping(host, "libjvm.so");
        assertEquals("elf", jvm.symbols().format());
        assertEquals(Path.of(LIBJVM).normalize().toString(), jvm.symbols().location(), "${java.home} expanded");
        assertEquals(0x00007f3c5a000000L, jvm.loadBias(), "run-time start minus the link-time base 0");
        assertEquals(ImageKind.USER, jvm.kind());
        Mapping libc = mapping(host, "libc.so.6");
        assertEquals("elf", libc.symbols().format());
        assertEquals(LIBC, libc.symbols().location());
        assertEquals("kallsyms", mapping(host, "vmlinux-2.6.32.59-0.7-xen").symbols().format(),
                "kernels keep System.map text");
    }

    @Test
    void sampledUserPcsResolveThroughTheElfFilesToTheRealFunctionsTheWorkloadNames() throws Exception {
        SimHost host = load();
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), 100_000));
        host.resetGroundTruth();
        host.run(100_000, null);
        Fixtures.stopProfiling(host, sampled);
        ElfResolver elf = new ElfResolver();
        Map<String, SymbolTable> tables = new HashMap<>();
        Map<String, Integer> perFunction = new HashMap<>();
        int user = 0;
        for (long[] e : sampled.mainSamples(JVM, false)) {
            if (e[1] != CpuMode.USER.code()) {
                continue;
            }
            user++;
            Mapping m = host.domain(JVM).memoryMap().stream().filter(x -> x.contains(e[0])).findFirst()
                    .orElseThrow(() -> new AssertionError("0x" + Long.toHexString(e[0]) + " is in no mapping"));
            SymbolTable t = tables.computeIfAbsent(m.image(), k -> {
                try {
                    return elf.load(m.symbols());
                } catch (Exception ex) {
                    throw new AssertionError(ex);
                }
            });
            int i = t.lookup(e[0] - m.loadBias());
            assertTrue(i >= 0, "0x" + Long.toHexString(e[0]) + " resolves in " + m.image());
            perFunction.merge(m.image() + ":" + t.name(i), 1, Integer::sum);
        }
        assertTrue(user > 2000, "user-mode samples of the JVM: " + user);
        Set<String> expected = new HashSet<>();
        named(host.scenario(), "libjvm.so").forEach(n -> expected.add("libjvm.so:" + n));
        named(host.scenario(), "libc.so.6").forEach(n -> expected.add("libc.so.6:" + n));
        assertTrue(expected.containsAll(perFunction.keySet()), "every sample is a function the workload runs: "
                + perFunction.keySet());
        // The busiest: G1's evacuation loop, whose share of the JVM's user time follows the ground truth.
        GroundTruth truth = host.groundTruth();
        String hot = "_ZN20G1ParScanThreadState23trim_queue_to_thresholdEj";
        double userCycles = Fixtures.events(truth, JVM, CpuMode.USER, Signal.CYCLES);
        double trueShare = Fixtures.cycles(truth, JVM, hot) / userCycles;
        double share = perFunction.getOrDefault("libjvm.so:" + hot, 0) / (double) user;
        assertEquals(trueShare, share, 4 * Math.sqrt(trueShare * (1 - trueShare) / user) + 0.01);
        assertTrue(perFunction.containsKey("libc.so.6:memmove") && perFunction.containsKey("libjvm.so:JVM_ArrayCopy"),
                perFunction.keySet().toString());
    }

    @Test
    void theCLibrarysFunctionsSitWhereNmPutsThem() throws Exception {
        Path nm = Path.of("/usr/bin/nm");
        assumeTrue(Files.isExecutable(nm), "binutils' nm is not installed");
        Map<String, Long> dynsym = new HashMap<>();
        Process p = new ProcessBuilder(nm.toString(), "-D", "--defined-only", LIBC).redirectErrorStream(true).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 3) {
                    dynsym.put(f[2].replaceAll("@.*", ""), Long.parseUnsignedLong(f[0], 16));
                }
            }
        }
        assertEquals(0, p.waitFor());
        ImageSpec libc = load().scenario().domains().get(JVM).images().stream()
                .filter(i -> i.name().equals("libc.so.6")).findFirst().orElseThrow();
        for (String fn : List.of("memmove", "memset", "malloc", "read", "epoll_wait", "clock_gettime")) {
            int i = libc.symbols().indexOf(fn);
            assertTrue(i >= 0, fn + " is in the scenario's libc");
            assertEquals(dynsym.get(fn).longValue(), libc.symbols().start(i), fn + ": the address nm prints");
        }
    }

    @Test
    void withoutTheElfResolverLoadingSaysWhichResolverIsMissing() {
        HostServiceImpl service = Fixtures.service();
        service.addModel(new HammerPmuModel(), Fixtures.AMD_BUNDLE);
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(SCENARIO, null));
        assertTrue(e.getMessage().contains("no symbol resolver for 'elf' is installed"), e.getMessage());
        assertTrue(e.getMessage().contains("real-elf-userland.scenario:"), e.getMessage());
    }

    // --- ${java.home} and ${sys:NAME} in image paths; missing files -------------------------------------

    private static String withProcess(String processLine) {
        return Fixtures.minimal("", "domain 0 d type=pv vcpus=1 load=1 hardware=yes", processLine + "\n");
    }

    private static Scenario parseWithElf(String text) throws ScenarioException {
        return org.hyperprof.hypervisor.sim.scenario.ScenarioParser.parse(
                org.hyperprof.hypervisor.sim.scenario.ScenarioOrigin.text("test.scenario", text,
                        Fixtures.class.getClassLoader(), HostServiceImpl.SCENARIO_FOLDER),
                Map.of("elf", new ElfResolver()));
    }

    @Test
    void javaHomeExpandsToTheRunningJdk() throws Exception {
        Scenario s = parseWithElf(withProcess("process libjvm.so 0x7f0000000000-0x7f0001400000"
                + " ${java.home}/lib/server/libjvm.so bias=0x7f0000000000 format=elf"));
        ImageSpec jvm = s.domains().get(0).images().get(2);
        assertEquals(Path.of(LIBJVM).normalize().toString(), jvm.source().location());
        assertTrue(jvm.symbols().indexOf("JVM_ArrayCopy") >= 0, "read from the JDK's own libjvm.so");
    }

    @Test
    void sysExpandsToASystemProperty(@TempDir Path dir) throws Exception {
        Path map = dir.resolve("rcv22.map");
        try (var in = getClass().getClassLoader().getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER
                + "/symbols/rcv22.map")) {
            Files.copy(in, map);
        }
        System.setProperty("hyperprof.test.symbols", dir.toString());
        try {
            Scenario s = Fixtures.parse(withProcess("process other 0x09000000-0x09001000"
                    + " ${sys:hyperprof.test.symbols}/rcv22.map bias=0x01000000"));
            assertEquals(map.toString(), s.domains().get(0).images().get(2).source().location());
        } finally {
            System.clearProperty("hyperprof.test.symbols");
        }
    }

    @Test
    void anUnknownVariableAnUnsetPropertyAndAnUnclosedBraceAreErrorsAtTheLine() {
        ScenarioException unknown = assertThrows(ScenarioException.class,
                () -> Fixtures.parse(withProcess("process x 0x09000000-0x09001000 ${HOME}/x.map")));
        assertTrue(unknown.getMessage().startsWith("test.scenario:13: unknown variable ${HOME}"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("${java.home}") && unknown.getMessage().contains("${sys:<name>}"),
                unknown.getMessage());
        ScenarioException unset = assertThrows(ScenarioException.class,
                () -> Fixtures.parse(withProcess("process x 0x09000000-0x09001000 ${sys:no.such.property}/x.map")));
        assertTrue(unset.getMessage().contains("the system property 'no.such.property' is not set"),
                unset.getMessage());
        ScenarioException open = assertThrows(ScenarioException.class,
                () -> Fixtures.parse(withProcess("process x 0x09000000-0x09001000 ${java.home/x.map")));
        assertTrue(open.getMessage().contains("without a closing '}'"), open.getMessage());
    }

    @Test
    void aNamedElfFileThisMachineLacksIsAnErrorNamingThePathTheScenarioNeeds() {
        ScenarioException e = assertThrows(ScenarioException.class, () -> parseWithElf(withProcess(
                "process libjvm.so 0x7f0000000000-0x7f0001400000 ${java.home}/lib/server/libnope.so"
                        + " bias=0x7f0000000000 format=elf")));
        String expanded = Path.of(System.getProperty("java.home"), "lib/server/libnope.so").toString();
        assertTrue(e.getMessage().startsWith("test.scenario:13: image 'libjvm.so' names the file " + expanded),
                e.getMessage());
        assertTrue(e.getMessage().contains("(written ${java.home}/lib/server/libnope.so)"), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist on this machine; the scenario needs that file"),
                e.getMessage());
        ScenarioException text = assertThrows(ScenarioException.class, () -> parseWithElf(withProcess(
                "process old 0x09000000-0x09001000 /nonexistent/usr/lib/old.map")));
        assertTrue(text.getMessage().contains("names the file /nonexistent/usr/lib/old.map, which does not exist"),
                text.getMessage());
    }

    @Test
    void theJvmGuestsUserTimeIsTheRealLibrariesAndItsDomainsAreTheScenarios() throws Exception {
        SimHost host = load();
        assertEquals(List.of(0, 1), host.domains().stream().map(DomainInfo::domid).toList());
        host.run(50_000, null);
        GroundTruth truth = host.groundTruth();
        double user = Fixtures.events(truth, JVM, CpuMode.USER, Signal.CYCLES);
        double all = Fixtures.events(truth, JVM, null, Signal.CYCLES);
        assertEquals(0.58, user / all, 0.03, "the user regions weigh 58 of the JVM's 100");
    }
}
