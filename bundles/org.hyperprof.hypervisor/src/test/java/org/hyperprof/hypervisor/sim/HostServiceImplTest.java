package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostServiceImplTest {

    /** The message {@code service} refuses to load the default scenario with, on model {@code cpuType}. */
    private static String refusal(HostServiceImpl service, String cpuType) {
        return assertThrows(ScenarioException.class, () -> service.load(HostService.DEFAULT_SCENARIO, cpuType))
                .getMessage();
    }

    @Test
    void theDefaultScenarioIsEmbeddedAndLoads() throws Exception {
        HostServiceImpl service = Fixtures.service();
        assertEquals(List.of(HostService.DEFAULT_SCENARIO, "xen-multi-domain", "ppc970-blade", "real-elf-userland",
                "consolidation"),
                service.scenarios());
        Host host = service.load(HostService.DEFAULT_SCENARIO, null);
        assertSame(host, service.current().orElseThrow());
        assertNull(host.stopReason());
    }

    @Test
    void anIndependentServiceLoadsBesideTheCurrentHostWithoutStoppingIt() throws Exception {
        HostServiceImpl service = Fixtures.service();
        Host current = service.load(HostService.DEFAULT_SCENARIO, null);
        HostService own = service.independent().orElseThrow();
        Host beside = own.load("xen-multi-domain", null);
        assertNull(current.stopReason(), "the current host runs on");
        assertSame(current, service.current().orElseThrow());
        assertSame(beside, own.current().orElseThrow());
        Host next = own.load(HostService.DEFAULT_SCENARIO, null);
        assertTrue(beside.stopReason().contains("replaced by a newly loaded"), beside.stopReason());
        assertNull(current.stopReason(), "only the independent service's own host was replaced");
        assertEquals(current.counters(), next.counters(), "the same scenario and seed load the same host");
    }

    @Test
    void anIndependentServiceSeesModelsInstalledLater() throws Exception {
        HostServiceImpl service = new HostServiceImpl();
        service.addPolicy(new SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
        HostService own = service.independent().orElseThrow();
        assertThrows(ScenarioException.class, () -> own.load(HostService.DEFAULT_SCENARIO, null));
        service.addModel(new P6PmuModel(), Fixtures.P6_BUNDLE);
        assertNull(own.load(HostService.DEFAULT_SCENARIO, null).stopReason());
        assertTrue(service.current().isEmpty(), "loading there made no host current here");
    }

    @Test
    void anUnknownCpuTypeIsRefusedListingTheInstalledModels() {
        HostServiceImpl service = Fixtures.service();
        String refused = refusal(service, "i386/p4");
        assertTrue(refused.contains("CPU model 'i386/p4' is not installed"), refused);
        assertTrue(refused.contains("i386/p6 (bundle org.hyperprof.pmu.p6)"), refused);
    }

    @Test
    void aScenarioWhoseModelIsMissingNamesItsCpuTypeLine() {
        HostServiceImpl service = new HostServiceImpl();
        service.addPolicy(new SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
        String refused = refusal(service, null);
        assertTrue(refused.contains("xen-summit-2006-network.scenario:"), refused);
        assertTrue(refused.contains("installed: none"), refused);
    }

    @Test
    void anUnknownPolicyIsRefusedListingTheInstalledPolicies() {
        HostServiceImpl service = new HostServiceImpl();
        service.addModel(new P6PmuModel(), Fixtures.P6_BUNDLE);
        String refused = refusal(service, null);
        assertTrue(refused.contains("counter-virtualization policy 'systemwide' is not installed"), refused);
    }

    @Test
    void anUnknownScenarioNameListsTheEmbeddedOnes() {
        ScenarioException e = assertThrows(ScenarioException.class, () -> Fixtures.service().load("nope", null));
        assertTrue(e.getMessage().contains("[xen-summit-2006-network, xen-multi-domain, ppc970-blade,"
                + " real-elf-userland, consolidation]"), e.getMessage());
    }

    @Test
    void aScenarioFileLoadsWithItsSymbolFilesNextToIt(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("symbols"));
        for (String f : List.of("xen-syms-3.0.map", "vmlinux-syms-2.6.16-xen0.map", "rcv22.map")) {
            try (var in = getClass().getClassLoader()
                    .getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER + "/symbols/" + f)) {
                Files.copy(in, dir.resolve("symbols").resolve(f));
            }
        }
        Path file = dir.resolve("mini.scenario");
        Files.writeString(file, Fixtures.minimal("", "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes", ""));
        Host host = Fixtures.service().load(file.toString(), null);
        assertEquals("mini", host.name());
        host.run(1_000, null);
        assertTrue(host.groundTruth().rows().stream().anyMatch(r -> r.symbol().equals("tcp_v4_rcv")));
    }

    @Test
    void pmuOptionsTheModelRefusesAreAScenarioErrorAtTheirLine() {
        String text = Fixtures.minimal("pmu.option lvtpc.automask=sometimes\n",
                "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes", "");
        ScenarioException e = assertThrows(ScenarioException.class, () -> Fixtures.host(text));
        assertTrue(e.getMessage().startsWith("test.scenario:6: CPU model i386/p6 refuses"), e.getMessage());
    }

    @Test
    void aDepartingModelStopsItsHostNamingTheCpuTypeAndTheBundle() throws Exception {
        HostServiceImpl service = new HostServiceImpl();
        P6PmuModel p6 = new P6PmuModel();
        service.addModel(p6, Fixtures.P6_BUNDLE);
        service.addPolicy(new SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
        Host host = service.load(HostService.DEFAULT_SCENARIO, null);
        host.run(1_000, null);
        List<String> heard = new ArrayList<>();
        host.addListener((h, reason) -> heard.add(reason));

        service.removeModel(p6);

        String expected = "CPU model i386/p6 (bundle org.hyperprof.pmu.p6) departed; the host stopped, samples"
                + " already taken are kept; reinstall/start the bundle and load the scenario again";
        assertEquals(expected, host.stopReason());
        assertEquals(List.of(expected), heard);
        HostStoppedException e = assertThrows(HostStoppedException.class, () -> host.run(1_000, null));
        assertEquals(expected, e.getMessage());
        assertTrue(host.groundTruth().total(org.hyperprof.api.pmu.Signal.CYCLES) > 0, "what was measured is kept");
        ScenarioException reload = assertThrows(ScenarioException.class,
                () -> service.load(HostService.DEFAULT_SCENARIO, null));
        assertTrue(reload.getMessage().contains("'i386/p6' is not installed"), reload.getMessage());
    }

    @Test
    void aRunningHostEndsPromptlyWhenItsModelDepartsFromAnotherThread() throws Exception {
        HostServiceImpl service = new HostServiceImpl();
        P6PmuModel p6 = new P6PmuModel();
        service.addModel(p6, Fixtures.P6_BUNDLE);
        service.addPolicy(new SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
        Host host = service.load(HostService.DEFAULT_SCENARIO, null);
        CountDownLatch running = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                host.run(RUN_MICROS, (done, total, samples) -> running.countDown());
                outcome.set(new AssertionError("the run ended normally"));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        runner.start();
        assertTrue(running.await(30, TimeUnit.SECONDS), "the run started");
        service.removeModel(p6);
        runner.join(10_000);
        assertFalse(runner.isAlive(), "the run ended after the model departed");
        HostStoppedException e = assertInstanceOf(HostStoppedException.class, outcome.get());
        assertTrue(e.getMessage().contains("org.hyperprof.pmu.p6"), e.getMessage());
        assertTrue(host.cycles() < RUN_MICROS * 2800 / 2, "stopped long before the end: " + host.cycles());
    }

    /** Long enough that the run is still going when the model leaves (it reports progress each 3 s). */
    private static final long RUN_MICROS = 60_000_000L;

    @Test
    void aDepartingPolicyStopsItsHost() throws Exception {
        HostServiceImpl service = new HostServiceImpl();
        SystemWidePolicy policy = new SystemWidePolicy();
        service.addModel(new P6PmuModel(), Fixtures.P6_BUNDLE);
        service.addPolicy(policy, Fixtures.SYSTEMWIDE_BUNDLE);
        Host host = service.load(HostService.DEFAULT_SCENARIO, null);
        service.removePolicy(policy);
        assertTrue(host.stopReason().startsWith("counter-virtualization policy systemwide (bundle "
                + "org.hyperprof.vpmu.systemwide) departed"), host.stopReason());
    }

    @Test
    void aModelTheHostDoesNotUseMayLeave() throws Exception {
        HostServiceImpl service = Fixtures.service();
        P6PmuModel other = new P6PmuModel();
        Host host = service.load(HostService.DEFAULT_SCENARIO, null);
        service.removeModel(other);
        assertNull(host.stopReason());
    }

    @Test
    void loadingAnotherHostStopsThePreviousOne() throws Exception {
        HostServiceImpl service = Fixtures.service();
        Host first = service.load(HostService.DEFAULT_SCENARIO, null);
        Host second = service.load(HostService.DEFAULT_SCENARIO, null);
        assertTrue(first.stopReason().contains("replaced"), first.stopReason());
        assertNull(second.stopReason());
        assertSame(second, service.current().orElseThrow());
    }
    @Test
    void aCpuTypeOverrideWithAnotherModelLeavesTheScenariosPmuOptionsBehind() throws Exception {
        HostServiceImpl service = Fixtures.everyModel();
        SimHost ppc = (SimHost) service.load(HostService.DEFAULT_SCENARIO, "ppc64/970");
        assertEquals(java.util.Map.of(), ppc.scenario().pmuOptions(), "lvtpc.automask is a P6 option");
        SimHost p6 = (SimHost) service.load(HostService.DEFAULT_SCENARIO, "i386/p6");
        assertEquals("false", p6.scenario().pmuOptions().get("lvtpc.automask"), "the scenario's own model keeps them");
    }

    @Test
    void loadTimeOptionsOverrideTheScenariosHostAndPmuOptions() throws Exception {
        HostServiceImpl service = Fixtures.everyModel();
        SimHost host = (SimHost) service.load("ppc970-blade", null, java.util.Map.of("ppc.postponed", "owner"),
                java.util.Map.of("mmcra.hvpr", "xnu"));
        assertEquals(1L, host.counters().get("interrupts.postponed.mode.owner"));
        assertEquals(0L, host.counters().get("interrupts.postponed.mode.ignore"));
        assertEquals(java.util.Map.of("mmcra.hvpr", "xnu"), host.scenario().pmuOptions());
        assertSame(host, service.current().orElseThrow());
    }

    @Test
    void aBadLoadTimeOptionIsAScenarioErrorSayingWhatIsAllowed() {
        HostServiceImpl service = Fixtures.everyModel();
        ScenarioException host = assertThrows(ScenarioException.class, () -> service.load("ppc970-blade", null,
                java.util.Map.of("ppc.postponed", "sometimes"), null));
        assertTrue(host.getMessage().startsWith("loading ppc970-blade: ppc.postponed=sometimes"), host.getMessage());
        assertTrue(host.getMessage().contains("ignore") && host.getMessage().contains("poll"), host.getMessage());
        ScenarioException pmu = assertThrows(ScenarioException.class, () -> service.load("ppc970-blade", null, null,
                java.util.Map.of("lvtpc.automask", "false")));
        assertTrue(pmu.getMessage().contains("unknown PowerPC 970 PMU option 'lvtpc.automask'"), pmu.getMessage());
        assertTrue(pmu.getMessage().contains("mmcra.hvpr"), pmu.getMessage());
    }

    @Test
    void xenFramePointersAreAHostOptionLikeTheOthers() throws Exception {
        HostServiceImpl service = Fixtures.everyModel();
        SimHost release = (SimHost) service.load("xen-multi-domain", null, null, null);
        assertFalse(release.hypervisorFramePointers(), "the scenario's line says no");
        SimHost built = (SimHost) service.load("xen-multi-domain", null,
                java.util.Map.of("xen.frame-pointers", "yes"), null);
        assertTrue(built.hypervisorFramePointers(), "the host option overrides the scenario's line");
        ScenarioException bad = assertThrows(ScenarioException.class, () -> service.load("xen-multi-domain", null,
                java.util.Map.of("xen.frame-pointers", "maybe"), null));
        assertTrue(bad.getMessage().contains("xen.frame-pointers maybe is neither yes nor no"), bad.getMessage());
    }

    @Test
    void aSeedOffsetGivesAnotherRunAndTheSameOffsetTheSameRun() throws Exception {
        HostServiceImpl service = Fixtures.service();
        long plain = service.load(HostService.DEFAULT_SCENARIO, null).counters().get("scenario.seed");
        java.util.Map<String, Long> first = ranWithOffset(service, "3");
        java.util.Map<String, Long> again = ranWithOffset(service, "3");
        java.util.Map<String, Long> other = ranWithOffset(service, "4");
        assertEquals(plain + 3, first.get("scenario.seed"), "the host reports the effective seed");
        assertEquals(first, again, "the same offset, the same run");
        assertFalse(first.get("scenario.seed").equals(other.get("scenario.seed")));
        first.remove("scenario.seed");
        other.remove("scenario.seed");
        assertFalse(first.equals(other), "another offset, another run: " + first);
        ScenarioException bad = assertThrows(ScenarioException.class, () -> service.load(
                HostService.DEFAULT_SCENARIO, null, java.util.Map.of("seed.offset", "two"), null));
        assertTrue(bad.getMessage().contains("seed.offset two is not a whole number"), bad.getMessage());
    }

    private static java.util.Map<String, Long> ranWithOffset(HostServiceImpl service, String offset)
            throws Exception {
        Host host = service.load(HostService.DEFAULT_SCENARIO, null, java.util.Map.of("seed.offset", offset), null);
        host.run(2_000, null);
        return new java.util.TreeMap<>(host.counters());
    }

    @Test
    void costScalesMultiplyTheScenariosPricesOfCounterVirtualization() throws Exception {
        HostServiceImpl service = Fixtures.everyModel();
        SimHost plain = (SimHost) service.load("consolidation", null);
        long msr = plain.cost("pmu.read");
        var trap = plain.scenario().effectiveVpmu().hvm();
        SimHost scaled = (SimHost) service.load("consolidation", null,
                java.util.Map.of("cost.vpmu.scale", "1.5", "cost.trap.hvm.scale", "0.5"), null);
        assertEquals(Math.round(msr * 1.5), scaled.cost("pmu.read"));
        if (trap != null) {
            assertEquals(Math.round(trap.cycles() * 0.5), scaled.scenario().effectiveVpmu().hvm().cycles());
        }
        ScenarioException bad = assertThrows(ScenarioException.class, () -> service.load("consolidation", null,
                java.util.Map.of("cost.vpmu.scale", "-1"), null));
        assertTrue(bad.getMessage().contains("cost.vpmu.scale -1 is not a factor from 0 to 1000"), bad.getMessage());
    }
}
