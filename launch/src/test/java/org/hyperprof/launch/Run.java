package org.hyperprof.launch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One finished call of a launcher script, input from /dev/null: its status and its two streams, kept apart. */
record Run(int status, String out, String err) {
    /** How long a call may take before the test fails instead of hanging. */
    private static final long GUARD_SECONDS = 120;

    /**
     * Calls {@code launcher args...} in {@code workingDir} with {@code env} added to the environment;
     * its output is kept in files made in {@code scratch}.
     */
    static Run of(Path launcher, Path workingDir, Map<String, String> env, Path scratch, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(scratch, "out", "");
        Path err = Files.createTempFile(scratch, "err", "");
        ProcessBuilder pb = new ProcessBuilder(command).directory(workingDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("the launcher did not end in " + GUARD_SECONDS + " s; stderr:\n"
                    + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
