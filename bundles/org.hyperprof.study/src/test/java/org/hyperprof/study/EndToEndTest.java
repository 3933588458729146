package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.output.OutputTargets;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hp:study on the real hypervisor, profiler, P6 model and every counter-virtualization policy on
 * the test class path, wired in plain Java. Policies are found by their Declarative Services
 * descriptors, so adding a policy bundle as a test dependency is all it takes to study it.
 */
class EndToEndTest {
    private static final Pattern PROVIDES_POLICY = Pattern.compile(
            "<provide interface=\"" + Pattern.quote(CounterVirtualizationPolicy.class.getName()) + "\"");
    private static final Pattern IMPLEMENTATION = Pattern.compile("<implementation class=\"([^\"]+)\"");

    @TempDir
    Path dir;

    private final HostServiceImpl hosts = new HostServiceImpl();
    private final List<ProfilerImpl> profilers = new ArrayList<>();
    private final Map<String, CounterVirtualizationPolicy> policies = new TreeMap<>();

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    EndToEndTest() throws Exception {
        hosts.addModel(new P6PmuModel(), "org.hyperprof.pmu.p6");
        hosts.addModel(new org.hyperprof.pmu.amd.AthlonPmuModel(), "org.hyperprof.pmu.amd");
        for (CounterVirtualizationPolicy p : policiesOnClassPath()) {
            hosts.addPolicy(p, p.getClass().getPackageName());
            policies.put(p.name(), p);
        }
    }

