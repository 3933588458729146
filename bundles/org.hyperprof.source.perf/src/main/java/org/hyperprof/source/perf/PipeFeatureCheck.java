package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether perf 6.1 reads a pipe-mode HEADER_FEATURE record (perf_event__process_feature in
 * tools/perf/util/header.c and perf report's process_feature_event). A file keeps its features in
 * sections whose failures perf ignores; a stream's features come as records, and perf report stops
 * at the first one its reader for that feature fails on. The reader here reads few features, so it
 * walks each record as perf's reader would and says why perf would stop: the recording's samples
 * are still good, but a note must say that perf report refuses it. Where perf's behaviour depends
 * on its allocator (a count of billions) or is undefined (a string without its NUL), the record
 * counts as one perf fails on.
 */
final class PipeFeatureCheck {

    /** perf 6.1's HEADER_LAST_FEATURE: the end marker of a stream's features; higher ids are refused. */
    static final int LAST_FEATURE = 32;
    /** sizeof(struct bpf_prog_info) in Linux 6.1: a longer info perf calls invalid. */
    private static final int BPF_PROG_INFO_SIZE = 232;
    /** Counts above this would make perf allocate gigabytes: taken as a failure. */
    private static final long HUGE = 1 << 24;

    /** Why perf would not read a feature record. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why, null, false, false);
        }
    }

    private final Bytes bytes;
    /** NRCPUS' first value as perf reads it (nr_cpus_avail), which CPU_TOPOLOGY's layout depends on. */
    private long cpusAvail;
    private String arch = "";

    PipeFeatureCheck(Bytes bytes) {
        this.bytes = bytes;
    }

    /**
     * Throws {@link Refused} when perf 6.1 would stop at feature {@code id} whose payload is
     * {@code b[off, end)}; {@code events} is how many events the stream described so far.
     */
    void check(long id, byte[] b, int off, int end, int events) throws Refused {
        if (id == 0) {
            throw new Refused("feature id 0 is reserved");
        }
        if (id > LAST_FEATURE || id < 0) {
            throw new Refused("feature id " + Long.toUnsignedString(id) + " is past the last feature perf 6.1 knows ("
                    + (LAST_FEATURE - 1) + "; " + LAST_FEATURE + " ends the list)");
        }
        Reads r = new Reads(b, off, end);
        switch ((int) id) {
            case 1, 18 -> throw new Refused("perf reads this feature from the file, which a stream does not have");
            case 24 -> throw new Refused("DIR_FORMAT belongs to a recording in a directory, not to a stream");
            case 3, 4, 5, 8, 9 -> r.string();
            case 6 -> arch = r.string();
            case 7 -> {
                cpusAvail = r.u32();
                r.u32();
            }
            case 10, 21, 23 -> {
                r.u64();
                if (id == 21) {
                    r.u64();
                }
            }
            case 11 -> r.strings(r.u32());
            case 13 -> cpuTopology(r, end - off);
            case 14 -> {
                long nr = r.count(r.u32());
                for (long i = 0; i < nr; i++) {
                    r.u32();
                    r.u64();
                    r.u64();
                    cpuList(r.string());
                }
            }
            case 16 -> {
                long nr = r.count(r.u32());
                for (long i = 0; i < nr; i++) {
                    r.u32();
                    r.string();
                }
            }
            case 17 -> groupDesc(r, events);
            case 20 -> {
                if (r.u32() != 1) {
                    throw new Refused("CACHE version is not 1");
                }
                long nr = r.count(r.u32());
                for (long i = 0; i < nr; i++) {
                    r.skip(16);
                    r.strings(3);
                }
            }
            case 22 -> memTopology(r);
            case 25 -> bpfProgInfo(r);
            case 26 -> {
                if (bytes.swap) {
                    return; // perf skips it in a foreign-endian recording
                }
                long nr = r.count(r.u32());
                for (long i = 0; i < nr; i++) {
                    r.u32();
                    r.skip(r.u32());
                }
            }
            case 27 -> r.skip(20);
            case 28 -> pmuCaps(r);
            case 29 -> {
                if (r.u32() != 1) {
                    throw new Refused("CLOCK_DATA version is not 1");
                }
                r.u32();
                r.u64();
                r.u64();
            }
            case 30 -> r.strings(2 * r.count(r.u32()));
            case 31 -> {
                long nr = r.count(r.u32());
                for (long i = 0; i < nr; i++) {
                    pmuCaps(r);
                    r.string();
                }
            }
            default -> {
                // 2 BUILD_ID, 12 EVENT_DESC: perf goes on whatever it finds; 15, 19: perf reads nothing; 32 ends the list.
            }
        }
    }

    private void cpuTopology(Reads r, int payload) throws Refused {
        int cpuNr = (int) cpusAvail;
        if (cpuNr < 0 || cpuNr > HUGE) {
            throw new Refused("NRCPUS says " + Long.toUnsignedString(cpusAvail) + " CPUs");
        }
        // perf counts what it read by the strings' lengths, not by the length fields.
        long size = 4;
        long cores = r.count(r.u32());
        for (long i = 0; i < cores; i++) {
            size += stringSize(r.string());
        }
        size += 4;
        long threads = r.count(r.u32());
        for (long i = 0; i < threads; i++) {
            size += stringSize(r.string());
        }
        if (payload <= size) {
            return;
        }
        boolean coreIdTest = !arch.startsWith("s390") && !arch.startsWith("aarch64");
        for (int i = 0; i < cpuNr; i++) {
            r.u32();
            long socket = r.u32();
            if (coreIdTest && socket != 0xFFFFFFFFL && socket > cpuNr) {
                throw new Refused("socket id " + socket + " is above the " + cpuNr + " CPUs");
            }
            size += 8;
        }
        if (payload <= size) {
            return;
        }
        long dies = r.count(r.u32());
        r.strings(dies);
        for (int i = 0; i < cpuNr; i++) {
            r.u32();
        }
    }

    /** perf's string_size(): its u32 length and the string with its NUL, aligned to 64. */
    private static long stringSize(String s) {
        return 4 + ((s.length() + 1 + 63) & ~63L);
    }

    /** perf_cpu_map__new() fails (returns no map) on a list it cannot parse. */
    private static void cpuList(String s) throws Refused {
        if (s.isEmpty()) {
            return;
        }
        if (!Character.isDigit(s.charAt(0))) {
            throw new Refused("CPU list '" + s + "' does not start with a digit");
        }
        List<long[]> ranges = new ArrayList<>();
        int p = 0;
        while (p < s.length() && Character.isDigit(s.charAt(p))) {
            int q = p;
            while (q < s.length() && Character.isDigit(s.charAt(q))) {
                q++;
            }
            long start = number(s.substring(p, q));
            long last = start;
            if (q < s.length() && s.charAt(q) == '-') {
                int r = ++q;
                while (q < s.length() && Character.isDigit(s.charAt(q))) {
                    q++;
                }
                last = r == q ? -1 : number(s.substring(r, q));
                if (last < start) {
                    throw new Refused("CPU list '" + s + "' has a range that ends before it starts");
                }
            }
            if (start >= Integer.MAX_VALUE || last >= Integer.MAX_VALUE
                    || (q < s.length() && s.charAt(q) != ',')) {
                throw new Refused("CPU list '" + s + "' is not a list of CPU numbers");
            }
            for (long[] other : ranges) {
                if (start <= other[1] && other[0] <= last) {
                    throw new Refused("CPU list '" + s + "' names a CPU twice");
                }
            }
            ranges.add(new long[] {start, last});
            p = q < s.length() ? q + 1 : q;
        }
    }

    private static long number(String digits) {
        // Decimal only: perf's strtoul(.., 0) reads 0x and leading-0 numbers otherwise, which perf never writes.
        if (digits.length() > 1 && digits.charAt(0) == '0') {
            return Long.MAX_VALUE;
        }
        return digits.length() > 12 ? Long.MAX_VALUE : Long.parseLong(digits);
    }

    private static void groupDesc(Reads r, int events) throws Refused {
        long groups = r.count(r.u32());
        if (groups == 0) {
            return;
        }
        long[] leader = new long[(int) groups];
        long[] members = new long[(int) groups];
        for (int i = 0; i < groups; i++) {
            r.string();
            leader[i] = r.u32();
            members[i] = r.u32();
        }
        int i = 0;
        long nr = 0;
        for (int idx = 0; idx < events; idx++) {
            if (i >= groups) {
                if (nr > 0) {
                    nr--;
                }
                continue;
            }
            if (idx == (int) leader[i]) {
                if (nr > 0) {
                    throw new Refused("GROUP_DESC does not match the events");
                }
                nr = (members[i] - 1) & 0xFFFFFFFFL;
                i++;
            } else if (nr > 0) {
                nr--;
            }
        }
        if (i != groups || nr != 0) {
            throw new Refused("GROUP_DESC does not match the events");
        }
    }

    private static void memTopology(Reads r) throws Refused {
        if (r.u64() != 1) {
            throw new Refused("MEM_TOPOLOGY version is not 1");
        }
        r.u64();
        long nr = r.count(r.u64());
        for (long i = 0; i < nr; i++) {
            r.u64();
            r.u64();
            long bits = r.u64();
            if (bits < 0 || bits > HUGE * 64) {
                throw new Refused("a memory node's bitmap of " + Long.toUnsignedString(bits) + " bits");
            }
            r.skip(8 * ((bits + 63) / 64));
        }
    }

    private void bpfProgInfo(Reads r) throws Refused {
        if (bytes.swap) {
            return; // perf skips it in a foreign-endian recording
        }
        long nr = r.count(r.u32());
        for (long i = 0; i < nr; i++) {
            long info = r.u32();
            long data = r.u32();
            if (info > BPF_PROG_INFO_SIZE) {
                throw new Refused("a bpf_prog_info of " + info + " bytes");
            }
            r.u64();
            r.skip(info);
            r.skip(data);
        }
    }

    private static void pmuCaps(Reads r) throws Refused {
        r.strings(2 * r.count(r.u32()));
    }

    /** perf's do_read_u32/u64/string over a record's payload: a read past its end fails. */
    private final class Reads {
        final byte[] b;
        final int end;
        int pos;

        Reads(byte[] b, int off, int end) {
            this.b = b;
            this.pos = off;
            this.end = end;
        }

        void skip(long n) throws Refused {
            if (n < 0 || n > end - pos) {
                throw new Refused("it needs " + Long.toUnsignedString(n) + " more bytes, the record has " + (end - pos));
            }
            pos += (int) n;
        }

        long u32() throws Refused {
            int at = pos;
            skip(4);
            return bytes.u32(b, at);
        }

        long u64() throws Refused {
            int at = pos;
            skip(8);
            return bytes.u64(b, at);
        }

        /** A count of at least {@code n} more bytes' worth: more than the record can hold fails as perf's reads would. */
        long count(long n) throws Refused {
            if (n < 0 || n > end - pos) {
                throw new Refused("a count of " + Long.toUnsignedString(n) + " where " + (end - pos) + " bytes are left");
            }
            return n;
        }

        String string() throws Refused {
            long len = u32();
            if (len == 0) {
                throw new Refused("a string of length 0, where perf writes at least its NUL");
            }
            int at = pos;
            skip(len);
            int nul = at;
            while (nul < at + len && b[nul] != 0) {
                nul++;
            }
            if (nul == at + len) {
                throw new Refused("a string without its NUL");
            }
            return new String(b, at, nul - at, java.nio.charset.StandardCharsets.ISO_8859_1);
        }

        void strings(long n) throws Refused {
            long k = count(n);
            for (long i = 0; i < k; i++) {
                string();
            }
        }
    }
}
