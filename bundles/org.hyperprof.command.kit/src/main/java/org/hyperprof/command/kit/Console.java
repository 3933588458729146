package org.hyperprof.command.kit;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * Where a command prints. In the framework this is {@link System#out} and {@link System#err},
 * looked up at each call: Gogo replaces them with streams that write to the calling session (or
 * the pipe the command runs in), so a command must not keep the stream it saw at activation.
 * Tests hand in their own streams.
 */
public final class Console {
    private final Supplier<PrintStream> out;
    private final Supplier<PrintStream> err;

    private Console(Supplier<PrintStream> out, Supplier<PrintStream> err) {
        this.out = out;
        this.err = err;
    }

    /** The calling Gogo session's streams. */
    public static Console system() {
        return new Console(() -> System.out, () -> System.err);
    }

    /** Fixed streams, for tests and plain-Java use. */
    public static Console of(PrintStream out, PrintStream err) {
        return new Console(() -> out, () -> err);
    }

    public PrintStream out() {
        return out.get();
    }

    public PrintStream err() {
        return err.get();
    }
}
