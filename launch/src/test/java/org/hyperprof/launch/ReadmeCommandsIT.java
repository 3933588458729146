package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.hyperprof.launch.Readme.Command;
import org.hyperprof.launch.Readme.Kind;
import org.hyperprof.launch.Readme.Section;
import org.hyperprof.launch.Readme.Step;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command of README.md runs as a reader would run it, and shows what the README says it
 * shows (the rules: {@link Readme}, and the README's section "This README is tested"). Each section
 * runs in a working folder of its own that looks like the repository's root ({@code launch/} and
 * {@code bundles/} are links to the repository's), with HOME in the test's folder too, so nothing
 * touches the user's files: {@code /tmp/} in a command stands for that working folder (which is
 * also the JVMs' java.io.tmpdir), and {@code /absolute/path/to/} for the repository's folder.
 * Sections run two at a time; the steps of one section in order.
 */
class ReadmeCommandsIT {
    /** Sections run at once: the launcher's JVMs use about a core each. */
    private static final int WORKERS = 2;
    /**
     * Printed before each command of a Gogo script, to tell their outputs apart: a quoted word is a
     * line whose value the launcher prints, with nothing but Gogo's runtime (its {@code echo} comes
     * with a bundle of a later start level, which may not have started when the first line runs).
     */
    private static final String SEPARATOR = "@@readme-line ";
    /** Gogo's bundle commands print their errors as their result and still succeed: they must print nothing. */
    private static final Pattern BUNDLE_COMMAND = Pattern
            .compile("^(?:felix:)?(start|stop|uninstall|install|update|refresh|resolve)\\b");
    /**
     * Files the README's commands read that a reader brings along, by the path the README gives:
     * made by the test in the section's folder. Folded stacks as stackcollapse-perf.pl writes them.
     */
    private static final Map<String, String> FILES = Map.of("/tmp/app.folded", """
            nginx;ngx_worker_process_cycle;ngx_process_events_and_timers;epoll_wait_[k] 40
            nginx;ngx_worker_process_cycle;ngx_http_process_request;ngx_http_send_response;memcpy 25
            redis-server;aeMain;aeProcessEvents;readQueryFromClient;processCommand 20
            redis-server;aeMain;aeProcessEvents;sys_write_[k] 15
            """);

    @TempDir
    Path tmp;

    /** The launcher script the build names ({@code launch/hyperprof}). */
    private static Path launcher() {
        return Path.of(System.getProperty("hyperprof.launcher", "hyperprof")).toAbsolutePath();
    }

    /** The repository: the launcher's folder's parent. */
    private static Path root() {
        return launcher().getParent().getParent();
    }

    private static Readme readme() throws IOException {
        return new Readme(Files.readString(root().resolve("README.md"), StandardCharsets.UTF_8));
    }

    // The rules, on small READMEs.

    @Test
    void aCommandsNoteAndExitStatusAreTakenOffAndTheLinesAfterItAreItsShownOutput() {
        Readme r = new Readme("""
                # Title

                    launch/hyperprof 'hp:domain 7 pause' 'hp:models'   exit 1, hp:models not run
                    hp:load
                    hp:host          (the host just loaded)
                    host      xen-summit-2006-network
                    ...

                    g! stop org.hyperprof.pmu.p6
                    $ grep total /tmp/x.csv
                    1,total
                """);
        assertEquals(List.of(), r.problems);
        List<Step> steps = r.sections().get(0).steps();
        assertEquals(4, steps.size(), steps.toString());
        Command exit = steps.get(0).commands().get(0);
        assertEquals("launch/hyperprof 'hp:domain 7 pause' 'hp:models'", exit.text());
        assertEquals(1, exit.status());
        Command host = steps.get(1).commands().get(1);
        assertEquals("hp:host", host.text());
        assertEquals(List.of("host      xen-summit-2006-network", "..."), host.shown());
        assertEquals(Kind.PROMPT, steps.get(2).commands().get(0).kind());
        assertEquals("stop org.hyperprof.pmu.p6", steps.get(2).commands().get(0).text());
        assertEquals("grep total /tmp/x.csv", steps.get(3).commands().get(0).text());
        assertEquals(List.of("1,total"), steps.get(3).commands().get(0).shown());
    }

    @Test
    void theHpLinesOfABlockAreOneScriptAndTheGLinesOfASectionOneSession() {
        Readme r = new Readme("""
                ## One

                    hp:load
                    hp:run 10

                Then:

                    hp:report

                Step 2:

                    g! hp:load
                    g! hp:host

                Step 3:

                    g! hp:run 10
                    $ ls

                ## Two

                    mvn -B install && launch/hyperprof
                """);
        assertEquals(List.of(), r.problems);
        List<Section> sections = r.sections();
        assertEquals(1, sections.size(), "a block without a command is not run");
        List<Step> steps = sections.get(0).steps();
        assertEquals(List.of(2, 1, 3, 1), steps.stream().map(s -> s.commands().size()).toList());
        assertTrue(steps.get(2).gogo());
        assertFalse(steps.get(3).gogo());
        assertEquals(1, new Readme("## A\n\n    g! hp:load\n    $ ls\n    g! hp:host\n").problems.size(),
                "a section's g! lines run before its shell lines: none may follow one");
    }

    @Test
    void shownOutputIsExcerptsInOrderWithSpacesCollapsedAndSessionIdsMasked() {
        String output = """
                profiling xen-summit-2006-network for 100 ms simulated
                   10%  10/100 ms simulated, 439 samples
                session 4024163358215627881: samples taken 4371 = delivered 4340 + lost 0 + dropped 31 + invalid 0
                host: 54 counters (hp:report --session 4024163358215627881 host lists them)
                """;
        assertNull(Readme.missing(List.of("session 1795307580464:  samples taken 4371 = delivered 4340 + lost 0"
                + " + dropped 31 + invalid 0"), output, false));
        assertNull(Readme.missing(List.of("profiling xen-summit-2006-network ...", "...", "host: 54 counters ..."),
                output, false));
        assertTrue(Readme.missing(List.of("session 1795307580464: samples taken 4372 = delivered 4341 + lost 0"
                + " + dropped 31 + invalid 0"), output, false).contains("are not in the output"),
                "a sample count is compared exactly");
        assertTrue(Readme.missing(List.of("profiling xen-summit-2006-network for 100 ms simulated",
                "host: 54 counters (hp:report --session 4024163358215627881 host lists them)"), output, false) != null,
                "the lines of an excerpt are consecutive");
        assertTrue(Readme.missing(List.of("host: 54 counters ...", "...", "profiling ..."), output, false) != null,
                "excerpts come in order");
        assertNull(Readme.missing(List.of("10% 20/200 ms simulated, 4390 samples"), output, true),
                "with numbers that vary, every number matches any number");
    }

    @Test
    void anInstructionThatNamesABundleByItsIdIsFound() {
        for (String id : List.of("start 12", "g! stop 9", "uninstall 11", "launch/hyperprof 'stop 9' 'hp:models'",
                "felix:update -b 4", "start N")) {
            assertTrue(Readme.usesBundleId(id), id);
        }
        for (String name : List.of("stop org.hyperprof.pmu.p6", "start file:/x/y.jar", "hp:opcontrol 0 --start",
                "hp:opcontrol 1 --stop", "hp:domain 1 pause", "hp:run 500", "lb pmu.p6")) {
            assertFalse(Readme.usesBundleId(name), name);
        }
    }

    @Test
    void anExemptionGivesItsReasonMarksTheBlockRightAfterItAndThereAreAtMostFive() {
        String block = "<!-- not run by the README test: needs a server -->\n\n    launch/hyperprof 'hp:x'\n\n";
        Readme five = new Readme(block.repeat(5));
        assertEquals(List.of(), five.problems);
        assertEquals(List.of(), five.sections(), "a block marked is not run");
        assertEquals(1, new Readme(block.repeat(6)).problems.size());
        assertEquals(1, new Readme("<!-- not run by the README test: -->\n\n    hp:x\n").problems.size(),
                "a reason is given");
        assertEquals(1, new Readme("<!-- not run by the README test: a server -->\n\nText.\n\n    hp:x\n").problems
                .size(), "the marker is right before the block");
        assertTrue(new Readme("<!-- numbers vary in this output: timings -->\n\n    hp:x\n    took 12 ms\n")
                .sections().get(0).steps().get(0).commands().get(0).numbersVary());
    }

    // The README itself.

    @Test
    void theReadmeKeepsTheRulesOfItsTest() throws IOException {
        Readme r = readme();
        assertEquals(List.of(), r.problems);
        assertTrue(r.exemptions().size() <= Readme.MOST_EXEMPTIONS, r.exemptions().toString());
        assertFalse(r.sections().isEmpty(), "the README's commands were found");
    }

    @Test
    void noInstructionOfTheReadmeNamesABundleByItsId() throws IOException {
        List<String> ids = readme().instructions().stream().filter(l -> Readme.usesBundleId(l.text()))
                .map(l -> "line " + l.number() + ": " + l.text().strip()).toList();
        assertEquals(List.of(), ids, "bundle ids change as bundles come and go: name the bundle (symbolic name"
                + " or location) instead");
    }

    @Test
    void everyFileTheTestBringsIsOneTheReadmeReads() throws IOException {
        String commands = String.join("\n", readme().sections().stream().flatMap(s -> s.steps().stream())
                .flatMap(s -> s.commands().stream()).map(Command::text).toList());
        FILES.keySet().forEach(path -> assertTrue(commands.contains(path), path + " is read by no command"));
    }

    // The commands.

    @TestFactory
    Stream<DynamicTest> everyCommandOfTheReadmeRunsAndShowsWhatTheReadmeShows() throws IOException {
        Readme readme = readme();
        assertEquals(List.of(), readme.problems);
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
        Map<Section, Future<?>> runs = new LinkedHashMap<>();
        int n = 0;
        for (Section section : readme.sections()) {
            Path folder = Files.createDirectories(tmp.resolve("section-" + ++n));
            runs.put(section, workers.submit(() -> {
                run(section, folder);
                return null;
            }));
        }
        workers.shutdown();
        return runs.entrySet().stream().map(e -> DynamicTest.dynamicTest(
                "README line " + e.getKey().heading().number() + ": " + e.getKey().heading().text(), () -> {
                    try {
                        e.getValue().get();
                    } catch (ExecutionException failed) {
                        if (failed.getCause() instanceof Error error) {
                            throw error;
                        }
                        throw failed.getCause();
                    }
                }));
    }

    /**
     * Runs a section's steps in order, in a working folder of its own. A Gogo script runs in a
     * framework of its own ({@code HYPERPROF_RESIDENT=off}); a shell line as the launcher runs it by
     * default, a resident framework's folder being the section's own, stopped at the section's end.
     */
    private void run(Section section, Path folder) throws IOException, InterruptedException {
        long start = System.nanoTime();
        Path work = Files.createDirectories(folder.resolve("work"));
        Path home = Files.createDirectories(folder.resolve("home"));
        Path root = root();
        // Everything kept per user goes to the test's HOME, the XDG folders too.
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
        env.put("XDG_CACHE_HOME", home.resolve(".cache").toString());
        env.put("XDG_DATA_HOME", home.resolve(".local/share").toString());
        env.put("XDG_STATE_HOME", home.resolve(".local/state").toString());
        env.put("HYPERPROF_RUN_DIR", Files.createTempDirectory(folder, "run").toString());
        env.put("HYPERPROF_RESIDENT_IDLE", "120");
        // Java's user.home comes from the password file, not HOME: it and the configuration folder are set outright.
        env.put("HYPERPROF_JAVA_OPTS", "-Djava.io.tmpdir=" + work + " -Duser.home=" + home);
        env.put("HYPERPROF_CONFIG_DIR", home.resolve(".hyperprof/config").toString());
        List<Path> links = List.of(Files.createSymbolicLink(work.resolve("launch"), root.resolve("launch")),
                Files.createSymbolicLink(work.resolve("bundles"), root.resolve("bundles")));
        try {
            runSteps(section, folder, work, env, root);
        } finally {
            // A launcher without a resident framework refuses the option: there is nothing to stop then.
            Run.of(launcher(), work, env, folder, "--stop-server");
            // The links go first, so that nothing that cleans the folder up can reach the repository.
            for (Path link : links) {
                Files.deleteIfExists(link);
            }
        }
        System.out.printf("README test: section '%s' (line %d) ran in %.1f s%n", section.heading().text(),
                section.heading().number(), (System.nanoTime() - start) / 1e9);
    }

    private static void runSteps(Section section, Path folder, Path work, Map<String, String> env, Path root)
            throws IOException, InterruptedException {
        for (Step step : section.steps()) {
            for (Command c : step.commands()) {
                for (Map.Entry<String, String> file : FILES.entrySet()) {
                    if (c.text().contains(file.getKey())) {
                        Files.writeString(Path.of(here(file.getKey(), work, root)), file.getValue());
                    }
                }
            }
        }
        Map<String, String> fresh = new HashMap<>(env);
        fresh.put("HYPERPROF_RESIDENT", "off");
        int steps = 0;
        for (Step step : section.steps()) {
            long start = System.nanoTime();
            Run run;
            if (step.gogo()) {
                StringBuilder script = new StringBuilder();
                for (Command c : step.commands()) {
                    script.append('\'').append(SEPARATOR).append(c.line().number()).append("'\n")
                            .append(here(c.text(), work, root)).append('\n');
                }
                Path file = Files.writeString(folder.resolve("step-" + ++steps + ".gogo"), script);
                run = Run.of(launcher(), work, fresh, folder, "-f", file.toString());
            } else {
                run = Run.of(Path.of("bash"), work, env, folder, "-c", here(step.commands().get(0).text(), work, root));
            }
            System.out.printf("README test: %s (%d command(s)) ran in %.1f s%n", step.commands().get(0),
                    step.commands().size(), (System.nanoTime() - start) / 1e9);
            if (step.gogo()) {
                checkScript(step, run, work, root);
            } else {
                Command c = step.commands().get(0);
                assertEquals(c.status(), run.status(), c + "\nended with status " + run.status() + "; stderr:\n"
                        + run.err() + "\nstdout:\n" + run.out());
                checkShown(c, run.out(), work, root);
            }
        }
    }

    /**
     * Each command of the script ran, in order, and showed what the README shows after it; the
     * script ended with status 0. A bundle command's error comes first, as the failures after it
     * (a model missing) follow from it.
     */
    private static void checkScript(Step step, Run run, Path work, Path root) {
        Map<Integer, String> outputs = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(SEPARATOR) + "(\\d+)$").matcher(run.out());
        int line = -1;
        int from = 0;
        while (m.find()) {
            if (line >= 0) {
                outputs.put(line, run.out().substring(from, m.start()));
            }
            line = Integer.parseInt(m.group(1));
            from = m.end();
        }
        if (line >= 0) {
            outputs.put(line, run.out().substring(from));
        }
        for (Command c : step.commands()) {
            String output = outputs.get(c.line().number());
            if (output == null) {
                throw new AssertionError(c + "\ndid not run: the script ended with status " + run.status()
                        + "; stdout:\n" + run.out() + "\nstderr:\n" + run.err());
            }
            boolean last = outputs.keySet().stream().noneMatch(n -> n > c.line().number());
            if (BUNDLE_COMMAND.matcher(c.text()).find()) {
                assertTrue(output.isBlank(), c + "\nfailed (Gogo's bundle commands print their errors instead of"
                        + " failing):\n" + output);
            }
            if (last && run.status() != 0) {
                throw new AssertionError(c + "\nfailed: the script ended with status " + run.status() + "; stderr:\n"
                        + run.err() + "\nits output:\n" + output);
            }
            checkShown(c, output, work, root);
        }
    }

    private static void checkShown(Command c, String output, Path work, Path root) {
        List<String> shown = c.shown().stream().map(l -> here(l, work, root)).toList();
        String missing = Readme.missing(shown, output, c.numbersVary());
        assertNull(missing, () -> c + "\ndoes not show what the README shows: " + missing + "\nits output:\n"
                + output);
    }

    /** A README line with its placeholders put where this section runs: /tmp/ and /absolute/path/to/. */
    private static String here(String line, Path work, Path root) {
        // /tmp/ first: the repository itself may lie under /tmp (a fresh clone in CI).
        return line.replaceAll("(?<![\\w.~/-])/tmp/", Matcher.quoteReplacement(work + "/"))
                .replace("/absolute/path/to/", root + "/");
    }
}
