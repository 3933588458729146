package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.UsageException;
import org.junit.jupiter.api.Test;

class HelpAndGuardTest {
    private final Fakes.Captured io = new Fakes.Captured();

    @Test
    void helpListsEveryHpCommandWithItsSummary() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands();
        String out = io.out();
        for (HpCommand c : HpCommand.values()) {
            assertTrue(out.contains("  " + c.scoped() + " "), c.scoped());
            assertTrue(out.contains(c.summary()), c.summary());
        }
    }

    @Test
    void helpWalksTheTwoDomainOpcontrolSequenceInTheOrderOfTheSlides() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands();
        String out = io.out();
        List<String> steps = List.of("hp:opcontrol 0 --start-daemon --active-domains=0,1", "hp:opcontrol 1 --start-daemon",
                "hp:opcontrol 0 --start", "hp:run 500", "hp:opcontrol 0 --stop", "hp:opcontrol 1 --shutdown",
                "hp:opcontrol 0 --shutdown", "hp:report");
        int at = 0;
        for (String step : steps) {
            int next = out.indexOf(step, at);
            assertTrue(next > at, "'" + step + "' after position " + at + " in:\n" + out);
            at = next;
        }
    }

    @Test
    void helpForOneCommandShowsUsageAndTheArgumentOfEachOp() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands("op");
        String out = io.out();
        assertTrue(out.startsWith("usage: hp:op <domid> <op> [arg...]\n"), out);
        assertTrue(out.contains("counter <ind> <EVENT:count[:um[:kernel[:user]]]>"), out);
        assertTrue(out.contains("get_buffer [max_samples]"), out);
    }

    @Test
    void guardPrintsATypedErrorAsItsMessageOnly() {
        assertEquals(CommandFailure.FAILED, Fakes.fails(() -> Guard.run(io.console, HpCommand.REPORT.syntax(), new String[0], out -> {
            throw new ReportException("no session 9; sessions are 6, 7");
        })));
        assertEquals("hp:report: no session 9; sessions are 6, 7\n", io.err());
    }

    @Test
    void guardPrintsAUsageErrorWithTheUsageLineAndFailsWithStatusTwo() {
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> Guard.run(io.console, HpCommand.RUN.syntax(), new String[0], out -> {
            throw new UsageException("expected the simulated milliseconds to run");
        })));
        assertEquals("hp:run: expected the simulated milliseconds to run\nusage: hp:run <ms>\n"
                + "(hp:run --help explains the arguments)\n", io.err());
    }

    @Test
    void aKeyValueWordNamingAValueOptionIsReadAsThatOptionWithAHint() {
        String[] words = {"ms=10", "top=5", "--", "x=y"};
        List<String> seen = new java.util.ArrayList<>();
        Guard.run(io.console, HpCommand.PROFILE.syntax(), words, out -> seen.addAll(List.of(words)));
        assertEquals(List.of("--ms=10", "top=5", "--", "x=y"), seen, "only --ms is an option of hp:profile");
        assertEquals("hp:profile: read 'ms=10' as '--ms 10' (options are written --ms value)\n", io.err());
    }

    @Test
    void guardTurnsAnUnexpectedFailureIntoOneLineWithoutStackTrace() {
        Fakes.fails(() -> Guard.run(io.console, HpCommand.MODELS.syntax(), new String[0], out -> {
            out.print("");
            throw new NullPointerException("model.events() returned null");
        }));
        String err = io.err();
        assertEquals("hp:models failed unexpectedly: NullPointerException: model.events() returned null\n", err);
        assertFalse(err.contains("\tat "), err);
    }

    @Test
    void guardNamesAFailureWithoutMessageByItsKind() {
        Fakes.fails(() -> Guard.run(io.console, HpCommand.RUN.syntax(), new String[0], out -> {
            throw new IllegalStateException();
        }));
        assertEquals("hp:run failed unexpectedly: IllegalStateException\n", io.err());
    }

    @Test
    void guardCatchesALinkageErrorFromABundleThatLeftMidCall() {
        Fakes.fails(() -> Guard.run(io.console, HpCommand.EVENTS.syntax(), new String[0], out -> {
            throw new NoClassDefFoundError("org/hyperprof/pmu/p6/P6Model");
        }));
        assertEquals("hp:events failed unexpectedly: NoClassDefFoundError: org/hyperprof/pmu/p6/P6Model\n", io.err());
    }

    /** The components whose public methods Gogo registers as hp: commands. */
    private static final List<Class<?>> COMPONENTS = List.of(PluginCommands.class, HostCommands.class,
            XenoprofCommands.class, ProfileCommands.class, ReportCommands.class, HelpCommands.class,
            SourceCommands.class, VersionCommand.class, ConfigCommands.class);

    /** The public varargs methods named as the command, on any component. */
    private static java.util.stream.Stream<java.lang.reflect.Method> methods(HpCommand c) {
        return COMPONENTS.stream().flatMap(k -> java.util.Arrays.stream(k.getMethods()))
                .filter(m -> m.getName().equals(c.function()) && m.isVarArgs());
    }

    @Test
    void gogosHelpShowsEachCommandsArgumentsAsItsUsageLineDoes() {
        for (HpCommand c : HpCommand.values()) {
            java.lang.reflect.Method method = methods(c).findFirst().orElseThrow();
            java.lang.reflect.Parameter words = method.getParameters()[method.getParameterCount() - 1];
            String described = words.getAnnotation(org.apache.felix.service.command.Descriptor.class).value();
            assertEquals(c.arguments().isEmpty() ? "no arguments" : c.arguments(), described, c.scoped());
        }
    }

    @Test
    void everyCommandHasAPublicMethodOfItsNameOnExactlyOneComponent() {
        for (HpCommand c : HpCommand.values()) {
            assertEquals(1, methods(c).count(), c.scoped());
        }
    }

    @Test
    void helpForDomainSaysThatDestroyingIsPermanent() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands("domain");
        assertTrue(io.out().contains("Permanent: only hp:load brings it back."), io.out());
    }

    @Test
    void helpForGuestGivesTheRangeXenChecksAndWhatHappensOutsideIt() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands("guest");
        String out = io.out();
        assertTrue(out.startsWith("usage: hp:guest <domid> <vcpu> head|tail <value>\n"), out);
        assertTrue(out.contains("outside [0, size), counts the\n  sample as corrupted (corrupted_buffer_samples)"),
                out);
    }

    @Test
    void helpTextsStayWithinTheWidthOfATerminal() {
        for (HpCommand c : HpCommand.values()) {
            for (String line : c.syntax().help().split("\n")) {
                // An example command is one line, to be copied whole.
                assertTrue(line.length() <= 100 || line.startsWith("    hp:"), c.scoped() + ": " + line);
            }
            assertTrue(("  " + c.scoped() + "  " + c.summary()).length() <= 116, c.scoped());
        }
    }

    @Test
    void helpShowsTheWholeMultiDomainWorkflowAsOneCommand() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands();
        assertTrue(io.out().contains("hp:profile does the whole run in one command:\n"
                + "  Every role at once on the xen-multi-domain host"), io.out());
        assertTrue(io.out().contains("\n    hp:profile --scenario xen-multi-domain --domains 0,1 --passive 2,3"
                + " --passive-images vmlinux-syms-2.6.18-53.el5xen,vmlinux-2.6.24-19-generic --callgraph 6\n"),
                io.out());
    }

    @Test
    void theMultiDomainExampleIsACommandLineHpProfileAccepts() throws UsageException {
        String[] words = HelpTexts.MULTI_DOMAIN_COMMAND.split(" ");
        assertEquals("hp:profile", words[0]);
        CommandLines.Profile p = CommandLines.profile(java.util.Arrays.copyOfRange(words, 1, words.length));
        assertEquals(List.of(0, 1), p.domains());
        assertEquals(List.of(2, 3), p.passive());
        assertEquals(List.of("vmlinux-syms-2.6.18-53.el5xen", "vmlinux-2.6.24-19-generic"), p.passiveImages());
        assertEquals(6, p.callgraphDepth());
        assertEquals("xen-multi-domain", p.scenario());
    }

    @Test
    void helpProfileEndsWithTheMultiDomainExample() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands("profile");
        assertTrue(io.out().contains("  --passive 2,3 "), io.out());
        assertTrue(io.out().endsWith(HelpTexts.MULTI_DOMAIN + "\n"), io.out());
    }

    @Test
    void helpOpcontrolListsThePassiveCallGraphAndSimulationOptions() {
        new HelpCommands(io.console, new Plugins<>(), new Plugins<>()).commands("opcontrol");
        String out = io.out();
        for (String option : List.of("--passive-domains=", "--passive-images=", "--callgraph=N", "--hold",
                "--release", "--active-domains=", "--event=", "--start-daemon", "--shutdown")) {
            assertTrue(out.contains(option), option + " in:\n" + out);
        }
        assertTrue(out.contains("Hyperprof simulation controls, not real opcontrol options:"), out);
    }
}
