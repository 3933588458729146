package org.hyperprof.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import org.hyperprof.api.output.Content;
import org.junit.jupiter.api.Assumptions;

/**
 * Targets that are not plain files, for the tests of everything that writes outputs: FIFOs with a
 * reader, Unix sockets with a listener, private device nodes (made with mknod in a test folder, so
 * no test ever writes near the machine's own /dev), and a tiny tmpfs to fill up. Shared with the
 * other bundles' tests through this bundle's test-jar.
 *
 * <p>Device nodes and tmpfs need root (CI runs as root); elsewhere those tests are skipped with the
 * reason, never passed.
 */
public final class OutputTargets {

    /**
     * How long a reader waits for a writer before the test fails: only a guard against a hang when
     * a writer never comes (as when old code replaced the FIFO), never a measure of speed.
     */
    private static final long HANG_GUARD_SECONDS = 60;

    private OutputTargets() {
    }

    /** Content that writes {@code s} in UTF-8. */
    public static Content text(String s) {
        return out -> out.write(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A new FIFO {@code dir/name}. */
    public static Path fifo(Path dir, String name) {
        Path fifo = dir.resolve(name);
        run("mkfifo", fifo.toString());
        return fifo;
    }

    /**
     * A private character device node {@code dir/name} with the numbers of a device of this machine
     * (1,3 is /dev/null; 1,7 is /dev/full). Replacing it replaces nothing of the machine's.
     */
    public static Path characterDevice(Path dir, String name, int major, int minor) {
        Path node = dir.resolve(name);
        Assumptions.assumeTrue(tryRun("mknod", node.toString(), "c", Integer.toString(major), Integer.toString(minor)),
                "making a device node needs root (CAP_MKNOD)");
        return node;
    }

    /** A private block device node {@code dir/name} (7,0 is the first loop device); for refusals only. */
    public static Path blockDevice(Path dir, String name) {
        Path node = dir.resolve(name);
        Assumptions.assumeTrue(tryRun("mknod", node.toString(), "b", "7", "0"),
                "making a device node needs root (CAP_MKNOD)");
        return node;
    }

    /** What is at {@code path}, without following a link: file, FIFO, character device, link, .... */
    public static String kind(Path path) {
        try {
            int type = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0170000;
            return switch (type) {
                case 0100000 -> "file";
                case 0040000 -> "folder";
                case 0120000 -> "symbolic link";
                case 0010000 -> "FIFO";
                case 0020000 -> "character device";
                case 0060000 -> "block device";
                case 0140000 -> "socket";
                default -> "mode " + Integer.toOctalString(type);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The permissions as {@code ls} shows them, e.g. {@code rw-r-----}. */
    public static String mode(Path file) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The names in a folder, sorted: to see that no temporary file stayed behind. */
    public static List<String> names(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- readers

    /** A thread reading a FIFO or a socket until it has {@code lines} line ends, or failing the test. */
    public static final class Reader implements AutoCloseable {
        private final CompletableFuture<String> text = new CompletableFuture<>();
        private final Runnable unblock;

        private Reader(Runnable unblock) {
            this.unblock = unblock;
        }

        /** Everything read, once the expected lines are in. */
        public String text() {
            try {
                return text.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                unblock.run();
                return fail("nothing (or too little) reached the reader in " + HANG_GUARD_SECONDS
                        + " s: was the target replaced instead of written into?");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("the reader failed", e.getCause());
            }
        }

        /** Lets a reader still waiting for a writer go (so no thread stays blocked after a failed test). */
        @Override
        public void close() {
            if (!text.isDone()) {
                unblock.run();
            }
        }
    }

    /**
     * Reads {@code fifo} on a thread of its own until {@code lines} line ends have come, holding it
     * open for reading and writing the whole time: the FIFO then never reports an end between two
     * writers. (Opened again after each writer's end, a second writer that opened just before the
     * reader closed had its bytes thrown away with the reader's end, and the test waited for them.)
     */
    public static Reader readFifo(Path fifo, int lines) {
        FileChannel channel;
        try {
            // O_RDWR: never blocks on a FIFO, and a writer's open does not wait either.
            channel = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Reader reader = new Reader(() -> {
            try {
                channel.close(); // ends a read still waiting
            } catch (IOException ignored) {
                // Closed is all that is asked.
            }
        });
        Thread t = new Thread(() -> {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            try (channel) {
                while (count(all, '\n') < lines) {
                    buffer.clear();
                    int n = channel.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    all.write(buffer.array(), 0, n);
                }
                reader.text.complete(all.toString(StandardCharsets.UTF_8));
            } catch (Throwable e) {
                reader.text.completeExceptionally(e);
            }
        }, "fifo-reader " + fifo.getFileName());
        t.setDaemon(true);
        t.start();
        return reader;
    }

    /** A Unix socket {@code dir/name} that accepts one connection and reads it to its end. */
    public static Reader listen(Path dir, String name) {
        Path path = dir.resolve(name);
        ServerSocketChannel server;
        try {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Reader reader = new Reader(() -> {
            try {
                server.close();
            } catch (IOException ignored) {
                // Closing is all that is left to do.
            }
        });
        Thread t = new Thread(() -> {
            try (server; SocketChannel client = server.accept(); InputStream in = Channels.newInputStream(client)) {
                reader.text.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (Throwable e) {
                reader.text.completeExceptionally(e);
            }
        }, "socket-reader " + name);
        t.setDaemon(true);
        t.start();
        return reader;
    }

    private static int count(ByteArrayOutputStream bytes, char c) {
        int n = 0;
        for (byte b : bytes.toByteArray()) {
            if (b == c) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- a small disk

    /** A tmpfs of a few KiB mounted on a folder: a disk that fills up. */
    public static final class SmallDisk implements AutoCloseable {
        private final Path mountPoint;

        private SmallDisk(Path mountPoint) {
            this.mountPoint = mountPoint;
        }

        public Path folder() {
            return mountPoint;
        }

        /** Fills the disk to the last byte with a file named {@code filler}. */
        public void fill() {
            byte[] block = new byte[512];
            try (OutputStream out = Files.newOutputStream(mountPoint.resolve("filler"))) {
                while (true) {
                    out.write(block);
                    out.flush();
                }
            } catch (IOException full) {
                // The disk is full: what the test wants.
            }
            try {
                Files.writeString(mountPoint.resolve("filler-2"), "x".repeat(4096));
            } catch (IOException full) {
                // Not a byte left.
            }
        }

        @Override
        public void close() {
            run("umount", mountPoint.toString());
        }
    }

    /** Mounts a tmpfs of {@code kib} KiB on a new folder {@code dir/name}. */
    public static SmallDisk smallDisk(Path dir, String name, int kib) {
        Path mountPoint = dir.resolve(name);
        try {
            Files.createDirectory(mountPoint);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Assumptions.assumeTrue(tryRun("mount", "-t", "tmpfs", "-o", "size=" + kib + "k", "tmpfs",
                mountPoint.toString()), "mounting a tmpfs needs root (CAP_SYS_ADMIN)");
        return new SmallDisk(mountPoint);
    }

    // ---------------------------------------------------------------- commands

    private static void run(String... command) {
        assertEquals(true, tryRun(command), String.join(" ", command) + " failed");
    }

    private static boolean tryRun(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().transferTo(OutputStream.nullOutputStream());
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
