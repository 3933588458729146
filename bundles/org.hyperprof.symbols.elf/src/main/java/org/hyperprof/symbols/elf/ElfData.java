package org.hyperprof.symbols.elf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.util.HashMap;
import java.util.Map;

import org.hyperprof.input.InputLimit;

/**
 * The bytes of one ELF file: all of them in memory (a file that came as a stream), or read from the
 * file in 64 KiB blocks where the reader looks, so that the symbols of a 600 MB vmlinux with debug
 * information cost the few MB of its headers, symbol and string tables, not the file. Blocks read
 * are kept until the file is dropped: memory is the bytes read, and those stay within the
 * resolver's {@link InputLimit}.
 *
 * <p>A failure while reading a block (the limit passed, an I/O error, a file that shrank) surfaces
 * as an unchecked {@link ReadFailure} from whatever accessor needed the block; the resolver turns
 * it into a {@code SymbolFileException}.
 */
final class ElfData {

    private static final int BLOCK_SHIFT = 16;
    private static final int BLOCK = 1 << BLOCK_SHIFT;

    /** A block could not be read; {@link #getCause()} says why (an {@code InputTooLargeException} past the limit). */
    static final class ReadFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ReadFailure(IOException cause) {
            super(cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    /** The file's length in bytes. */
    final long length;
    private final SeekableByteChannel channel;
    private final InputLimit limit;
    private final String location;
    private final Map<Long, byte[]> blocks;
    private long bytesRead;

    // The block in hand: most reads fall in it.
    private byte[] window;
    private long windowStart;
    private int windowLength;

    private ElfData(long length, byte[] whole, SeekableByteChannel channel, InputLimit limit, String location) {
        this.length = length;
        this.channel = channel;
        this.limit = limit;
        this.location = location;
        this.blocks = channel == null ? null : new HashMap<>();
        this.window = whole == null ? new byte[0] : whole;
        this.windowLength = whole == null ? 0 : whole.length;
        this.bytesRead = whole == null ? 0 : whole.length;
    }

    /** A file held whole in memory (it was read, within the limit, as a stream). */
    static ElfData of(byte[] whole) {
        return new ElfData(whole.length, whole, null, null, null);
    }

    /** A file read from {@code channel} where it is looked at, at most {@code limit} in all. */
    static ElfData of(SeekableByteChannel channel, InputLimit limit, String location) throws IOException {
        return new ElfData(channel.size(), null, channel, limit, location);
    }

    /** Bytes read from the file so far. */
    long bytesRead() {
        return bytesRead;
    }

    int u8(long off) {
        long o = off - windowStart;
        if (o >= 0 && o < windowLength) {
            return window[(int) o] & 0xff;
        }
        move(off);
        return window[(int) (off - windowStart)] & 0xff;
    }

    /** {@code count} (at most 8) bytes at {@code off} as an unsigned number in the given byte order. */
    long bytes(long off, int count, boolean bigEndian) {
        long o = off - windowStart;
        if (o < 0 || o > windowLength - count) {
            if (channel == null || (off >>> BLOCK_SHIFT) != ((off + count - 1) >>> BLOCK_SHIFT)) {
                return slowBytes(off, count, bigEndian);
            }
            move(off);
            o = off - windowStart;
        }
        int at = (int) o;
        byte[] w = window;
        long v = 0;
        if (bigEndian) {
            for (int i = 0; i < count; i++) {
                v = (v << 8) | (w[at + i] & 0xff);
            }
        } else {
            for (int i = count - 1; i >= 0; i--) {
                v = (v << 8) | (w[at + i] & 0xff);
            }
        }
        return v;
    }

    /** A field that straddles two blocks: byte by byte. */
    private long slowBytes(long off, int count, boolean bigEndian) {
        long v = 0;
        if (bigEndian) {
            for (int i = 0; i < count; i++) {
                v = (v << 8) | u8(off + i);
            }
        } else {
            for (int i = count - 1; i >= 0; i--) {
                v = (v << 8) | u8(off + i);
            }
        }
        return v;
    }

    /**
     * A copy of {@code count} bytes from {@code off}; the caller checked that they lie in the file,
     * and {@link #prefetch} them first when their count comes from the file, so that the copy is
     * never larger than what the limit let in.
     */
    byte[] copy(long off, int count) {
        byte[] out = new byte[count];
        int done = 0;
        while (done < count) {
            long at = off + done;
            long o = at - windowStart;
            if (o < 0 || o >= windowLength) {
                move(at);
                o = at - windowStart;
            }
            int n = (int) Math.min(count - done, windowLength - o);
            System.arraycopy(window, (int) o, out, done, n);
            done += n;
        }
        return out;
    }

    /**
     * Reads {@code size} bytes from {@code off} now (nothing for a file held whole): before a reader
     * allocates arrays for a table whose size the file claims, so that the limit stops a lying size
     * before the memory is taken.
     */
    void prefetch(long off, long size) {
        if (channel == null || size <= 0) {
            return;
        }
        long end = Math.min(length, off + size);
        for (long block = off >>> BLOCK_SHIFT; block <= (end - 1) >>> BLOCK_SHIFT; block++) {
            block(block);
        }
    }

    /** Makes the block holding {@code off} the one in hand; the caller checked that {@code off} is in the file. */
    private void move(long off) {
        if (channel == null) {
            throw new IndexOutOfBoundsException("offset " + off + " of a file of " + length + " bytes");
        }
        long index = off >>> BLOCK_SHIFT;
        window = block(index);
        windowStart = index << BLOCK_SHIFT;
        windowLength = window.length;
    }

    private byte[] block(long index) {
        byte[] b = blocks.get(index);
        if (b != null) {
            return b;
        }
        long start = index << BLOCK_SHIFT;
        int size = (int) Math.min(BLOCK, length - start);
        if (size <= 0) {
            throw new IndexOutOfBoundsException("offset " + start + " of a file of " + length + " bytes");
        }
        if (bytesRead + size > limit.maxBytes()) {
            throw new ReadFailure(limit.exceeded(location));
        }
        b = new byte[size];
        ByteBuffer into = ByteBuffer.wrap(b);
        try {
            channel.position(start);
            while (into.hasRemaining()) {
                if (channel.read(into) < 0) {
                    throw new IOException("the file ended at offset 0x" + Long.toHexString(start + into.position())
                            + " while it was read, though it had " + length + " bytes when it was opened: it changed"
                            + " while Hyperprof read it; read it again once it is complete");
                }
            }
        } catch (IOException e) {
            throw new ReadFailure(e);
        }
        bytesRead += size;
        blocks.put(index, b);
        return b;
    }
}
