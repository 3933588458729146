package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfFormat.*;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the header features the importer uses (peers.md 2.1, 2.2): the build-id records, the
 * machine's strings and numbers, and the event names of EVENT_DESC. The same payloads arrive as
 * file sections (file mode) and inside HEADER_FEATURE records (pipe mode). A malformed feature is
 * a note, not a failure: features say nothing about sample totals.
 */
final class FeatureParser {

    /** A feature's bytes do not have the layout the format gives. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;
        final long offset;

        Malformed(long offset, String message) {
            super(message);
            this.offset = offset;
        }
    }

    private final Bytes bytes;
    private final RecordingInfo info;

    FeatureParser(Bytes bytes, RecordingInfo info) {
        this.bytes = bytes;
        this.info = info;
    }

    /**
     * Reads feature {@code bit} whose payload is {@code b[off, end)}; {@code fileOffset} is the
     * payload's offset in the file, for messages.
     */
    void parse(int bit, byte[] b, int off, int end, long fileOffset) throws Malformed {
        Cursor c = new Cursor(b, off, end, fileOffset);
        switch (bit) {
            case F_BUILD_ID -> buildIds(b, off, end, fileOffset);
            case F_HOSTNAME -> info.features.put("hostname", c.string("hostname"));
            case F_OSRELEASE -> info.features.put("osrelease", c.string("os release"));
            case F_VERSION -> info.features.put("perf version", c.string("perf version"));
            case F_ARCH -> info.features.put("arch", c.string("arch"));
            case F_NRCPUS -> {
                // peers.md 2.1 gives the order (u32 online, u32 avail).
                long online = c.u32("nrcpus online");
                long avail = c.u32("nrcpus avail");
                info.features.put("nrcpus online", Long.toString(online));
                info.features.put("nrcpus avail", Long.toString(avail));
            }
            case F_CPUDESC -> info.features.put("cpudesc", c.string("cpu description"));
            case F_CPUID -> info.features.put("cpuid", c.string("cpuid"));
            case F_TOTAL_MEM -> info.features.put("total memory kB", Long.toString(c.u64("total memory")));
            case F_CMDLINE -> {
                long n = c.u32("cmdline argument count");
                List<String> args = new ArrayList<>();
                for (long i = 0; i < n; i++) {
                    args.add(c.string("cmdline argument " + i));
                }
                info.features.put("cmdline", String.join(" ", args));
            }
            case F_EVENT_DESC -> eventDesc(c);
            case F_SAMPLE_TIME -> {
                long first = c.u64("time of first sample");
                long last = c.u64("time of last sample");
                info.features.put("sample time ns", first + ".." + last);
                info.firstSampleTime = first;
                info.lastSampleTime = last;
            }
            case F_COMPRESSED -> {
                // u32 version, type (1: zstd), level, ratio, mmap_len: perf decompresses each COMPRESSED
                // record into a buffer of mmap_len bytes.
                c.u32("compression version");
                long type = c.u32("compression type");
                long level = c.u32("compression level");
                long ratio = c.u32("compression ratio");
                info.compressedMmapLen = c.u32("compression mmap_len");
                info.features.put("compressed", (type == 1 ? "zstd" : "type " + type) + ", level " + level
                        + ", ratio " + ratio);
            }
            default -> info.otherFeatures.add(PerfNames.feature(bit));
        }
    }

    /** BUILD_ID: records of header, s32 pid, 24-byte id area, NUL-padded filename; advance by header.size. */
    private void buildIds(byte[] b, int off, int end, long fileOffset) throws Malformed {
        int pos = off;
        while (pos < end) {
            long at = fileOffset + (pos - off);
            if (end - pos < RECORD_HEADER_SIZE) {
                throw new Malformed(at, (end - pos) + " bytes left in the build-id section, less than a record header");
            }
            int misc = bytes.u16(b, pos + 4);
            int size = bytes.u16(b, pos + 6);
            if (size < RECORD_HEADER_SIZE + 4 + 24 + 1 || size > end - pos) {
                throw new Malformed(at, "build-id record of " + size + " bytes; expected at least 37 (header, pid,"
                        + " 24-byte id, a name) and at most the " + (end - pos) + " bytes left in the section");
            }
            buildIdRecord(b, pos, misc, size, at);
            pos += size;
        }
    }

