package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A named pipe with a writer waiting on it, for tests of inputs that are not files. Opening a FIFO
 * blocks until the other end opens, so a reader that wrongly opens it does not hang the test: the
 * writer meets it, writes {@code content} and closes, and the test sees a read where it expected a
 * refusal. {@link #close()} meets a writer that nobody met (the expected case) and waits for it.
 */
final class Fifo implements AutoCloseable {
    final Path path;
    private final Thread writer;

    Fifo(Path path, String content) throws IOException, InterruptedException {
        this.path = path;
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            mkfifo = null;
        }
        assumeTrue(mkfifo != null && mkfifo.waitFor() == 0 && Files.exists(path), "mkfifo is not available");
        writer = new Thread(() -> {
            try (OutputStream out = Files.newOutputStream(path)) { // blocks until a reader opens the FIFO
                out.write(content.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // The reader closed early: nothing to report.
            }
        }, "fifo-writer");
        writer.setDaemon(true);
        writer.start();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (writer.isAlive()) {
            try (InputStream in = Files.newInputStream(path)) { // meets the waiting writer
                in.readAllBytes();
            }
        }
        writer.join();
    }
}
