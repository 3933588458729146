package org.hyperprof.report.perfscript;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The machine's tools for the agreement tests: gcc for the test program, perf to record and print it. */
final class Tools {

    private Tools() {
    }

    /** Whether the command runs and exits with 0. */
    static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs a command to its end; its standard output, or an IOException with its error output. */
    static String run(List<String> command) throws IOException, InterruptedException {
        Path err = Files.createTempFile("perfscript-test", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(command + " failed: " + Files.readString(err));
            }
            return out;
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** The test program busy.c built with {@code gcc -O1} (frame pointers kept) into {@code dir}. */
    static Path busy(Path dir) throws IOException, InterruptedException {
        Path src = dir.resolve("busy.c");
        try (InputStream in = Tools.class.getResourceAsStream("busy.c")) {
            Files.write(src, in.readAllBytes());
        }
        Path exe = dir.resolve("busy");
        run(List.of("gcc", "-O1", "-fno-omit-frame-pointer", "-fno-inline", "-o", exe.toString(), src.toString()));
        return exe;
    }
}