    /** Every DS component on the class path that provides a policy, made with its no-argument constructor. */
    static List<CounterVirtualizationPolicy> policiesOnClassPath() throws Exception {
        List<CounterVirtualizationPolicy> found = new ArrayList<>();
        ClassLoader loader = EndToEndTest.class.getClassLoader();
        Enumeration<URL> manifests = loader.getResources("META-INF/MANIFEST.MF");
        while (manifests.hasMoreElements()) {
            Manifest m;
            try (InputStream in = manifests.nextElement().openStream()) {
                m = new Manifest(in);
            }
            String components = m.getMainAttributes().getValue("Service-Component");
            if (components == null) {
                continue;
            }
            for (String descriptor : components.split(",")) {
                URL url = loader.getResource(descriptor.strip());
                if (url == null) {
                    continue;
                }
                String xml;
                try (InputStream in = url.openStream()) {
                    xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                Matcher impl = IMPLEMENTATION.matcher(xml);
                if (PROVIDES_POLICY.matcher(xml).find() && impl.find()) {
                    Object p = Class.forName(impl.group(1), true, loader).getConstructor().newInstance();
                    if (found.stream().noneMatch(f -> f.getClass() == p.getClass())) {
                        found.add((CounterVirtualizationPolicy) p);
                    }
                }
            }
        }
        return found;
    }

    private StudyCommand command() {
        ProfilerImpl profiler = new ProfilerImpl(hosts, ProfilerImpl.DEFAULT_BATCH_SIZE, 1024, Duration.ofSeconds(20));
        profiler.addResolver("kallsyms", new KallsymsResolver());
        profilers.add(profiler);
        StudyRunner.ConsumerRegistry registry = (consumer, name) -> {
            profiler.addConsumer(name, consumer);
            return () -> profiler.removeConsumer(name);
        };
        return new StudyCommand(hosts, profiler, new OutputFilesComponent(), registry, policies::keySet,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Duration.ofSeconds(20));
    }

    @AfterEach
    void stopProfilers() throws Exception {
        // ProfilerImpl.deactivate() is package-private: its delivery threads are stopped through it.
        Method deactivate = ProfilerImpl.class.getDeclaredMethod("deactivate");
        deactivate.setAccessible(true);
        for (ProfilerImpl p : profilers) {
            deactivate.invoke(p);
        }
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private String csv(Path folder, String scenario) throws Exception {
        return Files.readString(folder.resolve("hyperprof-study-" + scenario + ".csv"), StandardCharsets.UTF_8);
    }

    @Test
    void theSameSeedGivesTheSameCsvTwice() throws Exception {
        StudyCommand study = command();
        Path first = Files.createDirectory(dir.resolve("first"));
        Path second = Files.createDirectory(dir.resolve("second"));
        study.study("--policies", "systemwide", "--seeds", "1", "--ms", "20", "--out", first.toString());
        study.study("--policies", "systemwide", "--seeds", "1", "--ms", "20", "--out", second.toString());
        assertEquals("", err(), "no problem reported");
        String a = csv(first, HostService.DEFAULT_SCENARIO);
        assertEquals(a, csv(second, HostService.DEFAULT_SCENARIO));
        assertEquals(3, a.split("\r\n").length, "header + Domain-0 + domU-rcv:\n" + a);
        assertTrue(a.contains(",systemwide,systemwide,,ok,"), a);
        assertTrue(Files.readString(first.resolve("hyperprof-study-" + HostService.DEFAULT_SCENARIO + ".svg"))
                .startsWith("<?xml"));
    }

    @Test
    void overThreeSeedsEveryFigureHasAnIntervalAndTheCsvSaysHowToReproduceIt() throws Exception {
        command().study("--policies", "systemwide,lazy", "--seeds", "3", "--ms", "5", "--out", dir.toString());
        assertEquals("", err(), "no problem reported");
        assertTrue(out().contains("running lazy, seed 3 of 3 (5 ms simulated)"), out());
        assertTrue(out().contains(" ± "), out());
        assertTrue(out().contains("comparisons (err A and err B, each policy and guest)"), out());
        assertTrue(out().contains("wall time over the seeds: systemwide "), out());
        String csv = csv(dir, HostService.DEFAULT_SCENARIO);
        assertTrue(csv.startsWith(SummaryCsv.HEADER), csv);
        assertTrue(csv.contains(",0-2,3,5,"), csv);
    }

    @Test
    void varyingACostReRunsTheStudyAndSaysWhichConclusionsChange() throws Exception {
        command().study("--policies", "systemwide,lazy", "--seeds", "2", "--ms", "5", "--vary", "cost.vpmu=3",
                "--out", dir.toString());
        assertEquals("", err(), "no problem reported");
        assertTrue(out().contains("varying cost.vpmu x 3.0"), out());
        assertTrue(out().contains("sensitivity: cost.vpmu x 3.0: "), out());
    }

    @Test
    void ctrlCStopsTheRunningVariantKeepsWhatItTookAndRunsNoOther() throws Exception {
        StudyCommand study = command();
        // Ctrl-C as the first variant's run asks for stop requests for the 500th time: once per
        // simulated step, so halfway through its 20 ms.
        int[] asked = {0};
        List<Boolean> closed = new ArrayList<>();
        study.bindStops(command -> new StopRequests.Watch() {
            @Override
            public String stopReason() {
                return ++asked[0] > 500 ? "Ctrl-C" : null;
            }

            @Override
            public void close() {
                closed.add(true);
            }
        });
        study.study("--policies", "systemwide,lazy", "--seeds", "1", "--ms", "20", "--jobs", "1", "--out",
                dir.toString());
        String text = out();
        assertTrue(text.contains("running systemwide (20 ms simulated)"), text);
        assertTrue(text.contains("stopped by Ctrl-C: lazy and the variants after it are not run"), text);
        assertFalse(text.contains("running lazy"), text);
        assertTrue(text.matches("(?s).*stopped by Ctrl-C after \\d+\\.\\d{3} of 20 ms simulated: its figures cover only"
                + " the time it ran.*"), text);
        String csv = csv(dir, HostService.DEFAULT_SCENARIO);
        assertEquals(3, csv.split("\r\n").length, "the stopped variant's rows are written:\n" + csv);
        assertTrue(csv.contains(",systemwide,systemwide,,ok,"), csv);
        assertEquals(List.of(true), closed, "the watch is closed once the study is done");
        assertEquals("", err());
    }

    @Test
    void ctrlCStopsTheRunsGoingOnSideBySideAndStartsNoOther() throws Exception {
        StudyCommand study = command();
        // Ctrl-C as soon as the second run starts, whichever lane took it and whether the first is
        // still going on or not: the runs after it must not start.
        study.bindStops(command -> new StopRequests.Watch() {
            @Override
            public String stopReason() {
                return out().contains("running lazy, seed 1 of 3") ? "Ctrl-C" : null;
            }

            @Override
            public void close() {
            }
        });
        study.study("--policies", "systemwide,lazy", "--seeds", "3", "--ms", "20", "--jobs", "2", "--out",
                dir.toString());
        String text = out();
        assertTrue(text.contains("running systemwide, seed 1 of 3 (20 ms simulated)"), text);
        assertTrue(text.contains("running lazy, seed 1 of 3 (20 ms simulated)"), text);
        assertFalse(text.contains("seed 2 of 3"), text);
        assertTrue(text.contains("stopped by Ctrl-C: systemwide, seed 2 and the runs after it are not run"), text);
        assertTrue(text.matches("(?s).*stopped by Ctrl-C after \\d+\\.\\d{3} of 20 ms simulated.*"), text);
        String csv = csv(dir, HostService.DEFAULT_SCENARIO);
        assertTrue(csv.contains(",systemwide,systemwide,") && csv.contains(",lazy,lazy,"), csv);
        assertEquals("", err());
    }

    @Test
    void runsSideBySideGiveTheTableAndCsvOfRunsOneAfterAnother() throws Exception {
        for (String scenario : List.of(HostService.DEFAULT_SCENARIO, "consolidation")) {
            Map<String, String> tables = new TreeMap<>();
            Map<String, String> csvs = new TreeMap<>();
            for (String jobs : List.of("1", "2", "3")) {
                out.reset();
                Path folder = Files.createDirectories(dir.resolve(scenario + "-jobs-" + jobs));
                command().study("--scenario", scenario, "--seeds", "2", "--ms", "10", "--jobs", jobs, "--out",
                        folder.toString());
                assertEquals("", err(), "every run ran");
                tables.put(jobs, withoutTimesAndPlaces(out()));
                csvs.put(jobs, csv(folder, scenario));
            }
            assertEquals(tables.get("1"), tables.get("2"), scenario + ": two lanes print what one does");
            assertEquals(tables.get("1"), tables.get("3"), scenario + ": three lanes print what one does");
            assertEquals(csvs.get("1"), csvs.get("2"), scenario + ": two lanes write what one does");
            assertEquals(csvs.get("1"), csvs.get("3"), scenario + ": three lanes write what one does");
            assertTrue(tables.get("1").contains(" ± "), tables.get("1"));
        }
    }

    @Test
    void oneSeedSideBySideGivesTheTableAndCsvOfOneAfterAnother() throws Exception {
        Map<String, String> tables = new TreeMap<>();
        Map<String, String> csvs = new TreeMap<>();
        for (String jobs : List.of("1", "2")) {
            out.reset();
            Path folder = Files.createDirectories(dir.resolve("jobs-" + jobs));
            command().study("--seeds", "1", "--ms", "20", "--jobs", jobs, "--out", folder.toString());
            assertEquals("", err(), "every run ran");
            tables.put(jobs, withoutTimesAndPlaces(out()));
            csvs.put(jobs, csv(folder, HostService.DEFAULT_SCENARIO));
        }
        assertEquals(tables.get("1"), tables.get("2"));
        assertEquals(csvs.get("1"), csvs.get("2"));
    }

    /** What a study printed, less what depends on the clock, the folder or where the runs ran. */
    private static String withoutTimesAndPlaces(String text) {
        StringBuilder b = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.startsWith("wall time over the seeds") && !line.startsWith("wrote ")
                    && !line.startsWith("the current host is now") && !line.startsWith("the runs had simulated")) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    @Test
    void underSystemwideEveryPvGuestIsProfiledByXenoprofWithAMeasuredError() throws Exception {
        command().study("--policies", "systemwide", "--seeds", "1", "--ms", "20", "--out", dir.toString());
        String text = out();
        assertTrue(text.lines().anyMatch(l -> l.contains("domU-rcv") && l.contains("xenoprof")), text);
        List<String> lines = List.of(csv(dir, HostService.DEFAULT_SCENARIO).split("\r\n"));
        List<String> header = List.of(lines.get(0).split(","));
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",");
            double errorA = Double.parseDouble(cells[header.indexOf("error_guest_only_pct")]);
            assertTrue(errorA >= 0 && errorA < 100, line);
            double hyp = Double.parseDouble(cells[header.indexOf("hypervisor_pct")]);
            assertTrue(hyp > 0 && hyp < 100, line);
        }
    }

