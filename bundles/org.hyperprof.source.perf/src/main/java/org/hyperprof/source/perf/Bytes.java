package org.hyperprof.source.perf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads little- or big-endian integers at any (also unaligned) offset of a byte array: perf.data is
 * in the recording machine's byte order, and some of its records are not 8-byte aligned. No
 * allocation.
 */
final class Bytes {

    private static final VarHandle LE64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LE32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LE16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    /** Whether values are byte-swapped relative to little-endian (a big-endian recording). */
    final boolean swap;

    Bytes(boolean bigEndian) {
        this.swap = bigEndian;
    }

    long u64(byte[] b, int off) {
        long v = (long) LE64.get(b, off);
        return swap ? Long.reverseBytes(v) : v;
    }

    /** An unsigned 32-bit value. */
    long u32(byte[] b, int off) {
        return s32(b, off) & 0xFFFFFFFFL;
    }

    int s32(byte[] b, int off) {
        int v = (int) LE32.get(b, off);
        return swap ? Integer.reverseBytes(v) : v;
    }

    int u16(byte[] b, int off) {
        short v = (short) LE16.get(b, off);
        return (swap ? Short.reverseBytes(v) : v) & 0xFFFF;
    }

    /** The string in {@code [from, to)} up to its first NUL, or null when no NUL ends it there. */
    static String cString(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == 0) {
                return new String(b, from, i - from, StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** The string in {@code [from, to)} up to its first NUL or to {@code to}. */
    static String paddedString(byte[] b, int from, int to) {
        int end = from;
        while (end < to && b[end] != 0) {
            end++;
        }
        return new String(b, from, end - from, StandardCharsets.UTF_8);
    }

    /** The string in {@code [from, to)} of a buffer up to its first NUL or to {@code to}. */
    static String paddedString(java.nio.ByteBuffer b, int from, int to) {
        int end = from;
        while (end < to && b.get(end) != 0) {
            end++;
        }
        return copy(b, from, end);
    }

    private static String copy(java.nio.ByteBuffer b, int from, int to) {
        byte[] bytes = new byte[to - from];
        b.get(from, bytes, 0, bytes.length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** {@code length} bytes of a buffer from {@code from}, copied. */
    static byte[] slice(java.nio.ByteBuffer b, int from, int length) {
        byte[] out = new byte[length];
        b.get(from, out, 0, length);
        return out;
    }

    static String hex(java.nio.ByteBuffer b, int from, int len) {
        return hex(slice(b, from, len), 0, len);
    }

    static String hex(byte[] b, int from, int len) {
        StringBuilder s = new StringBuilder(len * 2);
        for (int i = 0; i < len; i++) {
            int v = b[from + i] & 0xFF;
            s.append(Character.forDigit(v >>> 4, 16)).append(Character.forDigit(v & 15, 16));
        }
        return s.toString();
    }
}
