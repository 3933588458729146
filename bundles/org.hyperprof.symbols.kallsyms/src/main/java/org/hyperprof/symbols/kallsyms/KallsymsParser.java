package org.hyperprof.symbols.kallsyms;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;

/**
 * Reads System.map, {@code nm} and /proc/kallsyms text into a {@link SymbolTable} of the image's
 * functions.
 *
 * <h2>Line format</h2>
 * {@code <address> <type> <name>} and, in /proc/kallsyms, an optional tab and {@code [module]}:
 * <pre>
 * c0100000 T _stext
 * ffffffffa0000000 t e1000_intr	[e1000]
 * </pre>
 * The address is plain hexadecimal of 1 to 16 digits (no {@code 0x}: none of these tools write
 * one); the type is one letter; the name has no blanks. Fields are separated by blanks or tabs.
 * Blank lines are skipped, and so are {@code nm}'s address-less undefined references
 * ({@code U}, {@code w}, {@code v} with no address).
 *
 * <h2>Which symbols become functions</h2>
 * Types {@code T t} (text) and {@code W w} (weak; {@code nm} cannot tell weak code from weak data,
 * and kernel weak symbols are functions) become table entries. Every other symbol with a place in
 * the image (data {@code D d}, bss {@code B b}, read-only {@code R r}, absolute {@code A a}, weak
 * objects {@code V v}, ...) is left out of the table but still ends the function before it.
 * Three kinds of line carry a value that is not a place in the image and therefore end nothing:
 * undefined {@code U}, common {@code C c} (the value is an alignment) and the absolute
 * {@code __crc_*} symbols of module versioning (the value is a checksum). The linker's end markers
 * {@code _etext}, {@code _einittext}, {@code _edata}, {@code _end} and {@code __bss_stop} end the
 * function before them even when typed {@code T}, and are not functions themselves.
 *
 * <h2>Sizes</h2>
 * A function extends to the next higher address of any symbol that has a place in the image. When
 * that next symbol belongs to another module (kallsyms' module column, or kernel versus module), the
 * two are separate allocations, so the size is at most {@link #DEFAULT_LAST_SIZE}. A function with
 * nothing above it also gets {@link #DEFAULT_LAST_SIZE} bytes.
 *
 * <h2>Order and aliases</h2>
 * /proc/kallsyms is not sorted (modules follow the kernel in load order), so symbols are sorted by
 * address with a stable sort. Several text names at one address are aliases: the first in file
 * order is kept, so results do not depend on the sort.
 *
 * <h2>How</h2>
 * One pass over the bytes: lines of exactly the shape the tools write (1-16 hex digits, one blank,
 * a letter, one blank, the name, optionally a tab and {@code [module]}, then LF, CR LF or the end)
 * are read by {@link #readWellFormedLines} eight bytes at a time (SWAR: eight hex digits per step,
 * the name's end found 32 bytes at a time) into primitive columns; any other line (blanks, tabs
 * between fields, nm's undefined lines, a malformed line) goes to {@link #parseLine}, which reads it
 * field by field and owns every rule and message, so both paths give the same result. Columns
 * out of address order are sorted once with a stable merge sort of indices and permuted; then one
 * walk up the addresses gives each function its size and makes the only strings: kept names (as
 * ISO-8859-1 when every name byte is ASCII, which decodes the same as UTF-8 but faster) and
 * module names. Stateless; one instance may be shared.
 */
final class KallsymsParser {

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
    /** Type A or a, in {@link #KIND_OF_TYPE} only: a place unless the name is a {@code __crc_} checksum. */
    private static final byte ABSOLUTE = 3;
    /**
     * The kind of each type letter before its name is looked at: T t W w are {@link #TEXT}, U C c
     * {@link #NO_PLACE}, A a {@link #ABSOLUTE}, other letters {@link #PLACE}.
     */
    private static final byte[] KIND_OF_TYPE = new byte[256];

    static {
        for (int b = 0; b < 256; b++) {
            KIND_OF_TYPE[b] = PLACE;
        }
        for (char t : "TtWw".toCharArray()) {
            KIND_OF_TYPE[t] = TEXT;
        }
        for (char t : "UCc".toCharArray()) {
            KIND_OF_TYPE[t] = NO_PLACE;
        }
        KIND_OF_TYPE['A'] = ABSOLUTE;
        KIND_OF_TYPE['a'] = ABSOLUTE;
    }

