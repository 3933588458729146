package org.hyperprof.input;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Objects;

import org.hyperprof.api.input.InputTooLargeException;

/**
 * The most bytes a reader takes in of one kind of input, and how the user raises it. Every reader of
 * outside input keeps its memory within a constant times the bytes it read, and reads at most this
 * many, so a wrong file (a disk image given as a System.map, a file that grows while it is read)
 * ends in a clear {@link InputTooLargeException} instead of filling the heap.
 *
 * @param what     the kind of input, for messages: {@code scenario}, {@code ELF image}
 * @param maxBytes the most bytes read, at least 1
 * @param raise    how the user raises the limit: the option or setting, e.g.
 *                 {@code max.read.mb of PID org.hyperprof.symbols.elf (Configuration Admin)}
 */
public record InputLimit(String what, long maxBytes, String raise) {

    /** The most one array holds: a reader that keeps a stream whole in memory reads no more. */
    public static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    public InputLimit {
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(raise, "raise");
        if (maxBytes < 1) {
            throw new IllegalArgumentException("the limit of " + what + " input must be at least 1 byte; got "
                    + maxBytes);
        }
    }

    /** A limit of {@code megabytes} MiB (2^20 bytes). */
    public static InputLimit ofMegabytes(String what, long megabytes, String raise) {
        if (megabytes < 1 || megabytes > Long.MAX_VALUE >> 20) {
            throw new IllegalArgumentException("the limit of " + what + " input is " + megabytes + " MiB; expected 1 to "
                    + (Long.MAX_VALUE >> 20) + " (" + raise + ")");
        }
        return new InputLimit(what, megabytes << 20, raise);
    }

    /**
     * Checks a size known before reading (a file's length, a section's size).
     *
     * @throws InputTooLargeException when {@code bytes} is above the limit
     */
    public void check(long bytes, String location) throws InputTooLargeException {
        if (Long.compareUnsigned(bytes, maxBytes) > 0) {
            throw new InputTooLargeException(location, "is " + size(bytes) + ", more than the "
                    + size(maxBytes) + " Hyperprof reads of " + article() + "; " + advice());
        }
    }

    /** The error of a reader that counts what it read itself: more than the limit came in. */
    public InputTooLargeException exceeded(String location) {
        return new InputTooLargeException(location, "holds more than " + size(maxBytes) + ", the most"
                + " Hyperprof reads of " + article() + "; " + advice());
    }

    /**
     * {@code in}, ending in an {@link InputTooLargeException} when more than the limit would be read.
     * A file opened by {@link InputFile#open} whose size is already above the limit is refused here,
     * before it is read.
     */
    public InputStream bound(InputStream in, String location) throws InputTooLargeException {
        Objects.requireNonNull(in, "in");
        if (in instanceof InputFile.Stream file) {
            check(file.size, location);
        }
        return new Bounded(in, location);
    }

    /**
     * Reads a whole stream into memory, at most the limit (and at most {@link #MAX_ARRAY}); the
     * stream is bounded as {@link #bound} does. The array has the stream's length.
     */
    public byte[] readAll(InputStream in, String location) throws IOException {
        long size = in instanceof InputFile.Stream file ? file.size : 0;
        InputStream bounded = bound(in, location);
        long cap = Math.min(maxBytes, MAX_ARRAY);
        // A file's size sizes the buffer; a stream of unknown length grows it by doubling (at most
        // three times what was read, counting the final copy).
        byte[] buffer = new byte[(int) Math.min(cap, size > 0 ? size : 64 << 10)];
        int length = 0;
        while (true) {
            if (length == buffer.length) {
                int next = bounded.read(); // past the limit, the bounded stream throws
                if (next < 0) {
                    break;
                }
                if (buffer.length == cap) {
                    throw new InputTooLargeException(location, "holds more than " + size(cap)
                            + ", the most one stream can hold in memory; give the file itself");
                }
                buffer = Arrays.copyOf(buffer, (int) Math.min(cap, buffer.length * 2L));
                buffer[length++] = (byte) next;
                continue;
            }
            int got = bounded.read(buffer, length, buffer.length - length);
            if (got < 0) {
                break;
            }
            length += got;
        }
        return length == buffer.length ? buffer : Arrays.copyOf(buffer, length);
    }

    /** {@code 16 MiB} or {@code 1000 bytes}. */
    public static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 20) {
            return String.format("%.1f MiB (%d bytes)", bytes / (double) (1 << 20), bytes);
        }
        return bytes + " bytes";
    }

    private String article() {
        String a = "aeiouAEIOU".indexOf(what.charAt(0)) >= 0 ? "an " : "a ";
        return a + what;
    }

    private String advice() {
        return "check that it is the file you meant, or raise the limit (" + raise + ")";
    }

    /** Counts what passes; past the limit, the next read fails instead of returning more. */
    private final class Bounded extends FilterInputStream {
        private final String location;
        private long count;

        Bounded(InputStream in, String location) {
            super(in);
            this.location = location;
        }

        @Override
        public int read() throws IOException {
            if (count == maxBytes) {
                return probe();
            }
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (count == maxBytes) {
                return probe();
            }
            int got = super.read(b, off, (int) Math.min(len, maxBytes - count));
            if (got > 0) {
                count += got;
            }
            return got;
        }

        /** At the limit: the end of the input is fine, one byte more is an error. */
        private int probe() throws IOException {
            if (super.read() < 0) {
                return -1;
            }
            throw exceeded(location);
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(Math.min(n, maxBytes - count));
            count += Math.max(0, skipped);
            return skipped;
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }
}
