package org.hyperprof.source.perf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.airlift.compress.zstd.ZstdIncrementalFrameDecompressor;

/**
 * The records inside a recording's COMPRESSED records ({@code perf record -z}). perf compresses
 * its ring buffers as one zstd stream, flushed into one COMPRESSED record after another: a record
 * holds the next piece of that stream, not a frame of its own, and a decompressed record may
 * straddle two COMPRESSED records. So, as perf's session does, one decoder carries the stream
 * from record to record, and the bytes of a record not yet whole stay at the front of the buffer
 * that the next COMPRESSED record decompresses into.
 *
 * <p>The decoder is aircompressor's incremental one (pure Java, carried inside this bundle). It
 * hands a block's bytes out only once a window's worth (512 KiB in perf's level-1 stream) has followed
 * them, and perf's stream never ends; so what it decoded and still holds is read from its window
 * (its private fields, through a private lookup: pinned to the version in the POM, and checked by
 * the tests against perf on real recordings). A bad stream is its exception, never a crash: it
 * checks every bound before it reads.
 *
 * <p>One input and one output buffer, grown when needed and reused: nothing is allocated per
 * record. Not thread-safe: one reading thread.
 */
final class CompressedRecords {

    /** The most one COMPRESSED record may decompress to: perf's own buffer is a ring buffer's size, far less. */
    static final int MAX_DECOMPRESSED = 256 << 20;
    /** aircompressor addresses a byte[] as sun.misc.Unsafe does: from the array's base offset. */
    private static final long ARRAY_BASE = sun.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET;
    /** The decoder's window: the bytes it decoded and has not handed out yet (aircompressor 0.27's fields). */
    private static final VarHandle WINDOW_BASE;
    private static final VarHandle WINDOW_ADDRESS;
    private static final VarHandle WINDOW_POSITION;

