package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@link StoreChild} in its own JVM, on the test's class path, its output kept in {@code child.log}. */
final class ChildProcess implements AutoCloseable {
    final Process process;
    private final Path log;

    ChildProcess(Path folder, String... args) throws IOException {
        log = folder.resolve("child.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"),
            // Its copy of DuckDB's library goes where this JVM's goes (the build's folder).
            "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), StoreChild.class.getName()));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits until the child makes {@code latch}; fails if it ends first. */
    void await(Path latch) throws IOException, InterruptedException {
        while (!Files.exists(latch)) {
            if (!process.isAlive()) {
                throw new AssertionError("the child ended (" + process.exitValue() + ") before " + latch + ":\n"
                        + Files.readString(log));
            }
            Thread.sleep(10);
        }
    }

    /** kill -9, and waits until it is gone (reaped: no process has its pid any more). */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Waits for its end; its exit status. */
    int exit() throws InterruptedException, IOException {
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the child did not end:\n" + Files.readString(log));
        }
        return process.exitValue();
    }

    String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