    /** The study printed why it could not run, and its call failed, so a script sees it (exit status 1). */
    private static void assertFailed(Runnable study) {
        CommandFailure failed = assertThrows(CommandFailure.class, study::run);
        assertEquals("hp:study failed", failed.getMessage());
        assertEquals(CommandFailure.FAILED, failed.status());
    }

    @Test
    void anUnknownScenarioIsOneLine() throws Exception {
        assertFailed(() -> command().study("--scenario", "no-such-scenario", "--out", dir.toString()));
        List<String> problems = err().lines().toList();
        assertEquals(1, problems.size(), err());
        assertTrue(problems.get(0).startsWith("hp:study: unknown scenario 'no-such-scenario': the embedded scenarios"
                + " are "), problems.get(0));
    }

    @Test
    void anUnknownPolicyIsAUsageErrorListingTheKnownOnesBeforeAnythingRuns() throws Exception {
        CommandFailure refused = assertThrows(CommandFailure.class,
                () -> command().study("--policies", "systemwide,bogus", "--seeds", "1", "--ms", "5", "--out", dir.toString()));
        assertEquals(CommandFailure.USAGE, refused.status());
        String first = err().lines().findFirst().orElseThrow();
        assertTrue(first.startsWith("hp:study: unknown policy variant 'bogus': the variants are systemwide,"
                + " saverestore, saverestore/frozen, lazy, offset, partitioned, or any installed policy"), first);
        assertFalse(out().contains("running"), "nothing ran: " + out());
        assertFalse(err().contains("\tat "), "never a stack trace");
    }

