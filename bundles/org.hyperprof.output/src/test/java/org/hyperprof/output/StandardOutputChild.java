package org.hyperprof.output;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Run in a child JVM whose standard output is a file opened as a shell's {@code > file} does
 * (truncated, without O_APPEND): prints a line, writes an output to the target named by its
 * argument (e.g. /dev/stdout), and prints another line.
 */
public final class StandardOutputChild {
    private StandardOutputChild() {
    }

    public static void main(String[] args) throws Exception {
        System.out.print("before\n");
        System.out.flush();
        new OutputFilesComponent().write(Path.of(args[0]), out -> out.write("export\n".getBytes(StandardCharsets.UTF_8)));
        System.out.print("after\n");
        System.out.flush();
    }
}
