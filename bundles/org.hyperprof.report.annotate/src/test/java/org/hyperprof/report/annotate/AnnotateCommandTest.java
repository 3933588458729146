package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.command.kit.Console;
import org.junit.jupiter.api.Test;

/** hp:annotate's command line: its usage line is its descriptor, and each refusal has its exit status. */
class AnnotateCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final AnnotateCommand command = new AnnotateCommand(Console.of(new PrintStream(out, true,
            StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)), new AnnotateConsumer());

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theUsageLineIsTheDescriptorGogoShows() throws Exception {
        Method m = AnnotateCommand.class.getMethod("annotate", String[].class);
        Descriptor d = (Descriptor) m.getParameterAnnotations()[0][0];
        assertEquals(AnnotateCommand.ANNOTATE.arguments(), d.value());
    }

    @Test
    void withoutAFunctionItIsAUsageError() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> command.annotate());
        assertEquals(CommandFailure.USAGE, f.status());
        assertEquals("hp:annotate: name the function to annotate, e.g. hp:annotate main\nusage: "
                + AnnotateCommand.ANNOTATE.usage() + "\n(hp:annotate --help explains the arguments)\n", err());
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> command.annotate("main", "--bogus"));
        assertEquals(CommandFailure.USAGE, f.status());
    }

    @Test
    void withNoSessionItFailsSayingWhatToDoFirst() {
        CommandFailure f = assertThrows(CommandFailure.class, () -> command.annotate("main"));
        assertEquals(CommandFailure.FAILED, f.status());
        assertEquals("hp:annotate: annotate has no session yet; run a profile first (e.g. hp:profile), then annotate a"
                + " function of it (hp:annotate)\n", err());
    }

    @Test
    void helpPrintsTheTable() {
        command.annotate("--help");
        assertEquals(AnnotateCommand.ANNOTATE.help() + "\n", out.toString(StandardCharsets.UTF_8));
    }
}
