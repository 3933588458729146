package org.hyperprof.symbols.kallsyms;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;

/**
 * {@link KallsymsParser} as it was before the single-pass rewrite (commit 80647d7): it finds each
 * line's end, then splits the line into fields, then reads the address. Kept unchanged, test-only,
 * as the reference {@link KallsymsDifferentialTest} compares the parser with, results and error
 * messages alike.
 */
final class ReferenceKallsymsParser {

    /** Size in bytes of a function that no higher symbol bounds: one x86 page. */
    static final long DEFAULT_LAST_SIZE = 4096;

    private static final int MAX_ADDRESS_DIGITS = 16;
    private static final String EXPECTED_LINE =
            "expected '<hex address> <type letter> <name>' with an optional tab and '[module]', e.g. 'c0100000 T _stext'";

    /** A line's symbol is a function. */
    private static final byte TEXT = 1;
    /** A line's symbol has a place in the image but is not a function: it only ends the one before. */
    private static final byte PLACE = 2;
    /** A line's value is not an address in the image (undefined, common, checksum). */
    private static final byte NO_PLACE = 0;

    private static final byte[][] END_MARKERS = {
        ascii("_etext"), ascii("_einittext"), ascii("_edata"), ascii("_end"), ascii("__bss_stop")
    };
    private static final byte[] CRC_PREFIX = ascii("__crc_");

    private static final int NO_MODULE = -1;

    /**
     * Parses a whole file.
     *
     * @param imageName the image the table belongs to
     * @param location  the file, for messages
     * @param data      the file's bytes
     * @throws SymbolFileException at the first malformed line, or when the file holds no function
     */
    SymbolTable parse(String imageName, String location, byte[] data) throws SymbolFileException {
        if (data.length >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F') {
            throw new SymbolFileException(location, 1,
                    "this is an ELF binary, not System.map or kallsyms text; give it the 'elf' format, "
                            + "or produce text with 'nm -n " + location + "'");
        }
        Lines lines = new Lines(data.length / 40 + 16);
        int pos = 0;
        int lineNo = 0;
        while (pos < data.length) {
            lineNo++;
            int end = pos;
            while (end < data.length && data[end] != '\n') {
                end++;
            }
            int contentEnd = end;
            if (contentEnd > pos && data[contentEnd - 1] == '\r') {
                contentEnd--;
            }
            parseLine(data, pos, contentEnd, lineNo, location, lines);
            pos = end + 1;
        }
        return build(imageName, location, data, lines);
    }

    private static void parseLine(byte[] data, int from, int to, int lineNo, String location, Lines lines)
            throws SymbolFileException {
        // Up to five fields so that trailing text can be reported; starts and ends in a fixed array.
        int f0s = skipBlanks(data, from, to);
        if (f0s == to) {
            return;
        }
        int f0e = tokenEnd(data, f0s, to);
        int f1s = skipBlanks(data, f0e, to);
        int f1e = tokenEnd(data, f1s, to);
        int f2s = skipBlanks(data, f1e, to);
        int f2e = tokenEnd(data, f2s, to);
        int f3s = skipBlanks(data, f2e, to);
        int f3e = tokenEnd(data, f3s, to);
        int f4s = skipBlanks(data, f3e, to);

        if (f2s == to) {
            if (f1s < to && f0e - f0s == 1 && isUndefinedType(data[f0s])) {
                return; // nm's "         U name": an undefined reference has no address
            }
            int fields = f1s == to ? 1 : 2;
            throw malformed(location, lineNo, data, from, to,
                    "found " + fields + " field" + (fields == 1 ? "" : "s") + "; " + EXPECTED_LINE);
        }
        long address = parseAddress(data, f0s, f0e, lineNo, location, from, to);
        if (f1e - f1s != 1 || !isLetter(data[f1s])) {
            throw malformed(location, lineNo, data, from, to,
                    "symbol type '" + text(data, f1s, f1e) + "' is not a single letter; expected a type such as "
                            + "T or t (text), D or d (data), B or b (bss), R or r (read-only), A (absolute)");
        }
        if (data[f2s] == '[' && f3s == to) {
            throw malformed(location, lineNo, data, from, to,
                    "the symbol name is missing before the module column " + text(data, f2s, f2e));
        }
        int module = NO_MODULE;
        if (f3s < to) {
            if (f3e - f3s < 3 || data[f3s] != '[' || data[f3e - 1] != ']') {
                throw malformed(location, lineNo, data, from, to,
                        "'" + text(data, f3s, f3e) + "' after the name is not a module column; expected '[module]' "
                                + "(a symbol name cannot contain blanks)");
            }
            if (f4s < to) {
                throw malformed(location, lineNo, data, from, to,
                        "unexpected '" + text(data, f4s, to) + "' after the module column; " + EXPECTED_LINE);
            }
            module = lines.module(data, f3s + 1, f3e - 1);
        }
        byte type = data[f1s];
        lines.add(address, classify(type, data, f2s, f2e), f2s, f2e, module);
    }

