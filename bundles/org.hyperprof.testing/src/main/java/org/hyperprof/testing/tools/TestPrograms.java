package org.hyperprof.testing.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * The test programs the agreement tests record with perf (C sources kept here, once: {@code busy.c},
 * {@code hot.c}), built with the machine's gcc at test time, and the running of the machine's tools.
 */
public final class TestPrograms {

    private TestPrograms() {
    }

    /** Whether the command runs and exits with 0 (within a minute). */
    public static boolean runs(String... command) {
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

    /** Whether binutils' objdump and nm are installed. */
    public static boolean binutils() {
        return runs("objdump", "--version") && runs("nm", "--version");
    }

    /**
     * Skips the test unless gcc builds the test programs and perf may record here (a probe recording of
     * {@code true} into {@code scratch}).
     */
    public static void assumeGccAndPerfRecording(Path scratch) {
        Assumptions.assumeTrue(runs("gcc", "--version"), "gcc is not installed");
        Assumptions.assumeTrue(runs("perf", "record", "-q", "-e", "cpu-clock", "-o",
                scratch.resolve("probe.data").toString(), "--", "true"),
                "perf is not installed (Debian package linux-perf) or may not record here");
    }

    /** Runs a command to its end; its standard output, or an IOException with its error output. */
    public static String run(List<String> command) throws IOException, InterruptedException {
        Path err = Files.createTempFile("hyperprof-test-tool", ".err");
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

    /** The C source {@code source} of this package ({@code busy.c}, {@code hot.c}), or null if there is none. */
    public static InputStream source(String source) {
        return TestPrograms.class.getResourceAsStream(source);
    }

    /**
     * Test program {@code source} built into {@code dir} as {@code name} with {@code gcc -O1
     * -fno-omit-frame-pointer -fno-inline} and {@code flags} (frame pointers kept and nothing inlined,
     * so that perf's call chains and symbols are the source's functions).
     */
    public static Path build(Path dir, String source, String name, String... flags)
            throws IOException, InterruptedException {
        Path src = dir.resolve(name + ".c");
        try (InputStream in = source(source)) {
            if (in == null) {
                throw new IOException("no test program " + source + " in " + TestPrograms.class.getPackageName());
            }
            Files.write(src, in.readAllBytes());
        }
        Path exe = dir.resolve(name);
        List<String> cmd = new ArrayList<>(List.of("gcc", "-O1", "-fno-omit-frame-pointer", "-fno-inline"));
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("-o", exe.toString(), src.toString()));
        run(cmd);
        return exe;
    }
}