    private static final byte[][] END_MARKERS = {
        ascii("_etext"), ascii("_einittext"), ascii("_edata"), ascii("_end"), ascii("__bss_stop")
    };
    private static final byte[] CRC_PREFIX = ascii("__crc_");

    private static final int NO_MODULE = -1;

    private static final VarHandle BIG_ENDIAN_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LITTLE_ENDIAN_INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LITTLE_ENDIAN_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Value of each byte as a hexadecimal digit, or -1. */
    private static final byte[] HEX_VALUE = new byte[256];

    static {
        Arrays.fill(HEX_VALUE, (byte) -1);
        for (int b = 0; b < 256; b++) {
            int d = hexDigit((byte) b);
            if (d >= 0) {
                HEX_VALUE[b] = (byte) d;
            }
        }
    }

    /**
     * Parses a whole file.
     *
     * @param imageName the image the table belongs to
     * @param location  the file, for messages
     * @param data      the file's bytes
     * @throws SymbolFileException at the first malformed line, or when the file holds no function
     */
    SymbolTable parse(String imageName, String location, byte[] data) throws SymbolFileException {
        return parse(imageName, location, data, 0, data.length);
    }

    /**
     * Parses the file held in {@code data[from, to)}; line numbers in messages count from
     * {@code from}. The array is only read, and no reference to it is kept.
     *
     * @throws IndexOutOfBoundsException if the range is not within the array
     */
    SymbolTable parse(String imageName, String location, byte[] data, int from, int to) throws SymbolFileException {
        Objects.checkFromToIndex(from, to, data.length);
        if (to - from >= 4 && data[from] == 0x7f && data[from + 1] == 'E' && data[from + 2] == 'L'
                && data[from + 3] == 'F') {
            throw new SymbolFileException(location, 1,
                    "this is an ELF binary, not System.map or kallsyms text; give it the 'elf' format, "
                            + "or produce text with 'nm -n " + location + "'");
        }
        Lines lines = new Lines((to - from) / 40 + 16);
        int pos = from;
        int lineNo = 0;
        while (pos < to) {
            lineNo += readWellFormedLines(data, pos, to, lines);
            pos = lines.resume;
            if (pos >= to) {
                break;
            }
            // Anything unusual (blanks, nm's address-less lines, a lone CR, an error): field by field.
            lineNo++;
            int end = pos;
            while (end < to && data[end] != '\n') {
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

    /**
     * Parses the remaining bytes of {@code buffer} (position to limit) without moving its position.
     * A heap buffer is read in place; a direct or mapped one is copied once.
     */
    SymbolTable parse(String imageName, String location, ByteBuffer buffer) throws SymbolFileException {
        int from = buffer.position();
        int to = buffer.limit();
        if (buffer.hasArray()) {
            int offset = buffer.arrayOffset();
            return parse(imageName, location, buffer.array(), offset + from, offset + to);
        }
        byte[] copy = new byte[to - from];
        buffer.get(from, copy);
        return parse(imageName, location, copy, 0, copy.length);
    }

    /**
     * The fast path: reads lines from {@code pos} on for as long as they have exactly the shape
     * the tools write, {@code <1-16 hex digits><blank><letter><blank><name>} and optionally
     * {@code <tab>[module]}, ended by LF, CR LF or the end of the data, adding each to
     * {@code lines}; stops at the first other line, leaving its start in {@link Lines#resume}, and
     * returns the number of lines read. {@link #parseLine} reads, accepts or rejects that other line
     * exactly as before, so this method only decides how fast a line is read, never what it means.
     */
    private static int readWellFormedLines(byte[] data, int pos, int to, Lines lines) {
        // The columns in locals, for a loop that keeps them in registers; written back on growth and exit.
        long[] addresses = lines.addresses;
        byte[] kinds = lines.kinds;
        long[] nameRanges = lines.nameRanges;
        int[] modules = lines.modules;
        final int first = lines.count;
        int count = first;
        long nameHighBits = 0;
        while (pos < to) {
            long address = -1;
            int p = pos;
            // 64-bit kallsyms and System.map write 16 digits, 32-bit ones 8: read those eight at a time.
            if (to - pos >= 20 && isBlank(data[pos + 16])) {
                // Kernel and module addresses of x86-64 all begin with ffffffff: one comparison reads those.
                long high = (long) BIG_ENDIAN_LONG.get(data, pos) == EIGHT_FS ? 0xffffffffL : hexWord(data, pos);
                long low = hexWord(data, pos + 8);
                if ((high | low) >= 0) {
                    address = high << 32 | low;
                    p = pos + 16;
                }
            } else if (to - pos >= 12 && isBlank(data[pos + 8])) {
                address = hexWord(data, pos);
                if (address >= 0) {
                    p = pos + 8;
                }
            }
            if (p == pos) {
                int limit = pos + Math.min(to - pos, MAX_ADDRESS_DIGITS + 1);
                address = 0;
                int digit;
                while (p < limit && (digit = HEX_VALUE[data[p] & 0xff]) >= 0) {
                    address = (address << 4) | digit;
                    p++;
                }
                int digits = p - pos;
                if (digits == 0 || digits > MAX_ADDRESS_DIGITS || to - p <= 3) {
                    break;
                }
            }
            // blank, type letter, blank, the name's first byte: one read, and a second look for tabs
            int fields = (int) LITTLE_ENDIAN_INT.get(data, p);
            byte type = (byte) (fields >>> 8);
            int nameStart = p + 3;
            if ((fields & 0xff00ff) != (' ' << 16 | ' ') && (!isBlank((byte) fields) || !isBlank((byte) (fields >>> 16)))
                    || !isLetter(type) || fields >>> 24 == '[') {
                break; // '[' where the name should be: a module column without a name, or a name like one
            }
            // The name runs to the first blank or control byte. Most names are shorter than 32 bytes:
            // test 32 at once, without a branch per word (whose outcome would follow the name length).
            int nameEnd = nameStart;
            long high = 0;
            long ends = 0;
            if (to - nameStart >= 32) {
                long w0 = (long) LITTLE_ENDIAN_LONG.get(data, nameStart);
                long w1 = (long) LITTLE_ENDIAN_LONG.get(data, nameStart + 8);
                long w2 = (long) LITTLE_ENDIAN_LONG.get(data, nameStart + 16);
                long w3 = (long) LITTLE_ENDIAN_LONG.get(data, nameStart + 24);
                ends = endMask(w0) | endMask(w1) << 8 | endMask(w2) << 16 | endMask(w3) << 24;
                // Bytes past the name may count too: a false "not ASCII" only means decoding as UTF-8.
                high = w0 | w1 | w2 | w3;
                nameEnd += 32;
            }
            if (ends != 0) {
                nameEnd = nameStart + Long.numberOfTrailingZeros(ends);
            } else {
                for (;;) { // names of 32 bytes or more, and the last bytes of the data
                    if (to - nameEnd < 8) {
                        byte b;
                        while (nameEnd < to && ((b = data[nameEnd]) > ' ' || b < 0)) {
                            high |= b;
                            nameEnd++;
                        }
                        break;
                    }
                    long w = (long) LITTLE_ENDIAN_LONG.get(data, nameEnd);
                    long hits = endBytes(w);
                    high |= w;
                    if (hits != 0) {
                        nameEnd += Long.numberOfTrailingZeros(hits) >>> 3;
                        break;
                    }
                    nameEnd += 8;
                }
            }
            if (nameEnd == nameStart) {
                break;
            }
            int module = NO_MODULE;
            int next = lineEnd(data, nameEnd, to);
            if (next < 0) {
                if (data[nameEnd] != '\t' || to - nameEnd < 2 || data[nameEnd + 1] != '[') {
                    break;
                }
                int moduleStart = nameEnd + 1;
                int moduleEnd = tokenEndBeforeControl(data, moduleStart, to);
                if (moduleEnd - moduleStart < 3 || data[moduleEnd - 1] != ']') {
                    break;
                }
                next = lineEnd(data, moduleEnd, to);
                if (next < 0) {
                    break;
                }
                module = lines.module(data, moduleStart + 1, moduleEnd - 1);
            }
            if (count == addresses.length) {
                lines.count = count;
                lines.grow();
                addresses = lines.addresses;
                kinds = lines.kinds;
                nameRanges = lines.nameRanges;
                modules = lines.modules;
            }
            byte kind = classify(type, data, nameStart, nameEnd);
            addresses[count] = address;
            kinds[count] = kind;
            nameRanges[count] = nameRange(nameStart, nameEnd);
            if (module != NO_MODULE) {
                modules = lines.moduleColumn();
                modules[count] = module;
            }
            count++;
            nameHighBits |= high;
            pos = next;
        }
        lines.count = count;
        lines.resume = pos;
        if ((nameHighBits & HIGH_BITS) != 0) {
            lines.asciiNames = false;
        }
        return count - first;
    }

    private static final long ONES = 0x0101010101010101L;
    private static final long EIGHT_FS = ONES * 'f';
    private static final long HIGH_BITS = 0x8080808080808080L;

    /**
     * The value of the eight hexadecimal digits at {@code data[pos, pos + 8)}, or -1 if any of them
     * is not one, eight bytes at a time (SWAR): every byte below 0x80 is mapped to its low seven
     * bits plus a constant, so that comparisons are high-bit tests and no carry crosses a byte.
     */
    private static long hexWord(byte[] data, int pos) {
        long x = (long) BIG_ENDIAN_LONG.get(data, pos);
        // Below, no carry crosses a byte if every byte is below 0x80; one that is not is rejected by
        // '& ~x' whatever the carries did to its neighbours.
        long digit = (x + ONES * (0x80 - '0')) & ~(x + ONES * (0x80 - '9' - 1)) & HIGH_BITS;
        long lower = x | ONES * 0x20; // 'A'-'F' become 'a'-'f'; no other byte becomes a lower-case hex letter
        long letter = (lower + ONES * (0x80 - 'a')) & ~(lower + ONES * (0x80 - 'f' - 1)) & HIGH_BITS;
        if (((digit | letter) & ~x) != HIGH_BITS) {
            return -1;
        }
        // A digit's low nibble is its value; a letter's low nibble is 1-6 and bit 0x40 marks it: add 9.
        long v = (x & ONES * 0x0f) + (letter >>> 7) * 9;
        v = (v | (v >>> 4)) & 0x00ff00ff00ff00ffL;
        v = (v | (v >>> 8)) & 0x0000ffff0000ffffL;
        return (v | (v >>> 16)) & 0xffffffffL;
    }

    /**
     * The high bit set in each byte of {@code w} that is 0x00-0x20 (a blank, a line end or another
     * control character), exactly for the lowest such byte: a borrow can mark only bytes above it.
     */
    private static long endBytes(long w) {
        return (w - ONES * 0x21) & ~w & HIGH_BITS;
    }

    /**
     * {@link #endBytes} as an 8-bit mask, bit i for byte i (the byte at offset i, little-endian):
     * the multiplication moves each byte's flag to its own bit of the top byte, without carries.
     */
    private static long endMask(long w) {
        return ((endBytes(w) >>> 7) * 0x0102040810204080L) >>> 56;
    }

    /** The first byte at or after {@code pos} that is a blank or an ASCII control character. */
    private static int tokenEndBeforeControl(byte[] data, int pos, int to) {
        while (to - pos >= 8) {
            long hits = endBytes((long) LITTLE_ENDIAN_LONG.get(data, pos));
            if (hits != 0) {
                return pos + (Long.numberOfTrailingZeros(hits) >>> 3);
            }
            pos += 8;
        }
        byte b;
        while (pos < to && ((b = data[pos]) > ' ' || b < 0)) {
            pos++;
        }
        return pos;
    }

    /** Where the next line starts if a line ends (LF, CR LF or end of data) at {@code pos}, else -1. */
    private static int lineEnd(byte[] data, int pos, int to) {
        if (pos == to) {
            return to;
        }
        byte b = data[pos];
        if (b == '\n') {
            return pos + 1;
        }
        if (b == '\r' && to - pos >= 2 && data[pos + 1] == '\n') {
            return pos + 2;
        }
        return -1;
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
        lines.add(data, address, classify(type, data, f2s, f2e), f2s, f2e, module);
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
        byte kind = KIND_OF_TYPE[type & 0xff];
        if (kind == TEXT) {
            // Every end marker starts with '_' and has at most 10 bytes. More than half the kernel's
            // names start with '_': one test of both, not two branches, keeps this predictable.
            return (nameEnd - nameStart <= 10) & (data[nameStart] == '_') && isEndMarker(data, nameStart, nameEnd)
                    ? PLACE : TEXT;
        }
        if (kind == ABSOLUTE) {
            return startsWith(data, nameStart, nameEnd, CRC_PREFIX) ? NO_PLACE : PLACE;
        }
        return kind;
    }

    private static SymbolTable build(String imageName, String location, byte[] data, Lines lines)
            throws SymbolFileException {
        int n = lines.count;
        if (n == 0) {
            throw new SymbolFileException(location, -1,
                    "holds no symbol lines (it is empty or blank); " + EXPECTED_LINE);
        }
        long[] addresses = lines.addresses;
        byte[] kinds = lines.kinds;
        int[] modules = lines.modules; // null: no line has a module column
        long[] nameRanges = lines.nameRanges;
        // One pass: are the lines in address order (System.map and the kernel's own kallsyms lines
        // are), is any address not 0, and how many addresses have a function (aliases share one)?
        long addressBits = 0;
        int functionCount = 0;
        boolean sorted = true;
        long previous = addresses[0];
        long lastFunction = 0;
        for (int i = 0; i < n; i++) {
            long address = addresses[i];
            addressBits |= address;
            sorted &= Long.compareUnsigned(previous, address) <= 0;
            previous = address;
            if (kinds[i] == TEXT && (address != lastFunction || functionCount == 0)) {
                functionCount++;
                lastFunction = address;
            }
        }
        if (!sorted) { // put the columns in address order, so that the walk reads them in line
            int[] order = sortedOrder(addresses, n);
            addresses = permuted(addresses, order, n);
            kinds = permuted(kinds, order, n);
            nameRanges = permuted(nameRanges, order, n);
            modules = modules == null ? null : permuted(modules, order, n);
            functionCount = 0;
            lastFunction = 0;
            for (int i = 0; i < n; i++) {
                if (kinds[i] == TEXT && (addresses[i] != lastFunction || functionCount == 0)) {
                    functionCount++;
                    lastFunction = addresses[i];
                }
            }
        }
        if (addressBits == 0) {
            throw new SymbolFileException(location, -1,
                    "every one of its " + n + " addresses is 0: it was read without permission to see kernel "
                            + "addresses (kernel.kptr_restrict, or a non-root reader). Read /proc/kallsyms as root "
                            + "with kptr_restrict at 0 or 1, or use the kernel's System.map");
        }
        if (functionCount == 0) {
            throw new SymbolFileException(location, -1,
                    "holds " + n + " symbols but no functions: none has type T, t, W or w; "
                            + "give the image's System.map, nm output or /proc/kallsyms");
        }
        Charset charset = lines.asciiNames ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8;

        // Walk up through the groups of lines that share an address. Each group is the bound (end)
        // of the function before it if it holds a place; there is at most one function waiting for
        // its bound, since a group with a function is itself a place.
        long[] starts = new long[functionCount];
        long[] sizes = new long[functionCount];
        // Where each name lies in the text: a name is made only when a profile asks for it.
        long[] nameAt = new long[functionCount];
        String[] moduleNames = new String[functionCount];
        int out = 0;
        int pending = -1;
        int pendingModule = NO_MODULE;
        int i = 0;
        while (i < n) {
            long address = addresses[i];
            // Only the first function line and the first line with a place (in file order) count.
            int keep;
            boolean groupIsPlace;
            int groupModule;
            if (i + 1 == n || addresses[i + 1] != address) { // a group of one line: the usual case
                byte kind = kinds[i];
                keep = kind == TEXT ? i : -1;
                groupIsPlace = kind != NO_PLACE;
                groupModule = modules == null ? NO_MODULE : modules[i];
                i++;
            } else {
                keep = -1;
                groupIsPlace = false;
                groupModule = NO_MODULE;
                for (; i < n && addresses[i] == address; i++) {
                    byte kind = kinds[i];
                    if (kind == TEXT && keep < 0) {
                        keep = i;
                    }
                    if (kind != NO_PLACE && !groupIsPlace) {
                        groupIsPlace = true;
                        groupModule = modules == null ? NO_MODULE : modules[i];
                    }
                }
            }
            if (groupIsPlace && pending >= 0) {
                long size = address - starts[pending];
                if (pendingModule != groupModule) {
                    size = Math.min(size, DEFAULT_LAST_SIZE); // separate allocations
                }
                if (size < 0) {
                    size = Long.MAX_VALUE; // a span wider than 2^63 bytes: keep sizes positive
                }
                sizes[pending] = size;
                pending = -1;
            }
            if (keep >= 0) {
                int module = modules == null ? NO_MODULE : modules[keep];
                starts[out] = address;
                nameAt[out] = nameRanges[keep];
                if (module != NO_MODULE) {
                    moduleNames[out] = lines.moduleNames.get(module);
                }
                pending = out;
                pendingModule = module;
                out++;
            }
        }
        // Every function but the last is bounded by the next one's group at least.
        if (pending >= 0) {
            sizes[pending] = DEFAULT_LAST_SIZE;
        }
        return SymbolTable.adopting(imageName, starts, sizes, index -> {
            long range = nameAt[index];
            int nameStart = (int) (range >>> 32);
            return new String(data, nameStart, (int) range - nameStart, charset);
        }, moduleNames);
    }

    private static long nameRange(int start, int end) {
        return (long) start << 32 | end;
    }

    private static long[] permuted(long[] column, int[] order, int n) {
        long[] result = new long[n];
        for (int i = 0; i < n; i++) {
            result[i] = column[order[i]];
        }
        return result;
    }

    private static int[] permuted(int[] column, int[] order, int n) {
        int[] result = new int[n];
        for (int i = 0; i < n; i++) {
            result[i] = column[order[i]];
        }
        return result;
    }

    private static byte[] permuted(byte[] column, int[] order, int n) {
        byte[] result = new byte[n];
        for (int i = 0; i < n; i++) {
            result[i] = column[order[i]];
        }
        return result;
    }

    private static final int INSERTION_RUN = 32;

    /**
     * Line indices in ascending unsigned address order; equal addresses keep file order. A stable
     * merge sort of (address, index) pairs held in two primitive arrays, so that comparisons read
     * keys in line rather than through the indices: insertion sort of short runs, then merges that
     * copy two runs already in order without comparing. The lines before the first one out of order
     * (in /proc/kallsyms, the whole kernel before the modules) are not sorted again, only merged
     * once with the others.
     */
    static int[] sortedOrder(long[] addresses, int n) {
        int prefix = 1;
        while (prefix < n && Long.compareUnsigned(addresses[prefix - 1], addresses[prefix]) <= 0) {
            prefix++;
        }
        if (prefix >= n) {
            int[] identity = new int[n];
            for (int i = 0; i < n; i++) {
                identity[i] = i;
            }
            return identity;
        }
        // Sort the lines from the first one out of order on, ...
        int[] rest = sortedOrder(addresses, prefix, n);
        // ... then merge them with the ordered prefix; on equal addresses the prefix comes first (file order).
        int[] order = new int[n];
        int a = 0;
        int b = 0;
        int k = 0;
        int restLength = n - prefix;
        while (a < prefix && b < restLength) {
            order[k++] = Long.compareUnsigned(addresses[rest[b]], addresses[a]) < 0 ? rest[b++] : a++;
        }
        while (a < prefix) {
            order[k++] = a++;
        }
        while (b < restLength) {
            order[k++] = rest[b++];
        }
        return order;
    }

    /** Indices {@code from} to {@code to - 1} in ascending unsigned address order, stable. */
    private static int[] sortedOrder(long[] addresses, int from, int to) {
        int n = to - from;
        long[] keys = new long[n];
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            keys[i] = addresses[from + i] ^ Long.MIN_VALUE; // unsigned order as signed order
            order[i] = from + i;
        }
        for (int lo = 0; lo < n; lo += INSERTION_RUN) {
            int hi = Math.min(lo + INSERTION_RUN, n);
            for (int i = lo + 1; i < hi; i++) {
                long key = keys[i];
                int index = order[i];
                int j = i - 1;
                while (j >= lo && keys[j] > key) { // strict: equal keys stay in file order
                    keys[j + 1] = keys[j];
                    order[j + 1] = order[j];
                    j--;
                }
                keys[j + 1] = key;
                order[j + 1] = index;
            }
        }
        long[] keysTo = new long[n];
        int[] orderTo = new int[n];
        for (int width = INSERTION_RUN; width < n; width <<= 1) {
            for (int lo = 0; lo < n; lo += width << 1) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + (width << 1), n);
                if (mid == hi || keys[mid - 1] <= keys[mid]) {
                    System.arraycopy(keys, lo, keysTo, lo, hi - lo);
                    System.arraycopy(order, lo, orderTo, lo, hi - lo);
                    continue;
                }
                int a = lo;
                int b = mid;
                int k = lo;
                while (a < mid && b < hi) {
                    if (keys[b] < keys[a]) { // ties from the left run: stable
                        keysTo[k] = keys[b];
                        orderTo[k++] = order[b++];
                    } else {
                        keysTo[k] = keys[a];
                        orderTo[k++] = order[a++];
                    }
                }
                System.arraycopy(keys, a, keysTo, k, mid - a);
                System.arraycopy(order, a, orderTo, k, mid - a);
                k += mid - a;
                System.arraycopy(keys, b, keysTo, k, hi - b);
                System.arraycopy(order, b, orderTo, k, hi - b);
            }
            long[] swapKeys = keys;
            keys = keysTo;
            keysTo = swapKeys;
            int[] swapOrder = order;
            order = orderTo;
            orderTo = swapOrder;
        }
        return order;
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

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t';
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
        /** Each line's name as {@code data[start, end)}, packed as {@code start << 32 | end}. */
        long[] nameRanges;
        /** Each line's index in {@link #moduleNames} or {@link #NO_MODULE}; null until a line has a module. */
        int[] modules;
        int count;
        /** No name has a byte above 0x7f: each is ASCII, which ISO-8859-1 decodes as UTF-8 does, but faster. */
        boolean asciiNames = true;
        /** Where {@link #readWellFormedLines} stopped. */
        int resume;
        final List<String> moduleNames = new ArrayList<>();
        private final Map<String, Integer> moduleIndex = new HashMap<>();
        // Consecutive lines usually name the same module: remember the last one's bytes.
        private int lastModuleStart = -1;
        private int lastModuleEnd = -1;
        private int lastModule = NO_MODULE;

        Lines(int capacity) {
            addresses = new long[capacity];
            kinds = new byte[capacity];
            nameRanges = new long[capacity];
        }

        void add(byte[] data, long address, byte kind, int nameStart, int nameEnd, int module) {
            if (count == addresses.length) {
                grow();
            }
            for (int i = nameStart; i < nameEnd && asciiNames; i++) {
                asciiNames = data[i] >= 0;
            }
            addresses[count] = address;
            kinds[count] = kind;
            nameRanges[count] = nameRange(nameStart, nameEnd);
            if (module != NO_MODULE) {
                moduleColumn()[count] = module;
            }
            count++;
        }

        void grow() {
            int grown = Math.max(16, count * 2);
            addresses = Arrays.copyOf(addresses, grown);
            kinds = Arrays.copyOf(kinds, grown);
            nameRanges = Arrays.copyOf(nameRanges, grown);
            if (modules != null) {
                int old = modules.length;
                modules = Arrays.copyOf(modules, grown);
                Arrays.fill(modules, old, grown, NO_MODULE);
            }
        }

        /** {@link #modules}, made on the first line with a module. */
        int[] moduleColumn() {
            if (modules == null) {
                modules = new int[addresses.length];
                Arrays.fill(modules, NO_MODULE);
            }
            return modules;
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