    private static long parseAddress(byte[] data, int s, int e, int lineNo, String location, int from, int to)
            throws SymbolFileException {
        int digits = e - s;
        if (digits >= 2 && data[s] == '0' && (data[s + 1] == 'x' || data[s + 1] == 'X')) {
            throw malformed(location, lineNo, data, from, to,
                    "address '" + text(data, s, e) + "' has a 0x prefix; System.map, nm and kallsyms write plain hex "
                            + "digits such as c0100000 or ffffffff81000000");
        }
        if (digits > MAX_ADDRESS_DIGITS) {
            throw malformed(location, lineNo, data, from, to,
                    "address '" + text(data, s, e) + "' has " + digits + " hex digits; expected at most 16 (64 bits)");
        }
        long value = 0;
        for (int i = s; i < e; i++) {
            int d = hexDigit(data[i]);
            if (d < 0) {
                throw malformed(location, lineNo, data, from, to,
                        "address '" + text(data, s, e) + "' is not hexadecimal; " + EXPECTED_LINE);
            }
            value = (value << 4) | d;
        }
        return value;
    }

    private static byte classify(byte type, byte[] data, int nameStart, int nameEnd) {
        switch (type) {
            case 'T': case 't': case 'W': case 'w':
                return isEndMarker(data, nameStart, nameEnd) ? PLACE : TEXT;
            case 'U': case 'C': case 'c':
                return NO_PLACE;
            case 'A': case 'a':
                return startsWith(data, nameStart, nameEnd, CRC_PREFIX) ? NO_PLACE : PLACE;
            default:
                return PLACE;
        }
    }

    private static SymbolTable build(String imageName, String location, byte[] data, Lines lines)
            throws SymbolFileException {
        int n = lines.count;
        if (n == 0) {
            throw new SymbolFileException(location, -1,
                    "holds no symbol lines (it is empty or blank); " + EXPECTED_LINE);
        }
        if (lines.allZero) {
            throw new SymbolFileException(location, -1,
                    "every one of its " + n + " addresses is 0: it was read without permission to see kernel "
                            + "addresses (kernel.kptr_restrict, or a non-root reader). Read /proc/kallsyms as root "
                            + "with kptr_restrict at 0 or 1, or use the kernel's System.map");
        }
        if (lines.textCount == 0) {
            throw new SymbolFileException(location, -1,
                    "holds " + n + " symbols but no functions: none has type T, t, W or w; "
                            + "give the image's System.map, nm output or /proc/kallsyms");
        }
        int[] order = sortedOrder(lines.addresses, n);
        long[] addresses = lines.addresses;
        byte[] kinds = lines.kinds;
        int[] modules = lines.modules;

        // Walk down from the highest address so the bound of each function (the next place above it)
        // is known when the function is reached; fill the output arrays from their end.
        int capacity = lines.textCount;
        long[] starts = new long[capacity];
        long[] sizes = new long[capacity];
        int[] kept = new int[capacity];
        int out = capacity;
        boolean bounded = false;
        long bound = 0;
        int boundModule = NO_MODULE;
        int i = n - 1;
        while (i >= 0) {
            long address = addresses[order[i]];
            int first = i;
            while (first > 0 && addresses[order[first - 1]] == address) {
                first--;
            }
            int keep = -1;
            boolean groupIsPlace = false;
            int groupModule = NO_MODULE;
            for (int j = first; j <= i; j++) {
                int line = order[j];
                byte kind = kinds[line];
                if (kind == TEXT && keep < 0) {
                    keep = line;
                }
                if (kind != NO_PLACE && !groupIsPlace) {
                    groupIsPlace = true;
                    groupModule = modules[line];
                }
            }
            if (keep >= 0) {
                long size;
                if (!bounded) {
                    size = DEFAULT_LAST_SIZE;
                } else {
                    size = bound - address;
                    if (modules[keep] != boundModule) {
                        size = Math.min(size, DEFAULT_LAST_SIZE);
                    }
                    if (size < 0) {
                        size = Long.MAX_VALUE; // a span wider than 2^63 bytes: keep sizes positive
                    }
                }
                out--;
                starts[out] = address;
                sizes[out] = size;
                kept[out] = keep;
            }
            if (groupIsPlace) {
                bounded = true;
                bound = address;
                boundModule = groupModule;
            }
            i = first - 1;
        }
        int count = capacity - out;
        String[] names = new String[count];
        String[] moduleNames = new String[count];
        for (int k = 0; k < count; k++) {
            int line = kept[out + k];
            names[k] = new String(data, lines.nameStarts[line], lines.nameEnds[line] - lines.nameStarts[line],
                    StandardCharsets.UTF_8);
            int module = modules[line];
            moduleNames[k] = module == NO_MODULE ? null : lines.moduleNames.get(module);
        }
        return new SymbolTable(imageName, Arrays.copyOfRange(starts, out, capacity),
                Arrays.copyOfRange(sizes, out, capacity), names, moduleNames);
    }

