package org.hyperprof.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code launch/hyperprof -i} on a real terminal: a detached tmux session of a fixed size, on a tmux
 * server of its own, whose keys the test sends and whose screen it reads as a user sees it. The
 * launcher runs with {@code home} as its home folder (HOME and user.home), so the shell's history
 * goes there. Tests wait for text on the screen before they act, polling, never for a time; the only
 * timeout is the guard that ends a test that would otherwise hang.
 */
final class Tmux implements AutoCloseable {
    /** How long a test waits for text before it fails instead of hanging. */
    private static final long GUARD_SECONDS = 120;
    private static final String SESSION = "hp";

    private final String server;
    /** Where the launcher's exit status is written when it ends. */
    private final Path status;

    private Tmux(String server, Path status) {
        this.server = server;
        this.status = status;
    }

    /** Whether tmux is installed here. */
    static boolean installed() {
        try {
            return new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts {@code launch/hyperprof -i} in a new 120 x 40 terminal; the pane stays after it exits. */
    static Tmux interactive(Path home) throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("hyperprof.launcher", "hyperprof")).toAbsolutePath();
        if (!Files.isExecutable(script)) {
            throw new IllegalStateException("the launcher script " + script + " is missing or not executable");
        }
        Path status = home.resolve("launcher-exit-status");
        Files.deleteIfExists(status);
        Tmux t = new Tmux("hyperprof-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime(), status);
        // No user configuration, a plain terminal type, and the pane kept once the launcher ends. The
        // exit status is written to a file by the shell that runs the launcher: tmux does not always
        // record a dead pane's status (#{pane_dead_status} stayed empty in some runs).
        t.tmux("-f", "/dev/null", "new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40",
                "env", "HOME=" + home, "TERM=xterm-256color",
                "HYPERPROF_JAVA_OPTS=-Duser.home=" + home,
                "bash", "-c", "\"$0\" -i; echo $? > \"$1\"", script.toString(), status.toString());
        t.tmux("set-option", "-t", SESSION, "remain-on-exit", "on");
        return t;
    }

    /** Sends keys as tmux names them: text, {@code Tab}, {@code Enter}, {@code Up}, {@code C-c}, {@code C-d}. */
    void keys(String... keys) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", SESSION));
        args.addAll(List.of(keys));
        tmux(args.toArray(String[]::new));
    }

    /** Types text literally (no key names). */
    void type(String text) throws IOException, InterruptedException {
        tmux("send-keys", "-t", SESSION, "-l", "--", text);
    }

    /** The screen and its scrollback, wrapped lines joined. */
    String screen() throws IOException, InterruptedException {
        return tmux("capture-pane", "-p", "-J", "-S", "-", "-t", SESSION);
    }

    /** The line the cursor is on, as shown. */
    String cursorLine() throws IOException, InterruptedException {
        String y = tmux("display-message", "-p", "-t", SESSION, "#{cursor_y}").strip();
        return tmux("capture-pane", "-p", "-J", "-t", SESSION, "-S", y, "-E", y).stripTrailing();
    }

    /** Waits until the screen matches; returns the match. */
    Matcher await(String regex) throws IOException, InterruptedException {
        Pattern p = Pattern.compile(regex, Pattern.MULTILINE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
        while (true) {
            String s = screen();
            Matcher m = p.matcher(s);
            if (m.find()) {
                return m;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no text matching " + regex + " in " + GUARD_SECONDS + " s; the screen:\n" + s);
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** Waits until the line at the cursor matches (the line being edited after Tab). */
    String awaitCursorLine(String regex) throws IOException, InterruptedException {
        Pattern p = Pattern.compile(regex);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
        while (true) {
            String line = cursorLine();
            if (p.matcher(line).matches()) {
                return line;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the line being edited never matched " + regex + "; it is '" + line
                        + "'; the screen:\n" + screen());
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** Waits for the launcher to end; its exit status. */
    int exitStatus() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
        while (true) {
            String written = Files.exists(status) ? Files.readString(status).strip() : "";
            if (!written.isEmpty()) {
                return Integer.parseInt(written);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the launcher did not end in " + GUARD_SECONDS + " s; the screen:\n"
                        + screen());
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", server));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        // The server, the pane and whatever still runs in it (a launcher a failed test left behind).
        new ProcessBuilder("tmux", "-L", server, "kill-server").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    }
}