    static {
        try {
            MethodHandles.Lookup decoder = MethodHandles.privateLookupIn(ZstdIncrementalFrameDecompressor.class,
                    MethodHandles.lookup());
            WINDOW_BASE = decoder.findVarHandle(ZstdIncrementalFrameDecompressor.class, "windowBase", byte[].class);
            WINDOW_ADDRESS = decoder.findVarHandle(ZstdIncrementalFrameDecompressor.class, "windowAddress", long.class);
            WINDOW_POSITION = decoder.findVarHandle(ZstdIncrementalFrameDecompressor.class, "windowPosition",
                    long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Bad compressed data: the reader names the COMPRESSED record. */
    static final class Corrupt extends Exception {
        private static final long serialVersionUID = 1L;

        Corrupt(String message) {
            super(message);
        }
    }

    private final ByteOrder order;
    private final ZstdIncrementalFrameDecompressor zstd = new ZstdIncrementalFrameDecompressor();
    /** Compressed bytes not yet decoded, {@code in[inPos, inLimit)}: a block that the next record completes. */
    private byte[] in = new byte[1 << 16];
    private int inPos;
    private int inLimit;
    /** Where the decoder's output goes first: mostly bytes already taken from its window. */
    private final byte[] scratch = new byte[1 << 17];
    /** Bytes of the decoded stream the decoder handed out so far. */
    private long flushed;
    /** Bytes of the decoded stream appended to {@link #out} so far (at least {@link #flushed}). */
    private long appended;
    private byte[] out = new byte[1 << 20];
    private ByteBuffer view;
    /** The next record to hand on starts here in {@link #view}. */
    int head;
    /** Decompressed bytes end here in {@link #view}. */
    int size;
    /** How often a record was cut by the end of a COMPRESSED record's data (and completed by the next). */
    long recordsCut;

    CompressedRecords(ByteOrder order) {
        this.order = order;
        this.view = ByteBuffer.wrap(out).order(order);
    }

    /** The decompressed records, {@code [head, size)}; valid until the next {@link #add}. */
    ByteBuffer view() {
        return view;
    }

    /** Decompressed bytes not yet handed on: a record cut where the compressed data ended so far. */
    int left() {
        return size - head;
    }

    /** Compressed bytes the decoder holds for a block not yet whole. */
    int pendingInput() {
        return inLimit - inPos;
    }

    /**
     * Decompresses the next piece of the stream, {@code len} bytes of {@code b} from {@code from},
     * after the record bytes left from the pieces before. Like perf, it takes at most {@code limit}
     * decompressed bytes from one piece (the COMPRESSED feature's mmap_len: perf's buffer).
     */
    void add(ByteBuffer b, int from, int len, long limit) throws Corrupt {
        long before = appended;
        takeInput(b, from, len);
        keepLeftRecordBytes();
        try {
            while (true) {
                int required = zstd.getInputRequired();
                if (inLimit - inPos < required) {
                    break;
                }
                zstd.partialDecompress(in, ARRAY_BASE + inPos, ARRAY_BASE + inLimit, scratch, 0, scratch.length);
                int consumed = zstd.getInputConsumed();
                int produced = zstd.getOutputBufferUsed();
                inPos += consumed;
                append(scratch, 0, produced, flushed);
                flushed += produced;
                if (consumed == 0 && produced == 0) {
                    break;
                }
            }
            // The decoder hands out a block's bytes only once a window's worth follows them (it keeps
            // them for back-references until then), and perf's stream never ends: what it holds
            // decoded is taken from its window, as perf's zstd hands out every flushed block at once.
            byte[] window = (byte[]) WINDOW_BASE.get(zstd);
            long windowAddress = (long) WINDOW_ADDRESS.get(zstd);
            long windowPosition = (long) WINDOW_POSITION.get(zstd);
            append(window, (int) (windowAddress - ARRAY_BASE), (int) (windowPosition - windowAddress), flushed);
            if (appended - before > limit) {
                throw new Corrupt("it decompresses to " + (appended - before) + " bytes, more than the " + limit
                        + " the COMPRESSED feature's mmap_len gives (perf report decompresses it into a buffer of that"
                        + " size and fails)");
            }
        } catch (RuntimeException e) {
            // aircompressor's MalformedInputException, or a bound it checks; its offsets are memory
            // addresses of its own, meaningless here
            String why = String.valueOf(e.getMessage()).replaceAll(":? ?offset=-?\\d+", "");
            throw new Corrupt("its zstd data cannot be decoded (" + why + ")");
        }
    }

    /**
     * Appends the bytes of the decoded stream at {@code [streamAt, streamAt + n)}, {@code src[off..]},
     * that were not appended before (a block taken from the window comes out of the decoder later).
     */
    private void append(byte[] src, int off, int n, long streamAt) throws Corrupt {
        long skip = Math.max(0, appended - streamAt);
        if (skip >= n) {
            return;
        }
        int take = (int) (n - skip);
        while (out.length - size < take) {
            grow();
        }
        System.arraycopy(src, off + (int) skip, out, size, take);
        size += take;
        appended = streamAt + n;
    }

    private void takeInput(ByteBuffer b, int from, int len) {
        int pending = inLimit - inPos;
        if (pending + len > in.length) {
            byte[] bigger = new byte[Math.max(2 * in.length, pending + len)];
            System.arraycopy(in, inPos, bigger, 0, pending);
            in = bigger;
        } else if (pending > 0 && inPos > 0) {
            System.arraycopy(in, inPos, in, 0, pending);
        }
        inPos = 0;
        inLimit = pending;
        b.get(from, in, inLimit, len);
        inLimit += len;
    }

    /** Moves a record cut by the last piece's end to the front, as perf copies it into its next buffer. */
    private void keepLeftRecordBytes() {
        int left = size - head;
        if (left > 0) {
            recordsCut++;
            System.arraycopy(out, head, out, 0, left);
        }
        head = 0;
        size = left;
    }

    private void grow() throws Corrupt {
        if (out.length >= MAX_DECOMPRESSED) {
            throw new Corrupt("it decompresses to more than " + MAX_DECOMPRESSED + " bytes, far more than perf"
                    + " record writes into one (the size of a ring buffer)");
        }
        out = java.util.Arrays.copyOf(out, Math.min(MAX_DECOMPRESSED, 2 * out.length));
        view = ByteBuffer.wrap(out).order(order);
    }
}
