package org.hyperprof.source.perf;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes perf.data files for tests, laid out as peers.md part 2 describes (file form: header,
 * attrs with their ids, data, feature table; pipe form: 16-byte header, HEADER_ATTR and
 * HEADER_FEATURE records, data). Records are built field by field in the record order of
 * sample_type, so tests can state exactly what a recording holds, including what a broken one
 * holds.
 */
final class PerfDataWriter {

    static final long IP = 1, TID = 2, TIME = 4, ADDR = 8, READ = 16, CALLCHAIN = 32, ID = 64, CPU = 128,
            PERIOD = 256, STREAM_ID = 512, IDENTIFIER = 1 << 16;
    /** Some of the sample_type bits whose fields follow the callchain ({@link Sample#afterCallchain}). */
    static final long RAW = 1 << 10, BRANCH_STACK = 1 << 11, REGS_USER = 1 << 12, STACK_USER = 1 << 13,
            WEIGHT = 1 << 14, DATA_SRC = 1 << 15, PHYS_ADDR = 1 << 19, AUX = 1 << 20;
    /** branch_sample_type's HW_INDEX. */
    static final long BRANCH_HW_INDEX = 1 << 17;
    static final long SAMPLE_ID_ALL = 1L << 18;
    static final long FREQ = 1L << 10;
    static final long EXCLUDE_GUEST = 1L << 20;

    /** One event. */
    static final class Attr {
        long type = 1;
        long config = 0;
        long period = 100000;
        long sampleType = IP | TID | TIME | CALLCHAIN;
        long readFormat = 0;
        long flags = SAMPLE_ID_ALL;
        /** branch_sample_type and sample_regs_user: what a BRANCH_STACK and a REGS_USER hold. */
        long branchSampleType = 0;
        long regsUser = 0;
        long[] ids = {};

        Attr sampleType(long t) {
            sampleType = t;
            return this;
        }

        Attr readFormat(long r) {
            readFormat = r;
            return this;
        }

        Attr flags(long f) {
            flags = f;
            return this;
        }

        Attr ids(long... i) {
            ids = i;
            return this;
        }

        Attr period(long p) {
            period = p;
            return this;
        }

        /** The 128-byte perf_event_attr (VER7). */
        byte[] bytes(ByteOrder order) {
            ByteBuffer b = ByteBuffer.allocate(128).order(order);
            b.putInt(0, (int) type);
            b.putInt(4, 128);
            b.putLong(8, config);
            b.putLong(16, period);
            b.putLong(24, sampleType);
            b.putLong(32, readFormat);
            b.putLong(40, flags);
            b.putLong(72, branchSampleType);
            b.putLong(80, regsUser);
            return b.array();
        }
    }

    /** The fields of one SAMPLE; those the event's sample_type does not select are left out. */
    static final class Sample {
        int misc = 2;
        long identifier;
        long ip;
        int pid;
        int tid;
        long time;
        long addr;
        long id;
        long streamId;
        int cpu;
        long period = 100000;
        long[] read = {};
        long[] chain = {};
        /** When not negative: the callchain's nr field says this, whatever the entries are. */
        long chainNrOverride = -1;
        /** The u64s of the fields after the callchain (RAW .. WEIGHT_STRUCT), as the test lays them out. */
        long[] afterCallchain = {};

        Sample(int misc, long ip, int pid, long time, long... chain) {
            this.misc = misc;
            this.ip = ip;
            this.pid = pid;
            this.tid = pid;
            this.time = time;
            this.chain = chain;
        }
    }

    final ByteOrder order;
    final List<Attr> attrs = new ArrayList<>();
    final ByteArrayOutputStream data = new ByteArrayOutputStream();
    /** Feature payloads by feature bit. */
    final Map<Integer, byte[]> features = new TreeMap<>();

    PerfDataWriter(ByteOrder order) {
        this.order = order;
    }

    PerfDataWriter() {
        this(ByteOrder.LITTLE_ENDIAN);
    }

    PerfDataWriter attr(Attr a) {
        attrs.add(a);
        return this;
    }

    private ByteBuffer buf(int size) {
        return ByteBuffer.allocate(size).order(order);
    }

    /** Appends raw bytes to the data section. */
    PerfDataWriter raw(byte[] bytes) {
        data.writeBytes(bytes);
        return this;
    }

    /** A record: header (type, misc, size) then payload. */
    byte[] record(int type, int misc, byte[] payload) {
        ByteBuffer b = buf(8 + payload.length);
        b.putInt(type).putShort((short) misc).putShort((short) (8 + payload.length)).put(payload);
        return b.array();
    }

    PerfDataWriter add(int type, int misc, byte[] payload) {
        return raw(record(type, misc, payload));
    }

