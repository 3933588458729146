package org.hyperprof.store.duckdb;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What commands print in a test: a console whose two streams are read back, each read taking what it shows. */
final class CommandOutput {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final org.hyperprof.command.kit.Console console = org.hyperprof.command.kit.Console.of(
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

    /** Standard output since the last read. */
    String printed() {
        return take(out);
    }

    /** Standard error since the last read. */
    String errors() {
        return take(err);
    }

    private static String take(ByteArrayOutputStream stream) {
        String s = stream.toString(StandardCharsets.UTF_8);
        stream.reset();
        return s;
    }
}
