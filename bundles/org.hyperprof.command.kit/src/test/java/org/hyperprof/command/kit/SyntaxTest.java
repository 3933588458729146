package org.hyperprof.command.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.hyperprof.api.command.CommandFailure;
import org.junit.jupiter.api.Test;

class SyntaxTest {
    private static final Syntax IMPORT = Syntax.of("hp:import", "import a recording")
            .before("<perf.data>", Completion.FILE)
            .options(Option.value("--kallsyms", "file", "the kernel's symbols").completedBy(Completion.FILE),
                    Option.value("--guest-kallsyms", "[pid=]file", "a guest kernel's symbols").repeatable(),
                    Option.flag("--callgraph", "the call graph, as perf report -g does, with the callers of each"
                            + " function below it and the share of each path, printed after the flat profile"))
            .after("[option...]").notes("  a note");

    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @Test
    void theUsageLineIsThePositionalWordsThenEachOptionThenWhatFollows() {
        assertEquals("<perf.data> [--kallsyms file] [--guest-kallsyms [pid=]file]... [--callgraph] [option...]",
                IMPORT.arguments());
        assertEquals("hp:import " + IMPORT.arguments(), IMPORT.usage());
        assertEquals("hp:version", Syntax.of("hp:version", "the version").usage());
    }

    @Test
    void helpGivesEachOptionItsLineWrappedUnderItsColumnThenTheNotes() {
        assertEquals("usage: hp:import <perf.data> [--kallsyms file] [--guest-kallsyms [pid=]file]... [--callgraph]\n"
                + "                 [option...]\n"
                + "  import a recording\n"
                + "  --kallsyms file      the kernel's symbols\n"
                + "  --guest-kallsyms [pid=]file\n"
                + "                       a guest kernel's symbols (repeatable)\n"
                + "  --callgraph          the call graph, as perf report -g does, with the callers of each function\n"
                + "                       below it and the share of each path, printed after the flat profile\n"
                + "  a note", IMPORT.help());
        for (String line : IMPORT.help().split("\n")) {
            assertTrue(line.length() <= Syntax.WIDTH, line);
        }
    }

    @Test
    void theParserTakesExactlyTheTablesOptions() throws UsageException {
        Args a = IMPORT.parse(new String[] {"x.data", "--kallsyms=/proc/kallsyms", "--callgraph"});
        assertEquals(List.of("x.data"), a.positional());
        assertEquals("/proc/kallsyms", a.value("--kallsyms"));
        assertTrue(a.flag("--callgraph"));
        assertThrows(UsageException.class, () -> IMPORT.parse(new String[] {"--top", "5"}));
    }

    @Test
    void aKeyValueWordNamingAValueOptionIsReadAsThatOptionWithAHint() {
        String[] words = {"kallsyms=/k", "callgraph=yes", "top=5", "--", "kallsyms=/x"};
        IMPORT.acceptKeyValue(words, err);
        assertEquals(List.of("--kallsyms=/k", "callgraph=yes", "top=5", "--", "kallsyms=/x"), List.of(words),
                "only a value option is rewritten, and nothing after --");
        assertEquals("hp:import: read 'kallsyms=/k' as '--kallsyms /k' (options are written --kallsyms value)\n",
                errBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anOptionListedTwiceIsADefectOfTheTable() {
        Option o = Option.flag("--x", "x");
        assertThrows(IllegalArgumentException.class, () -> Syntax.of("hp:t", "t").options(o, o));
        assertThrows(IllegalArgumentException.class, () -> Option.flag("-x", "single dash"));
    }

    @Test
    void theGuardPrintsHelpForHelpAndAUsageErrorWithStatusTwo() {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        Console console = Console.of(new PrintStream(outBytes, true, StandardCharsets.UTF_8), err);
        Guard.run(console, IMPORT, new String[] {"--help"}, out -> {
            throw new AssertionError("the body does not run for --help");
        });
        assertEquals(IMPORT.help() + "\n", outBytes.toString(StandardCharsets.UTF_8));
        CommandFailure f = assertThrows(CommandFailure.class, () -> Guard.run(console, IMPORT, new String[0], out -> {
            throw new UsageException("give the recording to import");
        }));
        assertEquals(CommandFailure.USAGE, f.status());
        assertEquals("hp:import: give the recording to import\nusage: " + IMPORT.usage()
                + "\n(hp:import --help explains the arguments)\n", errBytes.toString(StandardCharsets.UTF_8));
    }
}