    /** The sample_id trailer of event {@code a} for a non-sample record. */
    byte[] trailer(Attr a, int pid, long time, long id) {
        if ((a.flags & SAMPLE_ID_ALL) == 0) {
            return new byte[0];
        }
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        long t = a.sampleType;
        if ((t & TID) != 0) {
            o.writeBytes(buf(8).putInt(pid).putInt(pid).array());
        }
        if ((t & TIME) != 0) {
            o.writeBytes(buf(8).putLong(time).array());
        }
        if ((t & ID) != 0) {
            o.writeBytes(buf(8).putLong(id).array());
        }
        if ((t & STREAM_ID) != 0) {
            o.writeBytes(buf(8).putLong(id).array());
        }
        if ((t & CPU) != 0) {
            o.writeBytes(buf(8).putInt(0).putInt(0).array());
        }
        if ((t & IDENTIFIER) != 0) {
            o.writeBytes(buf(8).putLong(id).array());
        }
        return o.toByteArray();
    }

    /** A SAMPLE of event {@code a}, fields in record order. */
    byte[] sampleRecord(Attr a, Sample s) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        long t = a.sampleType;
        if ((t & IDENTIFIER) != 0) {
            o.writeBytes(buf(8).putLong(s.identifier).array());
        }
        if ((t & IP) != 0) {
            o.writeBytes(buf(8).putLong(s.ip).array());
        }
        if ((t & TID) != 0) {
            o.writeBytes(buf(8).putInt(s.pid).putInt(s.tid).array());
        }
        if ((t & TIME) != 0) {
            o.writeBytes(buf(8).putLong(s.time).array());
        }
        if ((t & ADDR) != 0) {
            o.writeBytes(buf(8).putLong(s.addr).array());
        }
        if ((t & ID) != 0) {
            o.writeBytes(buf(8).putLong(s.id).array());
        }
        if ((t & STREAM_ID) != 0) {
            o.writeBytes(buf(8).putLong(s.streamId).array());
        }
        if ((t & CPU) != 0) {
            o.writeBytes(buf(8).putInt(s.cpu).putInt(0).array());
        }
        if ((t & PERIOD) != 0) {
            o.writeBytes(buf(8).putLong(s.period).array());
        }
        if ((t & READ) != 0) {
            for (long v : s.read) {
                o.writeBytes(buf(8).putLong(v).array());
            }
        }
        if ((t & CALLCHAIN) != 0) {
            o.writeBytes(buf(8).putLong(s.chainNrOverride >= 0 ? s.chainNrOverride : s.chain.length).array());
            for (long v : s.chain) {
                o.writeBytes(buf(8).putLong(v).array());
            }
        }
        for (long v : s.afterCallchain) {
            o.writeBytes(buf(8).putLong(v).array());
        }
        return record(9, s.misc, o.toByteArray());
    }

    PerfDataWriter sample(Attr a, Sample s) {
        return raw(sampleRecord(a, s));
    }

    PerfDataWriter sample(Sample s) {
        return sample(attrs.get(0), s);
    }

    private static byte[] name(String s, int pad) {
        byte[] n = s.getBytes(StandardCharsets.UTF_8);
        int len = (n.length + 1 + pad - 1) / pad * pad;
        byte[] out = new byte[len];
        System.arraycopy(n, 0, out, 0, n.length);
        return out;
    }

    /** MMAP2 of an executable private mapping (prot R|X, flags MAP_PRIVATE) made by the process's main thread. */
    PerfDataWriter mmap2(int cpumode, int pid, long start, long len, long pgoff, String file, long time) {
        return mmap2(cpumode, pid, pid, start, len, pgoff, 5, 2, file, time);
    }

    /** MMAP2 made by thread {@code tid} of process {@code pid}, with mmap's {@code prot} and {@code flags}. */
    PerfDataWriter mmap2(int cpumode, int pid, int tid, long start, long len, long pgoff, int prot, int flags,
            String file, long time) {
        byte[] n = name(file, 8);
        ByteBuffer b = buf(64 + n.length);
        b.putInt(pid).putInt(tid).putLong(start).putLong(len).putLong(pgoff);
        b.putInt(8).putInt(1).putLong(1234).putLong(0).putInt(prot).putInt(flags).put(n);
        byte[] tr = trailer(attrs.get(0), pid, time, firstId());
        return add(10, cpumode, concat(b.array(), tr));
    }

    /** MMAP (the kernel's own map uses it: pid -1, name "[kernel.kallsyms]_text"). */
    PerfDataWriter mmap(int cpumode, int pid, long start, long len, long pgoff, String file, long time) {
        byte[] n = name(file, 8);
        ByteBuffer b = buf(32 + n.length);
        b.putInt(pid).putInt(pid).putLong(start).putLong(len).putLong(pgoff).put(n);
        return add(1, cpumode, concat(b.array(), trailer(attrs.get(0), pid, time, firstId())));
    }

    PerfDataWriter comm(int pid, String comm, long time) {
        byte[] n = name(comm, 8);
        ByteBuffer b = buf(8 + n.length);
        b.putInt(pid).putInt(pid).put(n);
        return add(3, 0, concat(b.array(), trailer(attrs.get(0), pid, time, firstId())));
    }

    /** COMM of thread {@code tid} said to be of process {@code pid}. */
    PerfDataWriter comm(int pid, int tid, String comm, long time) {
        byte[] n = name(comm, 8);
        ByteBuffer b = buf(8 + n.length);
        b.putInt(pid).putInt(tid).put(n);
        return add(3, 0, concat(b.array(), trailer(attrs.get(0), pid, time, firstId())));
    }

    PerfDataWriter fork(int pid, int ppid, long time) {
        return fork(pid, ppid, 0, time);
    }

    /** FORK with header.misc {@code misc} (bit 13: perf record wrote it for a task that ran before it). */
    PerfDataWriter fork(int pid, int ppid, int misc, long time) {
        ByteBuffer b = buf(24);
        b.putInt(pid).putInt(ppid).putInt(pid).putInt(ppid).putLong(time);
        return add(7, misc, concat(b.array(), trailer(attrs.get(0), pid, time, firstId())));
    }

    /** FORK of thread {@code tid} of process {@code pid} from thread {@code ptid} said to be of process {@code ppid}. */
    PerfDataWriter fork(int pid, int ppid, int tid, int ptid, long time) {
        ByteBuffer b = buf(24);
        b.putInt(pid).putInt(ppid).putInt(tid).putInt(ptid).putLong(time);
        return add(7, 0, concat(b.array(), trailer(attrs.get(0), pid, time, firstId())));
    }

    PerfDataWriter exit(int pid, long time) {
        ByteBuffer b = buf(24);
        b.putInt(pid).putInt(pid).putInt(pid).putInt(pid).putLong(time);
        return add(4, 0, concat(b.array(), trailer(attrs.get(0), pid, time, firstId())));
    }

    PerfDataWriter lost(long count) {
        ByteBuffer b = buf(16);
        b.putLong(firstId()).putLong(count);
        return add(2, 0, concat(b.array(), trailer(attrs.get(0), 0, 0, firstId())));
    }

    PerfDataWriter finishedRound() {
        return add(68, 0, new byte[0]);
    }

    private long firstId() {
        return attrs.isEmpty() || attrs.get(0).ids.length == 0 ? 0 : attrs.get(0).ids[0];
    }

    // ---------------------------------------------------------------- features

    /** A u32-length, NUL-padded string as features hold them. */
    byte[] string(String s) {
        byte[] n = name(s, 8);
        return concat(buf(4).putInt(n.length).array(), n);
    }

    PerfDataWriter feature(int bit, byte[] payload) {
        features.put(bit, payload);
        return this;
    }

    PerfDataWriter hostname(String h) {
        return feature(3, string(h));
    }

    /** One build-id record as the BUILD_ID feature holds them (and HEADER_BUILD_ID carries). */
    byte[] buildIdRecord(int misc, int pid, String hexId, String file) {
        byte[] n = name(file, 64);
        ByteBuffer b = buf(8 + 4 + 24 + n.length);
        b.putInt(0).putShort((short) misc).putShort((short) (36 + n.length)).putInt(pid);
        byte[] id = new byte[24];
        for (int i = 0; i < hexId.length() / 2; i++) {
            id[i] = (byte) Integer.parseInt(hexId.substring(2 * i, 2 * i + 2), 16);
        }
        if ((misc & (1 << 15)) != 0) {
            id[20] = (byte) (hexId.length() / 2);
        }
        b.put(id).put(n);
        return b.array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    // ---------------------------------------------------------------- files

    /** The file form: header, attrs, their ids, data, the feature table and sections. */
    byte[] file() {
        int attrSize = 128 + 16;
        int idsOffset = 104;
        int idsBytes = 0;
        for (Attr a : attrs) {
            idsBytes += 8 * a.ids.length;
        }
        int attrsOffset = idsOffset + idsBytes;
        int attrsSize = attrSize * attrs.size();
        int dataOffset = attrsOffset + attrsSize;
        byte[] d = data.toByteArray();
        long featOffset = dataOffset + d.length;
        long featDataOffset = featOffset + 16L * features.size();

        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteBuffer h = buf(104);
        h.putLong(0, ByteOrder.LITTLE_ENDIAN.equals(order) ? 0x32454c4946524550L : 0x50455246494c4532L);
        if (order == ByteOrder.BIG_ENDIAN) {
            h.order(ByteOrder.LITTLE_ENDIAN).putLong(0, Long.reverseBytes(0x32454c4946524550L)).order(order);
        }
        h.putLong(8, 104).putLong(16, attrSize).putLong(24, attrsOffset).putLong(32, attrsSize)
                .putLong(40, dataOffset).putLong(48, d.length);
        long[] bits = new long[4];
        for (int f : features.keySet()) {
            bits[f >>> 6] |= 1L << (f & 63);
        }
        for (int i = 0; i < 4; i++) {
            h.putLong(72 + 8 * i, bits[i]);
        }
        o.writeBytes(h.array());
        int idAt = idsOffset;
        List<long[]> idSections = new ArrayList<>();
        for (Attr a : attrs) {
            for (long id : a.ids) {
                o.writeBytes(buf(8).putLong(id).array());
            }
            idSections.add(new long[] {idAt, 8L * a.ids.length});
            idAt += 8 * a.ids.length;
        }
        for (int i = 0; i < attrs.size(); i++) {
            o.writeBytes(attrs.get(i).bytes(order));
            o.writeBytes(buf(16).putLong(idSections.get(i)[0]).putLong(idSections.get(i)[1]).array());
        }
        o.writeBytes(d);
        long at = featDataOffset;
        for (byte[] f : features.values()) {
            o.writeBytes(buf(16).putLong(at).putLong(f.length).array());
            at += f.length;
        }
        for (byte[] f : features.values()) {
            o.writeBytes(f);
        }
        return o.toByteArray();
    }

    /** The pipe form: 16-byte header, HEADER_ATTR and HEADER_FEATURE records, then the data. */
    byte[] pipe() {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteBuffer h = buf(16);
        h.order(ByteOrder.LITTLE_ENDIAN).putLong(0, order == ByteOrder.LITTLE_ENDIAN ? 0x32454c4946524550L
                : Long.reverseBytes(0x32454c4946524550L)).order(order);
        h.putLong(8, 16);
        o.writeBytes(h.array());
        for (Attr a : attrs) {
            ByteBuffer ids = buf(8 * a.ids.length);
            for (long id : a.ids) {
                ids.putLong(id);
            }
            o.writeBytes(record(64, 0, concat(a.bytes(order), ids.array())));
        }
        for (Map.Entry<Integer, byte[]> f : features.entrySet()) {
            o.writeBytes(record(80, 0, concat(buf(8).putLong(f.getKey()).array(), f.getValue())));
        }
        o.writeBytes(data.toByteArray());
        return o.toByteArray();
    }

    /** perf record -z's feature: u32 version, type (1: zstd), level, ratio, mmap_len. */
    static final int FEATURE_COMPRESSED = 27;

    /**
     * The records written so far as perf record -z writes them: one zstd stream (a frame that
     * never ends, as perf's) cut into COMPRESSED records of at most {@code piece} bytes of it, with
     * the COMPRESSED feature. The stream's blocks are raw blocks of {@code block} bytes: stored, not
     * compressed, so that where records, blocks and COMPRESSED records are cut is the test's choice.
     * {@code type2}: COMPRESSED2 records (a u64 data size, the data padded to 8 bytes).
     */
    PerfDataWriter compressed(int block, int piece, boolean type2) {
        byte[] plain = data.toByteArray();
        ByteArrayOutputStream zstd = new ByteArrayOutputStream();
        // Magic, a frame header descriptor with no content size, checksum or dictionary, a 128 KiB window.
        zstd.writeBytes(new byte[] {(byte) 0x28, (byte) 0xb5, (byte) 0x2f, (byte) 0xfd, 0x00, 0x38});
        for (int at = 0; at < plain.length; at += block) {
            int n = Math.min(block, plain.length - at);
            int header = n << 3; // raw block (type 0), not the last
            zstd.writeBytes(new byte[] {(byte) header, (byte) (header >>> 8), (byte) (header >>> 16)});
            zstd.write(plain, at, n);
        }
        byte[] stream = zstd.toByteArray();
        PerfDataWriter w = new PerfDataWriter(order);
        w.attrs.addAll(attrs);
        w.features.putAll(features);
        w.feature(FEATURE_COMPRESSED, buf(20).putInt(1).putInt(1).putInt(1).putInt(1).putInt(1 << 20).array());
        for (int at = 0; at < stream.length; at += piece) {
            byte[] part = java.util.Arrays.copyOfRange(stream, at, Math.min(stream.length, at + piece));
            if (type2) {
                byte[] padded = java.util.Arrays.copyOf(part, (part.length + 7) & ~7);
                w.add(83, 0, concat(buf(8).putLong(part.length).array(), padded));
            } else {
                w.add(81, 0, part);
            }
        }
        return w;
    }

    Path writeFile(Path dir, String name) throws java.io.IOException {
        return Files.write(dir.resolve(name), file());
    }

    Path writePipe(Path dir, String name) throws java.io.IOException {
        return Files.write(dir.resolve(name), pipe());
    }
}
