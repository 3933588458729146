package org.hyperprof.store.clickhouse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A request body written on one thread (the store copying a session's rows) and read on another (the
 * HTTP client sending it), in chunks of 64 KiB, at most four in flight: the rows stream to the server and
 * are never all in memory. Unlike {@code java.io.PipedInputStream} it does not care which threads read
 * (the HTTP client's pool changes them). Either side may give up: the other then fails at once.
 */
final class BodyPipe {
    private static final int CHUNK = 1 << 16;
    private static final byte[] END = new byte[0];

    private final BlockingQueue<byte[]> chunks = new ArrayBlockingQueue<>(4);
    private volatile boolean abandoned;

    final OutputStream out = new OutputStream() {
        private byte[] chunk = new byte[CHUNK];
        private int used;

        @Override
        public void write(int b) throws IOException {
            if (used == CHUNK) {
                hand();
            }
            chunk[used++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                if (used == CHUNK) {
                    hand();
                }
                int n = Math.min(len, CHUNK - used);
                System.arraycopy(b, off, chunk, used, n);
                used += n;
                off += n;
                len -= n;
            }
        }

        private void hand() throws IOException {
            byte[] full = used == CHUNK ? chunk : java.util.Arrays.copyOf(chunk, used);
            put(full);
            chunk = new byte[CHUNK];
            used = 0;
        }

        @Override
        public void close() throws IOException {
            if (used > 0) {
                hand();
            }
            put(END);
        }
    };

    final InputStream in = new InputStream() {
        private byte[] chunk = new byte[0];
        private int read;
        private boolean ended;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (read == chunk.length) {
                if (ended) {
                    return -1;
                }
                chunk = take();
                read = 0;
                if (chunk == END) {
                    ended = true;
                }
            }
            int n = Math.min(len, chunk.length - read);
            System.arraycopy(chunk, read, b, off, n);
            read += n;
            return n;
        }

        @Override
        public void close() {
            abandon();
        }
    };

    /** Either side gave up: the writer's next write and the reader's next read fail. */
    void abandon() {
        abandoned = true;
        chunks.clear();
    }

    private void put(byte[] chunk) throws IOException {
        try {
            while (!chunks.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                if (abandoned) {
                    throw new IOException("the request was given up (the server went away)");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private byte[] take() throws IOException {
        try {
            byte[] c;
            while ((c = chunks.poll(100, TimeUnit.MILLISECONDS)) == null) {
                if (abandoned) {
                    throw new IOException("the rows were not all written (the store failed)");
                }
            }
            return c;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