    /** Line indices in ascending unsigned address order; equal addresses keep file order. */
    static int[] sortedOrder(long[] addresses, int n) {
        int[] order = new int[n];
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            order[i] = i;
            if (i > 0 && Long.compareUnsigned(addresses[i - 1], addresses[i]) > 0) {
                sorted = false;
            }
        }
        if (sorted) {
            return order;
        }
        // Bottom-up merge sort of indices: stable, primitive, n log n.
        int[] from = order;
        int[] to = new int[n];
        for (int width = 1; width < n; width <<= 1) {
            for (int lo = 0; lo < n; lo += width << 1) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + (width << 1), n);
                int a = lo;
                int b = mid;
                int k = lo;
                while (a < mid && b < hi) {
                    to[k++] = Long.compareUnsigned(addresses[from[b]], addresses[from[a]]) < 0 ? from[b++] : from[a++];
                }
                while (a < mid) {
                    to[k++] = from[a++];
                }
                while (b < hi) {
                    to[k++] = from[b++];
                }
            }
            int[] swap = from;
            from = to;
            to = swap;
        }
        return from;
    }

    private static SymbolFileException malformed(String location, int lineNo, byte[] data, int from, int to,
            String what) {
        return new SymbolFileException(location, lineNo, what + " (line: \"" + excerpt(data, from, to) + "\")");
    }

    private static String excerpt(byte[] data, int from, int to) {
        int limit = 100;
        if (to - from <= limit) {
            return text(data, from, to).replace("\t", "\\t");
        }
        return text(data, from, from + limit).replace("\t", "\\t") + "...";
    }

    private static String text(byte[] data, int from, int to) {
        return new String(data, from, to - from, StandardCharsets.UTF_8);
    }

    private static int skipBlanks(byte[] data, int pos, int to) {
        while (pos < to && (data[pos] == ' ' || data[pos] == '\t')) {
            pos++;
        }
        return pos;
    }

    private static int tokenEnd(byte[] data, int pos, int to) {
        while (pos < to && data[pos] != ' ' && data[pos] != '\t') {
            pos++;
        }
        return pos;
    }

    private static int hexDigit(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    private static boolean isLetter(byte b) {
        return (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
    }

    private static boolean isUndefinedType(byte b) {
        return b == 'U' || b == 'w' || b == 'v';
    }

    private static boolean isEndMarker(byte[] data, int from, int to) {
        for (byte[] marker : END_MARKERS) {
            if (marker.length == to - from && startsWith(data, from, to, marker)) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWith(byte[] data, int from, int to, byte[] prefix) {
        if (to - from < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (data[from + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The symbol lines of one file as growable primitive columns. */
    private static final class Lines {
        long[] addresses;
        byte[] kinds;
        int[] nameStarts;
        int[] nameEnds;
        int[] modules;
        int count;
        int textCount;
        boolean allZero = true;
        final List<String> moduleNames = new ArrayList<>();
        private final Map<String, Integer> moduleIndex = new HashMap<>();
        // Consecutive lines usually name the same module: remember the last one's bytes.
        private int lastModuleStart = -1;
        private int lastModuleEnd = -1;
        private int lastModule = NO_MODULE;

        Lines(int capacity) {
            addresses = new long[capacity];
            kinds = new byte[capacity];
            nameStarts = new int[capacity];
            nameEnds = new int[capacity];
            modules = new int[capacity];
        }

        void add(long address, byte kind, int nameStart, int nameEnd, int module) {
            if (count == addresses.length) {
                int grown = count * 2;
                addresses = Arrays.copyOf(addresses, grown);
                kinds = Arrays.copyOf(kinds, grown);
                nameStarts = Arrays.copyOf(nameStarts, grown);
                nameEnds = Arrays.copyOf(nameEnds, grown);
                modules = Arrays.copyOf(modules, grown);
            }
            addresses[count] = address;
            kinds[count] = kind;
            nameStarts[count] = nameStart;
            nameEnds[count] = nameEnd;
            modules[count] = module;
            count++;
            if (kind == TEXT) {
                textCount++;
            }
            if (address != 0) {
                allZero = false;
            }
        }

        int module(byte[] data, int from, int to) {
            if (lastModule != NO_MODULE && Arrays.equals(data, lastModuleStart, lastModuleEnd, data, from, to)) {
                return lastModule;
            }
            String name = text(data, from, to);
            Integer index = moduleIndex.get(name);
            if (index == null) {
                index = moduleNames.size();
                moduleNames.add(name);
                moduleIndex.put(name, index);
            }
            lastModuleStart = from;
            lastModuleEnd = to;
            lastModule = index;
            return index;
        }
    }
}
