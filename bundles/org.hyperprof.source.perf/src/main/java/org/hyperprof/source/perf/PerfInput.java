package org.hyperprof.source.perf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * The bytes of a recording's data as a {@link ByteBuffer} in the recording's byte order, so that a
 * whole record (at most 64 KiB) is always contiguous in {@link #view}:
 * <ul>
 * <li>a file's data section up to 2 GiB is memory-mapped: nothing is copied, and records stay
 * where they are until the import ends ({@link #stable()});</li>
 * <li>a pipe (or a larger file) is read ahead into a large buffer, refilled as the recording
 * comes; records must be copied before the buffer moves on.</li>
 * </ul>
 * Offsets are absolute: {@link #offset(int)} is where a buffer position lies in the file or stream.
 */
final class PerfInput {

    /** Read-ahead buffer size: many records per refill, far above the largest record. */
    static final int BUFFER_SIZE = 1 << 20;
    /** The largest data section mapped whole. */
    static final long MAX_MAPPED = Integer.MAX_VALUE - 8;

    private final FileChannel file;
    private final InputStream stream;
    private final ByteOrder order;
    private final long end;
    private final boolean mapped;
    private byte[] buf;
    ByteBuffer view;
    int pos;
    int limit;
    /** Absolute offset of {@code view} position 0. */
    private long base;
    private boolean eof;

    private PerfInput(FileChannel file, InputStream stream, ByteOrder order, long start, long end, ByteBuffer mappedView) {
        this.file = file;
        this.stream = stream;
        this.order = order;
        this.end = end;
        this.base = start;
        if (mappedView != null) {
            this.mapped = true;
            this.view = mappedView.order(order);
            this.limit = mappedView.capacity();
            this.eof = true;
        } else {
            this.mapped = false;
            this.buf = new byte[BUFFER_SIZE];
            this.view = ByteBuffer.wrap(buf).order(order);
        }
    }

    /** The section {@code [start, end)} of a file: mapped when it fits, else read ahead. */
    static PerfInput ofFile(FileChannel file, ByteOrder order, long start, long end) throws IOException {
        long length = end - start;
        if (length <= MAX_MAPPED) {
            return new PerfInput(file, null, order, start, end, file.map(FileChannel.MapMode.READ_ONLY, start, length));
        }
        return new PerfInput(file, null, order, start, end, null);
    }

    /** A stream whose first {@code consumed} bytes were read already. */
    static PerfInput ofStream(InputStream stream, ByteOrder order, long consumed) {
        return new PerfInput(null, stream, order, consumed, Long.MAX_VALUE, null);
    }

    /**
     * The same mapped data read from {@code offset} on, by another reader (on another thread): its
     * own position over the same bytes.
     */
    PerfInput part(long offset) {
        PerfInput p = new PerfInput(null, null, order, base, end, view.duplicate());
        p.seek(offset);
        return p;
    }

    /** Moves a mapped input's position to absolute {@code offset} (within the data). */
    void seek(long offset) {
        if (!mapped || offset < base || offset > base + limit) {
            throw new IllegalArgumentException("offset " + offset + " is not within the mapped data [" + base + ", "
                    + (base + limit) + "]");
        }
        pos = (int) (offset - base);
    }

    /** Whether a record's bytes stay where they are in {@link #view} for the whole read (no copy needed). */
    boolean stable() {
        return mapped;
    }

    long offset(int bufferPosition) {
        return base + bufferPosition;
    }

    /** Absolute offset of the next unread byte. */
    long offset() {
        return base + pos;
    }

    /**
     * Makes at least {@code n} bytes available at {@link #pos}, reading more as needed; returns how
     * many are available, fewer than {@code n} only at the end of the data.
     */
    int ensure(int n) throws IOException {
        int available = limit - pos;
        if (available >= n || eof) {
            return available;
        }
        if (buf.length - pos < n) {
            System.arraycopy(buf, pos, buf, 0, available);
            base += pos;
            limit = available;
            pos = 0;
            if (buf.length < n) {
                byte[] bigger = new byte[n];
                System.arraycopy(buf, 0, bigger, 0, limit);
                buf = bigger;
                view = ByteBuffer.wrap(buf).order(order);
            }
        }
        while (limit - pos < n && !eof) {
            int room = buf.length - limit;
            int got;
            if (file != null) {
                long left = end - (base + limit);
                if (left <= 0) {
                    eof = true;
                    break;
                }
                got = file.read(ByteBuffer.wrap(buf, limit, (int) Math.min(room, left)), base + limit);
            } else {
                got = stream.read(buf, limit, room);
            }
            if (got < 0) {
                eof = true;
            } else {
                limit += got;
            }
        }
        return limit - pos;
    }

    /** Skips {@code n} bytes (data that follows some records outside their size); false at the end first. */
    boolean skip(long n) throws IOException {
        long left = n;
        while (left > 0) {
            int available = limit - pos;
            if (available == 0) {
                if (ensure(1) == 0) {
                    return false;
                }
                continue;
            }
            int step = (int) Math.min(available, left);
            pos += step;
            left -= step;
        }
        return true;
    }
}