    /** One build-id record at {@code pos} (also the payload layout of HEADER_BUILD_ID records). */
    void buildIdRecord(byte[] b, int pos, int misc, int size, long at) throws Malformed {
        if (size < RECORD_HEADER_SIZE + 4 + 24 + 1) {
            throw new Malformed(at, "build-id record of " + size + " bytes; expected at least 37 (header, pid,"
                    + " 24-byte id, a name)");
        }
        int pid = bytes.s32(b, pos + 8);
        int idArea = pos + 12;
        int length = 20;
        if ((misc & MISC_BUILD_ID_SIZE) != 0) {
            length = b[idArea + 20] & 0xFF;
            if (length == 0 || length > 20) {
                throw new Malformed(at + 32, "build-id length " + length + "; expected 1 to 20 bytes");
            }
        }
        String name = Bytes.paddedString(b, pos + 36, pos + size);
        info.buildIds.add(new RecordingInfo.BuildId(pid, misc & CPUMODE_MASK, name, Bytes.hex(b, idArea, length)));
    }

    /** EVENT_DESC: u32 nr, u32 attr_size, then per event {attr, u32 nr_ids, name, u64 ids[nr_ids]}. */
    private void eventDesc(Cursor c) throws Malformed {
        long nr = c.u32("event count");
        long attrSize = c.u32("attr size");
        if (attrSize < EventAttr.SIZE_VER0) {
            throw new Malformed(c.at(), "attr size " + attrSize + " in EVENT_DESC; expected at least 64");
        }
        for (long i = 0; i < nr; i++) {
            c.skip(attrSize, "attr of event " + i);
            long nrIds = c.u32("id count of event " + i);
            String name = c.string("name of event " + i);
            for (long k = 0; k < nrIds; k++) {
                long id = c.u64("id " + k + " of event " + i);
                nameId(id, name);
            }
        }
    }

    /**
     * Gives the event with this id its name (EVENT_DESC, EVENT_UPDATE); the first event listing
     * it, as the reader counts its samples. Looked up in a map of the ids (rebuilt when events were
     * added), so that a feature naming millions of ids takes time in proportion to them.
     */
    void nameId(long id, String name) {
        if (eventById == null || indexedEvents != info.attrs.size()) {
            eventById = new LongIntMap(64);
            indexedEvents = info.attrs.size();
            for (int e = 0; e < indexedEvents; e++) {
                for (long x : info.attrs.get(e).ids) {
                    if (eventById.get(x) == LongIntMap.ABSENT) {
                        eventById.put(x, e);
                    }
                }
            }
        }
        int e = eventById.get(id);
        if (e != LongIntMap.ABSENT) {
            info.attrs.get(e).name = name;
        }
        if (info.attrs.size() == 1 && info.attrs.get(0).ids.length == 0) {
            info.attrs.get(0).name = name;
        }
    }

    private LongIntMap eventById;
    private int indexedEvents;

    /** Sequential reads inside one feature's payload, each bounds-checked. */
    private final class Cursor {
        final byte[] b;
        final int start;
        final int end;
        final long fileOffset;
        int pos;

        Cursor(byte[] b, int start, int end, long fileOffset) {
            this.b = b;
            this.start = start;
            this.end = end;
            this.fileOffset = fileOffset;
            this.pos = start;
        }

        long at() {
            return fileOffset + (pos - start);
        }

        private void need(long n, String what) throws Malformed {
            if (n < 0 || n > end - pos) {
                throw new Malformed(at(), what + " needs " + n + " bytes but the feature has " + (end - pos) + " left");
            }
        }

        long u32(String what) throws Malformed {
            need(4, what);
            long v = bytes.u32(b, pos);
            pos += 4;
            return v;
        }

        long u64(String what) throws Malformed {
            need(8, what);
            long v = bytes.u64(b, pos);
            pos += 8;
            return v;
        }

        void skip(long n, String what) throws Malformed {
            need(n, what);
            pos += (int) n;
        }

        /** u32 length, then that many bytes holding a NUL-padded string. */
        String string(String what) throws Malformed {
            long len = u32(what + " length");
            need(len, what);
            String s = Bytes.paddedString(b, pos, pos + (int) len);
            pos += (int) len;
            return s;
        }
    }
}
