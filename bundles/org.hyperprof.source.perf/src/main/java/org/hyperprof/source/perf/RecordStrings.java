package org.hyperprof.source.perf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The NUL-terminated names of MMAP and COMM records, read through a small cache: a recording of
 * many short processes maps the same few files and names the same few commands thousands of
 * times, and a name met again comes back as the String made the first time (no copy, no decoding,
 * and its hash already computed for the maps that key images by name). One per reader.
 */
final class RecordStrings {

    private static final int SLOTS = 512;

    private final byte[][] bytes = new byte[SLOTS][];
    private final String[] strings = new String[SLOTS];
    private byte[] scratch = new byte[256];

    /** The string in {@code [from, to)} of {@code b} up to its first NUL, or null when no NUL ends it there. */
    String cString(ByteBuffer b, int from, int to) {
        int length = to - from;
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        byte[] s = scratch;
        b.get(from, s, 0, length);
        int h = 0;
        int end = 0;
        while (end < length && s[end] != 0) {
            h = 31 * h + s[end];
            end++;
        }
        if (end == length) {
            return null;
        }
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        byte[] known = bytes[slot];
        if (known != null && Arrays.equals(known, 0, known.length, s, 0, end)) {
            return strings[slot];
        }
        String made = new String(s, 0, end, StandardCharsets.UTF_8);
        bytes[slot] = Arrays.copyOf(s, end);
        strings[slot] = made;
        return made;
    }
}