    @Test
    void aScenarioPathThatNamesNoRegularFileIsOneLineSayingWhatItIs() throws Exception {
        assertFailed(() -> command().study("--scenario", dir.toString(), "--out", dir.toString()));
        assertEquals("hp:study: " + dir + ": is a directory, not a regular file: Hyperprof reads a scenario only from a"
                + " regular file; give the path of the scenario in it\n", err());
    }

    @Test
    void aRunThatFailsIsOneLineAndARowWithItsReason() throws Exception {
        // ppc970-blade needs the PowerPC 970 model, which this wiring lacks: the load fails.
        command().study("--scenario", "ppc970-blade", "--policies", "systemwide", "--seeds", "1", "--ms", "5", "--out", dir.toString());
        List<String> problems = err().lines().toList();
        assertEquals(1, problems.size(), err());
        assertTrue(problems.get(0).startsWith("hp:study: systemwide: loading ppc970-blade failed: "), problems.get(0));
        assertTrue(problems.get(0).contains("is not installed"), problems.get(0));
        String csv = csv(dir, "ppc970-blade");
        assertEquals(2, csv.split("\r\n").length, csv);
        assertTrue(csv.contains(",systemwide,systemwide,,\"loading ppc970-blade failed: "), "quoted: the reason holds commas\n" + csv);
        assertFalse(out().contains("\tat ") || err().contains("\tat "), "never a stack trace");
    }

    @Test
    void aMissingOutFolderIsCreatedWithItsParents() throws Exception {
        Path out = dir.resolve("results/2026/run-1");
        command().study("--policies", "systemwide", "--seeds", "1", "--ms", "5", "--out", out.toString());
        assertEquals("", err());
        assertEquals(List.of("hyperprof-study-" + HostService.DEFAULT_SCENARIO + ".csv",
                "hyperprof-study-" + HostService.DEFAULT_SCENARIO + ".svg"), OutputTargets.names(out));
        assertTrue(out().contains("wrote " + out.toRealPath().resolve("hyperprof-study-" + HostService.DEFAULT_SCENARIO
                + ".csv")), out());
    }

    @Test
    void aStudyRefusedForItsScenarioOrPoliciesCreatesNoFolder() {
        Path out = dir.resolve("never");
        assertFailed(() -> command().study("--scenario", "no-such-scenario", "--out", out.toString()));
        CommandFailure refused = assertThrows(CommandFailure.class,
                () -> command().study("--policies", "nonsense", "--out", out.toString()));
        assertEquals(CommandFailure.USAGE, refused.status());
        assertTrue(err().contains("unknown scenario 'no-such-scenario'")
                && err().contains("unknown policy variant 'nonsense'"), err());
        assertEquals(List.of(), OutputTargets.names(dir));
    }

