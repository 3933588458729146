package org.hyperprof.testing.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hyperprof.testing.tools.TestPrograms;

/**
 * {@code go tool pprof} (Debian's golang-go, which CI installs) as the tests run it: its temporary
 * files and its home in the test's own folder, its output whole, a failure with what it printed.
 */
public final class GoPprof {
    /** Why a test that needs pprof is skipped where it is missing. */
    public static final String MISSING = "go (Debian golang-go) is not installed; .ci/run installs it";

    private GoPprof() {
    }

    /** Whether {@code go version} runs here. */
    public static boolean available() {
        return TestPrograms.runs("go", "version");
    }

    /**
     * Runs {@code go tool pprof ARGS} and returns its standard output and error; fails on a non-zero
     * exit. {@code scratch} holds its output and is its PPROF_TMPDIR and HOME.
     */
    public static String run(Path scratch, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("go", "tool", "pprof"));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(scratch, "pprof", ".out");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        builder.environment().put("PPROF_TMPDIR", scratch.toString());
        builder.environment().put("HOME", scratch.toString());
        Process p = builder.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "go tool pprof did not finish in 120 s");
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "go tool pprof " + command + " failed:\n" + text);
        return text;
    }
}
