package org.hyperprof.report.annotate;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The machine's tools for the annotation tests: gcc for the test program, perf to record it. */
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

    static boolean binutils() {
        return runs("objdump", "--version") && runs("nm", "--version");
    }

    /** Runs a command to its end; its standard output, or an IOException with its error output. */
    static String run(List<String> command) throws IOException, InterruptedException {
        Path err = Files.createTempFile("annotate-test", ".err");
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

    /** The test program hot.c built with {@code gcc -g -O1} into {@code dir}. */
    static Path hot(Path dir) throws IOException, InterruptedException {
        Path src = dir.resolve("hot.c");
        try (InputStream in = Tools.class.getResourceAsStream("hot.c")) {
            Files.write(src, in.readAllBytes());
        }
        Path exe = dir.resolve("hot");
        run(List.of("gcc", "-g", "-O1", "-fno-omit-frame-pointer", "-fno-inline", "-o", exe.toString(),
                src.toString()));
        return exe;
    }
}
