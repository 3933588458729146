package org.hyperprof.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code launch/hyperprof} run as a user runs it: a process with its own process group (as a
 * terminal's foreground job), its output read line by line as it comes, signals sent the way a
 * terminal (Ctrl-C: SIGINT to the whole group) or a supervisor (SIGTERM to the script) sends them.
 * Tests wait for a line the launcher prints before they act, never for a time; the only timeout is
 * the guard that ends a test that would otherwise hang.
 */
final class Launcher implements AutoCloseable {
    /** How long a test waits for a line before it fails instead of hanging. */
    private static final long GUARD_SECONDS = 120;

    private final Process process;
    private final OutputStream stdin;
    /** Every line so far; guarded by itself. */
    private final List<String> lines = new ArrayList<>();
    private boolean ended;

    private Launcher(LaunchMode mode, List<String> args) throws IOException {
        this(mode, args, Map.of());
    }

    /** @param env variables set for the launcher beyond the mode's, e.g. HYPERPROF_CONFIG_DIR */
    private Launcher(LaunchMode mode, List<String> args, Map<String, String> env) throws IOException {
        Path script = LaunchMode.launcher();
        if (!Files.isExecutable(script)) {
            throw new IllegalStateException("the launcher script " + script + " is missing or not executable");
        }
        List<String> command = new ArrayList<>();
        // A session of its own, so the test can signal the launcher's whole process group as a
        // terminal does; SIGINT and SIGTERM at their defaults, whatever the build inherited (a
        // build started in the background has SIGINT ignored, and the JVM then keeps it ignored).
        command.addAll(List.of("perl", "-MPOSIX", "-e",
                "POSIX::setsid(); $SIG{INT} = 'DEFAULT'; $SIG{TERM} = 'DEFAULT'; exec @ARGV or die \"exec: $!\\n\"",
                script.toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(mode.environment());
        pb.environment().putAll(env);
        process = pb.start();
        stdin = process.getOutputStream();
        Thread reader = new Thread(this::read, "launcher output");
        reader.setDaemon(true);
        reader.start();
    }

    /** {@code launch/hyperprof 'line' ...}: the command lines piped in, input closed. */
    static Launcher piped(LaunchMode mode, String... commandLines) throws IOException {
        Launcher l = new Launcher(mode, List.of(commandLines));
        l.stdin.close();
        return l;
    }

    /**
     * {@code launch/hyperprof 'line' ...} in a JVM of its own (a fresh framework each time) with
     * environment variables {@code env}, input closed.
     */
    static Launcher piped(Map<String, String> env, String... commandLines) throws IOException {
        Launcher l = new Launcher(LaunchMode.IN_PROCESS, List.of(commandLines), env);
        l.stdin.close();
        return l;
    }

    /** {@code launch/hyperprof -i}: the interactive shell, its input written by the test. */
    static Launcher interactive() throws IOException {
        return new Launcher(LaunchMode.IN_PROCESS, List.of("-i"));
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process is gone: what it printed is kept.
        } finally {
            synchronized (lines) {
                ended = true;
                lines.notifyAll();
            }
        }
    }

    /** Types a command line into the interactive shell. */
    void type(String commandLine) throws IOException {
        stdin.write((commandLine + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /** Ends the shell's input (Ctrl-D). */
    void endInput() throws IOException {
        stdin.close();
    }

    /** Waits for the first line, from {@code from} on, that matches; returns its match. */
    Matcher await(Pattern pattern, int from) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
        synchronized (lines) {
            int next = from;
            while (true) {
                for (; next < lines.size(); next++) {
                    Matcher m = pattern.matcher(lines.get(next));
                    if (m.find()) {
                        return m;
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError((ended ? "the launcher ended" : "no line in " + GUARD_SECONDS + " s")
                            + " without a line matching " + pattern + "; it printed:\n" + transcript());
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
    }

    Matcher await(String regex) throws InterruptedException {
        return await(Pattern.compile(regex), 0);
    }

    /** Lines printed so far. */
    int lineCount() {
        synchronized (lines) {
            return lines.size();
        }
    }

    String transcript() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /**
     * The process whose id is the launcher's: the script (or the resident framework's client it
     * becomes) in piped mode, the JVM itself in interactive mode.
     */
    long pid() {
        return process.pid();
    }

    /** Ctrl-C at the terminal: SIGINT to every process of the launcher's group. */
    void ctrlC() throws IOException, InterruptedException {
        signal("-INT", process.pid());
    }

    /** SIGTERM to the launcher's process alone, as {@code kill} or a supervisor sends it. */
    void terminate() throws IOException, InterruptedException {
        signal("TERM", process.pid());
    }

    /** Sends a signal with perl (always on Debian, unlike procps' kill); a name with '-' goes to the process group. */
    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("perl", "-e", "kill($ARGV[0], $ARGV[1]) == 1 or die \"kill: $!\\n\"", "--",
                signal, Long.toString(pid)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("sending " + signal + " to " + pid + " failed");
        }
    }

    /** Waits for the launcher to end, and for all it printed; its exit status. */
    int exitStatus() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
        if (!process.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("the launcher did not end in " + GUARD_SECONDS + " s; it printed:\n"
                    + transcript());
        }
        synchronized (lines) {
            while (!ended) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    // The script is gone, and something it started still writes to its output: a JVM left behind.
                    throw new AssertionError("the launcher ended with status " + process.exitValue() + " but a process"
                            + " it started still runs, holding its output; it printed:\n" + transcript());
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        // Whatever the test saw, nothing it started stays: the whole group, the script's children
        // included (on d4f374f a SIGTERM left the JVM running without its script).
        try {
            signal("-KILL", process.pid());
        } catch (IOException | AssertionError e) {
            // The group is empty: everything has ended.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            stdin.close();
        } catch (IOException e) {
            // The launcher ended first: its input is gone with it.
        }
    }
}