    @Test
    void anOutThatIsAFileIsRefusedInOneLineBeforeTheRunAndKept() throws Exception {
        Path file = Files.writeString(dir.resolve("results"), "not a folder");
        assertFailed(() -> command().study("--policies", "systemwide", "--seeds", "1", "--ms", "5", "--out", file.toString()));
        assertEquals("hp:study: --out: cannot use " + file + " as the output folder: it exists and is no folder; name a"
                + " folder\n", err());
        assertFalse(out().contains("running systemwide"), "refused before the run: " + out());
        assertEquals("not a folder", Files.readString(file));
    }

    @Test
    void aFullDiskKeepsTheOldCsvAndSvgWholeAndSaysSoInOneLineEach() throws Exception {
        try (OutputTargets.SmallDisk disk = OutputTargets.smallDisk(dir, "small", 64)) {
            String base = "hyperprof-study-" + HostService.DEFAULT_SCENARIO;
            Path csv = Files.writeString(disk.folder().resolve(base + ".csv"), "yesterday's table");
            Path svg = Files.writeString(disk.folder().resolve(base + ".svg"), "yesterday's chart");
            disk.fill();
            List<String> before = OutputTargets.names(disk.folder());
            assertFailed(() -> command().study("--policies", "systemwide", "--seeds", "1", "--ms", "5", "--out",
                    disk.folder().toString()));
            assertEquals("hp:study: could not write " + csv + ": No space left on device; the file there before is"
                    + " unchanged\nhp:study: could not write " + svg + ": No space left on device; the file there"
                    + " before is unchanged\n", err());
            assertEquals("yesterday's table", Files.readString(csv));
            assertEquals("yesterday's chart", Files.readString(svg));
            assertEquals(before, OutputTargets.names(disk.folder()), "no temporary file left");
        }
    }

    /**
     * Enable when the policy bundles are test dependencies (see pom.xml) and the engine supports
     * {@code vpmu.policy} / {@code vpmu.freeze} host options and guest profilers.
     */
    @Test
    void everyStandardVariantRunsOnBothScenariosReproducibly() throws Exception {
        for (Variant v : Variant.STANDARD) {
            assertTrue(policies.containsKey(v.policy()), "policy " + v.policy() + " on the test class path");
        }
        for (String scenario : List.of(HostService.DEFAULT_SCENARIO, "consolidation")) {
            Path first = Files.createDirectories(dir.resolve(scenario + "-1"));
            Path second = Files.createDirectories(dir.resolve(scenario + "-2"));
            StudyCommand study = command();
            study.study("--scenario", scenario, "--seeds", "1", "--ms", "50", "--out", first.toString());
            study.study("--scenario", scenario, "--seeds", "1", "--ms", "50", "--out", second.toString());
            assertEquals("", err(), "every variant ran");
            String csv = csv(first, scenario);
            assertEquals(csv, csv(second, scenario), "reproducible for the scenario's seed");
            for (Variant v : Variant.STANDARD) {
                assertTrue(csv.contains("," + v.label() + "," + v.policy() + ","), v.label() + " in\n" + csv);
            }
            for (String row : csv.split("\r?\n")) {
                if (row.contains(",saverestore,") || row.contains(",lazy,") || row.contains(",offset,")) {
                    assertFalse(row.contains(",n/a,n/a,n/a,0,"), "policy counters reported by the host: " + row);
                }
            }
            assertTrue(out().contains(",own,") || csv.contains(",own,"), "guests' own profilers seen:\n" + csv);
        }
    }

    @Test
    void aCommandLineTheStudyCannotTakeExitsTwoWithTheUsageAndRunsNothing() {
        StudyCommand study = command();
        CommandFailure failed = assertThrows(CommandFailure.class, () -> study.study("--seeds", "1", "--ms", "0"));
        assertEquals(CommandFailure.USAGE, failed.status());
        assertTrue(err().startsWith("hp:study: --ms (simulated milliseconds per variant) must be from 1 to 600000,"
                + " got 0\nusage: hp:study [--scenario name|path]"), err());
    }
}
