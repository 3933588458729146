package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfFormat.*;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a perf.data recording: the seekable file (header, attrs section, data section, feature
 * sections; peers.md 2.1-2.3) or the pipe form that {@code perf record -o -} writes (a 16-byte
 * header, then HEADER_ATTR, HEADER_FEATURE and the data records as they come; peers.md 2.8).
 *
 * <h2>What it hands on</h2>
 * SAMPLE, MMAP, MMAP2, COMM, FORK and EXIT records, decoded, in time order within each
 * FINISHED_ROUND window (records without a time as they are read). LOST and LOST_SAMPLES add to
 * the lost count. Every other record type is skipped and counted by its name.
 *
 * <h2>Bad input</h2>
 * Every size and offset is checked against what holds it. A file too short for what its header
 * says, a record whose size is less than its header or runs past the end of the data, a section
 * outside the file, or a layout this reader cannot follow (an old or compressed format, events that
 * do not agree where their sample id is) stops the read with a {@link PerfDataException} naming the
 * file, the byte offset and what was expected. A single record that is malformed inside its own
 * (valid) size is counted as invalid and the read goes on; a sample of an event the attrs do not
 * name, or of an event whose sample_type has bits this reader does not know, is counted as dropped.
 * So: samples read = handed on + dropped + invalid, always.
 *
 * <p>Not thread-safe: one reading thread.
 */
public final class PerfDataReader implements Closeable {

    /** Notes kept; further problems of a kind already noted only raise its count. */
    static final int MAX_NOTES = 40;
    /** A round of a stream whose kept bytes (callchains, side-band records) exceed this hands on its older half early. */
    static final int ROUND_LIMIT_BYTES = 64 << 20;
    /**
     * A round with more records than this hands on its older half early: a
     * decoded record takes about 70 bytes, so a round holds at most about 18 MB (perf drains its
     * buffers every pass, and real rounds hold thousands of records).
     */
    static final int ROUND_LIMIT_RECORDS = 1 << 18;
    /** How far {@link #partStarts} looks for a round's end from where a share starts. */
    static final int MAX_ROUND_SCAN = 4 << 20;
    /** A batch is handed on at the first round's end after it holds this many records. */
    static final int BATCH_RECORDS = 4096;

    private final String file;
    private final Bytes bytes;
    private final RecordingInfo info;
    private final FeatureParser features;
    private final FileChannel channel;
    private final InputStream stream;
    private final PerfInput input;
    /** The batch being filled, or null. */
    private RawBatch batch;
    /** MMAP file names and COMM names, each met again given back as the String made the first time. */
    private final RecordStrings names = new RecordStrings();
    /** Whether {@link #sampleRun} may take runs of samples (turned off to check it against the general path). */
    private boolean sampleRuns = true;
    private int roundLimitRecords = ROUND_LIMIT_RECORDS;
    private int roundLimitBytes = ROUND_LIMIT_BYTES;
    private LongIntMap attrById = new LongIntMap(64);
    private EventAttr[] attrs = new EventAttr[0];
    private PerfEvents events;
    private boolean headerDelivered;

    /** No stop: the read goes on to the end of the data. */
    static final long NO_STOP = Long.MAX_VALUE;
    /** Where the read pauses, if a round ends exactly there ({@link #stopAt}). */
    private long stopAt = NO_STOP;
    /** Where the last FINISHED_ROUND read ended. */
    private long roundEndAt = -1;
    /** A part of the recording read by a reader of its own ({@link #part}), or null. */
    private String partOf;

    // The books.
    private long samplesRead;
    private long samplesDropped;
    private long samplesInvalid;
    private long lost;
    private long invalidRecords;
    private final long[] recordsByType = new long[128];
    private final Map<Integer, Long> otherTypes = new TreeMap<>();
    private final Map<String, Long> skipped = new TreeMap<>();
    private final Map<String, Long> problemCounts = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    private PerfDataReader(String file, Bytes bytes, RecordingInfo info, FileChannel channel, InputStream stream,
            PerfInput input) {
        this.file = file;
        this.bytes = bytes;
        this.info = info;
        this.features = new FeatureParser(bytes, info);
        this.channel = channel;
        this.stream = stream;
        this.input = input;
    }

    private static java.nio.ByteOrder order(Bytes bytes) {
        return bytes.swap ? java.nio.ByteOrder.BIG_ENDIAN : java.nio.ByteOrder.LITTLE_ENDIAN;
    }

    // ---------------------------------------------------------------- opening

    /**
     * Opens a recording file, in file or pipe form, and reads its header (and in file form its
     * attrs and feature sections).
     */
    public static PerfDataReader open(Path path) throws PerfDataException {
        String name = path.toString();
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new PerfDataException(name, -1, "no such file; give the path of a perf.data file (perf record -o)");
        } catch (IOException | SecurityException e) {
            throw new PerfDataException(name, -1, "cannot be opened (" + e.getMessage()
                    + "); check that it exists and is readable (perf record writes it mode 0600, owned by its user)");
        }
        try {
            return openChannel(name, ch);
        } catch (PerfDataException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        } catch (IOException e) {
            closeQuietly(ch);
            throw new PerfDataException(name, -1, "cannot be read: " + e);
        }
    }

    private static PerfDataReader openChannel(String name, FileChannel ch) throws IOException, PerfDataException {
        long fileSize = ch.size();
        if (fileSize < PIPE_HEADER_SIZE) {
            throw new PerfDataException(name, 0, "the file has " + fileSize + " bytes, less than the 16-byte"
                    + " perf.data header (magic PERFILE2 and a header size): it is empty or not a perf.data file");
        }
        byte[] head = readAt(ch, 0, PIPE_HEADER_SIZE);
        Bytes bytes = byteOrder(name, head);
        long headerSize = bytes.u64(head, 8);
        if (headerSize == PIPE_HEADER_SIZE) {
            // A pipe recording saved to a file (perf record -o - > file): read it as a stream.
            InputStream in = Channels.newInputStream(ch.position(PIPE_HEADER_SIZE));
            RecordingInfo info = new RecordingInfo(name, true, bytes.swap);
            return new PerfDataReader(name, bytes, info, ch, in, PerfInput.ofStream(in, order(bytes), PIPE_HEADER_SIZE));
        }
        if (headerSize != FILE_HEADER_SIZE) {
            throw new PerfDataException(name, 8, "header size " + headerSize + "; expected " + FILE_HEADER_SIZE
                    + " (a seekable perf.data) or " + PIPE_HEADER_SIZE + " (pipe mode, perf record -o -)");
        }
        if (fileSize < FILE_HEADER_SIZE) {
            throw new PerfDataException(name, fileSize, "the file ends inside its " + FILE_HEADER_SIZE
                    + "-byte header (" + fileSize + " bytes): it is truncated");
        }
        byte[] h = readAt(ch, 0, FILE_HEADER_SIZE);
        RecordingInfo info = new RecordingInfo(name, false, bytes.swap);
        long attrSize = bytes.u64(h, 16);
        long attrsOffset = bytes.u64(h, 24);
        long attrsSize = bytes.u64(h, 32);
        long dataOffset = bytes.u64(h, 40);
        long dataSize = bytes.u64(h, 48);
        List<String> openNotes = new ArrayList<>();
        section(name, 24, "attrs", attrsOffset, attrsSize, fileSize);
        long[] bits = new long[4];
        boolean anyFeature = false;
        for (int i = 0; i < 4; i++) {
            bits[i] = bytes.u64(h, 72 + 8 * i);
            anyFeature |= bits[i] != 0;
        }
        if (dataSize == 0 && !anyFeature && fileSize > dataOffset && dataOffset >= FILE_HEADER_SIZE) {
            // perf record did not end properly and never wrote the final header: read to the file's end.
            dataSize = fileSize - dataOffset;
            openNotes.add("the header's data size is 0 and it lists no features (perf record was not ended"
                    + " properly, so it never wrote the final header); the data is read to the end of the file");
        } else {
            checkDataSection(name, dataOffset, dataSize, fileSize);
        }
        info.dataOffset = dataOffset;
        info.dataSize = dataSize;
        PerfDataReader r = new PerfDataReader(name, bytes, info, ch, null,
                PerfInput.ofFile(ch, order(bytes), dataOffset, dataOffset + dataSize));
        for (String n : openNotes) {
            r.note("header.data-size", n);
        }
        r.readAttrs(attrSize, attrsOffset, attrsSize, fileSize);
        r.readFeatures(bits, dataOffset + dataSize, fileSize);
        return r;
    }

    /**
     * Opens a pipe-mode recording from a stream (the output of {@code perf record -o -}); reads
     * only its 16-byte header now, everything else as {@link #read} goes.
     */
    public static PerfDataReader open(InputStream in, String name) throws PerfDataException {
        byte[] head = new byte[PIPE_HEADER_SIZE];
        int got;
        try {
            got = in.readNBytes(head, 0, PIPE_HEADER_SIZE);
        } catch (IOException e) {
            throw new PerfDataException(name, 0, "cannot be read: " + e);
        }
        if (got < PIPE_HEADER_SIZE) {
            throw new PerfDataException(name, got, "the stream ended after " + got + " bytes, inside the 16-byte"
                    + " perf.data header: the recorder wrote nothing (see its error output)");
        }
        Bytes bytes = byteOrder(name, head);
        long headerSize = bytes.u64(head, 8);
        if (headerSize != PIPE_HEADER_SIZE) {
            throw new PerfDataException(name, 8, "header size " + headerSize + "; a stream must be in pipe mode"
                    + " (header size 16, perf record -o -); read a seekable perf.data from its file");
        }
        RecordingInfo info = new RecordingInfo(name, true, bytes.swap);
        return new PerfDataReader(name, bytes, info, null, in, PerfInput.ofStream(in, order(bytes), PIPE_HEADER_SIZE));
    }

    private static Bytes byteOrder(String name, byte[] head) throws PerfDataException {
        Bytes le = new Bytes(false);
        long magic = le.u64(head, 0);
        if (magic == MAGIC2) {
            return le;
        }
        if (magic == Long.reverseBytes(MAGIC2)) {
            return new Bytes(true);
        }
        if (magic == MAGIC1 || magic == Long.reverseBytes(MAGIC1)) {
            throw new PerfDataException(name, 0, "magic PERFFILE: this is the version-1 perf.data format of perf"
                    + " before 2.6.39, which this reader does not read; re-record, or convert it with a perf of that"
                    + " era (perf inject -i old -o new)");
        }
        throw new PerfDataException(name, 0, "starts with bytes " + Bytes.hex(head, 0, 8) + "; expected the magic"
                + " PERFILE2 (50455246494c4532) of a perf.data file");
    }

    private static void section(String name, long at, String what, long offset, long size, long fileSize)
            throws PerfDataException {
        if (offset < 0 || size < 0 || offset > fileSize || size > fileSize - offset) {
            throw new PerfDataException(name, at, "the " + what + " section {offset " + offset + ", size " + size
                    + "} runs past the end of the " + fileSize + "-byte file: the file is truncated or its header"
                    + " is corrupt");
        }
    }

    private static void checkDataSection(String name, long offset, long size, long fileSize)
            throws PerfDataException {
        if (offset < FILE_HEADER_SIZE || size < 0) {
            throw new PerfDataException(name, 40, "the data section {offset " + offset + ", size " + size
                    + "} does not lie after the " + FILE_HEADER_SIZE + "-byte header: the header is corrupt");
        }
        if (offset > fileSize || size > fileSize - offset) {
            throw new PerfDataException(name, 40, "the header says the data section ends at byte "
                    + (offset + size) + " but the file has only " + fileSize + " bytes: the file is truncated"
                    + " (copied while perf record was writing it, or cut); re-record or copy it again");
        }
    }

    private static byte[] readAt(FileChannel ch, long offset, int length) throws IOException {
        byte[] b = new byte[length];
        ByteBuffer bb = ByteBuffer.wrap(b);
        while (bb.hasRemaining()) {
            if (ch.read(bb, offset + bb.position()) < 0) {
                throw new IOException("unexpected end of file at byte " + (offset + bb.position()));
            }
        }
        return b;
    }

    private void readAttrs(long attrSize, long attrsOffset, long attrsSize, long fileSize)
            throws IOException, PerfDataException {
        if (attrsSize == 0) {
            throw new PerfDataException(file, 32, "the attrs section is empty: the recording names no event, so"
                    + " its samples cannot be read");
        }
        if (attrSize < EventAttr.SIZE_VER0 + 16 || attrSize > 4096) {
            throw new PerfDataException(file, 16, "attr_size " + attrSize + "; expected a perf_event_attr of 64 to"
                    + " 4080 bytes plus the 16-byte ids pointer (" + (128 + 16) + " for perf 6.x)");
        }
        if (attrsSize % attrSize != 0) {
            throw new PerfDataException(file, 32, "the attrs section's " + attrsSize + " bytes are not a whole"
                    + " number of " + attrSize + "-byte entries: the header is corrupt");
        }
        int n = (int) (attrsSize / attrSize);
        byte[] all = readAt(channel, attrsOffset, (int) attrsSize);
        for (int i = 0; i < n; i++) {
            int off = (int) (i * attrSize);
            long at = attrsOffset + off;
            int ownSize = EventAttr.sizeOf(bytes, all, off);
            if (ownSize < EventAttr.SIZE_VER0) {
                throw new PerfDataException(file, at + 4, "attr " + i + " says it is " + ownSize + " bytes; a"
                        + " perf_event_attr is at least 64 (PERF_ATTR_SIZE_VER0)");
            }
            int idsAt = off + (int) attrSize - 16;
            long idsOffset = bytes.u64(all, idsAt);
            long idsSize = bytes.u64(all, idsAt + 8);
            section(file, attrsOffset + idsAt, "ids of attr " + i, idsOffset, idsSize, fileSize);
            if (idsSize % 8 != 0 || idsSize > (1 << 24)) {
                throw new PerfDataException(file, attrsOffset + idsAt + 8, "the ids of attr " + i + " take "
                        + idsSize + " bytes; expected a whole number of 8-byte ids");
            }
            long[] ids = new long[(int) (idsSize / 8)];
            if (idsSize > 0) {
                byte[] idBytes = readAt(channel, idsOffset, (int) idsSize);
                for (int k = 0; k < ids.length; k++) {
                    ids[k] = bytes.u64(idBytes, 8 * k);
                }
            }
            addAttr(EventAttr.parse(bytes, all, off, i, ids), at);
        }
    }

    private void readFeatures(long[] bits, long tableOffset, long fileSize) throws IOException, PerfDataException {
        int count = 0;
        for (long w : bits) {
            count += Long.bitCount(w);
        }
        if (count == 0) {
            return;
        }
        if ((bits[0] & (1L << F_COMPRESSED)) != 0) {
            throw compressed(tableOffset);
        }
        long tableSize = 16L * count;
        if (tableOffset > fileSize || tableSize > fileSize - tableOffset) {
            note("features.table", "the header lists " + count + " features but their table at byte " + tableOffset
                    + " runs past the end of the " + fileSize + "-byte file; the features (build-ids, host name,"
                    + " ...) are not read");
            return;
        }
        byte[] table = readAt(channel, tableOffset, (int) tableSize);
        int k = 0;
        for (int bit = 0; bit < FEATURE_BITS; bit++) {
            if ((bits[bit >>> 6] & (1L << (bit & 63))) == 0) {
                continue;
            }
            long offset = bytes.u64(table, 16 * k);
            long size = bytes.u64(table, 16 * k + 8);
            long at = tableOffset + 16L * k;
            k++;
            String name = PerfNames.feature(bit);
            if (offset < 0 || size < 0 || offset > fileSize || size > fileSize - offset || size > (256 << 20)) {
                note("feature." + name, "feature " + name + ": its section {offset " + offset + ", size " + size
                        + "} (table entry at byte " + at + ") lies outside the " + fileSize + "-byte file; ignored");
                continue;
            }
            if (!wanted(bit)) {
                info.otherFeatures.add(name);
                continue;
            }
            byte[] payload = readAt(channel, offset, (int) size);
            try {
                features.parse(bit, payload, 0, payload.length, offset);
            } catch (FeatureParser.Malformed e) {
                note("feature." + name, "feature " + name + " at byte " + e.offset + " is malformed (" + e.getMessage()
                        + "); ignored");
            }
        }
    }

    private static boolean wanted(int bit) {
        return bit == F_BUILD_ID || (bit >= F_HOSTNAME && bit <= F_EVENT_DESC) || bit == F_SAMPLE_TIME;
    }

    private PerfDataException compressed(long at) {
        return new PerfDataException(file, at, "the recording's records are zstd-compressed (perf record -z);"
                + " this reader reads uncompressed records: write an uncompressed copy with"
                + " 'perf inject -i " + file + " -o plain.data' and import that");
    }

    /** Adds an event; every event must place its sample id where the others do (perf requires it too). */
    private void addAttr(EventAttr a, long at) throws PerfDataException {
        if (attrs.length > 0) {
            EventAttr first = attrs[0];
            if (a.sampleIdOffset != first.sampleIdOffset || a.trailerIdFromEnd != first.trailerIdFromEnd
                    || a.sampleIdAll != first.sampleIdAll) {
                throw new PerfDataException(file, at, "event " + attrs.length + " " + a.describe()
                        + " places its sample id differently from event 0 " + first.describe()
                        + "; perf writes recordings whose events agree on it (sample_type with IDENTIFIER, or the"
                        + " same ID position), so the records cannot be told apart");
            }
            if (a.sampleIdOffset < 0) {
                throw new PerfDataException(file, at, "the recording has " + (attrs.length + 1) + " events but"
                        + " their sample_type has neither ID nor IDENTIFIER: a sample cannot be matched to its event");
            }
        }
        for (long id : a.ids) {
            int prev = attrById.get(id);
            if (prev != LongIntMap.ABSENT && prev != attrs.length) {
                note("attr.duplicate-id", "sample id " + id + " is listed by events " + prev + " and " + attrs.length
                        + "; samples with it are counted for event " + prev);
                continue;
            }
            attrById.put(id, attrs.length);
        }
        if (a.unknownSampleBits != 0) {
            note("attr.unknown-sample-type." + attrs.length, "event " + attrs.length + " " + a.describe()
                    + " has sample_type bits 0x" + Long.toHexString(a.unknownSampleBits) + " this reader does not"
                    + " know, so its samples cannot be laid out: they are counted as dropped");
        } else if (a.unknownReadBits != 0 && a.has(S_READ)) {
            note("attr.unknown-read-format." + attrs.length, "event " + attrs.length + " " + a.describe()
                    + " has read_format bits 0x" + Long.toHexString(a.unknownReadBits) + " this reader does not"
                    + " know, so its samples cannot be laid out: they are counted as dropped");
        }
        EventAttr[] grown = java.util.Arrays.copyOf(attrs, attrs.length + 1);
        grown[attrs.length] = a;
        attrs = grown;
        info.attrs.add(a);
    }

    // ---------------------------------------------------------------- reading

    /**
     * The mapped data section that decoded records point into for the whole read (callchains may be
     * read there in place, from any thread), or null when records are read through a buffer.
     */
    java.nio.ByteBuffer stableData() {
        return input.stable() ? input.view : null;
    }

    /** The recording's byte order. */
    java.nio.ByteOrder byteOrder() {
        return order(bytes);
    }

    /** The recording's header information (complete in file mode now; in pipe mode once {@link #read} started). */
    RecordingInfo info() {
        return info;
    }

    /**
     * Reads every record, to the end of the data or to where {@link #stopAt} says, and hands the
     * decoded ones to {@code handler}.
     *
     * @return true when the read paused at its stop: a round ended exactly there, and everything
     *         before it was handed on; false at the end of the data
     * @throws PerfDataException when the recording cannot be read on (what was handed on until then stays valid)
     */
    boolean read(PerfEvents handler) throws PerfDataException {
        this.events = handler;
        if (!info.pipe) {
            deliverHeader();
        }
        PerfInput in = input;
        try {
            while (true) {
                if (sampleRuns && in.stable()) {
                    long stopPos = stopAt - in.offset(0);
                    in.pos = sampleRun(in.view, in.pos, stopPos < in.limit ? (int) stopPos : in.limit);
                }
                if (in.offset() >= stopAt && pauses(in.offset())) {
                    handOnAll();
                    return true;
                }
                int available = in.ensure(RECORD_HEADER_SIZE);
                if (available == 0) {
                    break;
                }
                long at = in.offset();
                if (available < RECORD_HEADER_SIZE) {
                    throw truncated(at, "a record header (8 bytes)", available);
                }
                ByteBuffer b = in.view;
                int p = in.pos;
                int type = b.getInt(p);
                int size = Short.toUnsignedInt(b.getShort(p + 6));
                if (size < RECORD_HEADER_SIZE) {
                    throw new PerfDataException(file, at, "a record of type " + (type & 0xFFFFFFFFL) + " ("
                            + PerfNames.record(type) + ") says it is " + size + " bytes, less than its own 8-byte"
                            + " header: the data is corrupt here, so the records after it cannot be found");
                }
                if (size > available) {
                    available = in.ensure(size);
                    if (available < size) {
                        throw truncated(at, "a " + PerfNames.record(type) + " record of " + size + " bytes",
                                available);
                    }
                    b = in.view;
                    p = in.pos;
                }
                count(type);
                long extra = record(b, p, type, size, at);
                in.pos = p + size;
                if (type == FINISHED_ROUND) {
                    roundEndAt = at + size;
                }
                if (extra > 0 && !in.skip(extra)) {
                    throw truncated(in.offset(), "the " + extra + " bytes of data that follow the "
                            + PerfNames.record(type) + " record at byte " + at, 0);
                }
            }
            deliverHeader();
            handOnAll();
            return false;
        } catch (PerfDataException e) {
            handOnWhatWasRead();
            throw e;
        } catch (IOException e) {
            handOnWhatWasRead();
            throw new PerfDataException(file, in.offset(), "cannot be read: " + e);
        }
    }

    /**
     * Before a read stops on an error: the records read and queued so far are handed on, so that
     * they are counted where they belong and the books balance.
     */
    private void handOnWhatWasRead() {
        deliverHeader();
        handOnAll();
    }

    // ---------------------------------------------------------------- parts read at once

    /**
     * At or past the stop: pause there when a FINISHED_ROUND ends exactly at it. Otherwise the
     * stop was no round boundary (its bytes lay inside a record) and the read goes on to the end.
     */
    private boolean pauses(long at) {
        if (at == stopAt && roundEndAt == at) {
            return true;
        }
        stopAt = NO_STOP;
        return false;
    }

    /** Makes the next {@link #read} pause at {@code offset} if a round ends exactly there ({@link #NO_STOP}: none). */
    void stopAt(long offset) {
        this.stopAt = offset;
    }

    /** Goes on from {@code offset} of a mapped recording (a round boundary), up to a new stop. */
    void resumeAt(long offset, long stop) {
        input.seek(offset);
        this.stopAt = stop;
    }

    /**
     * Where a mapped recording may be cut into {@code parts} parts read at once: for each part
     * after the first, the offset just after the first FINISHED_ROUND record found from its share
     * of the data on. Found by its bytes (type 68, misc 0, size 8, at an 8-byte step), so only a
     * guess: such bytes may lie inside a record. A reader that reaches the offset exactly after a
     * FINISHED_ROUND confirms it ({@link #read} pauses there); none for a stream, and fewer parts
     * when no round ends in a share's first {@link #MAX_ROUND_SCAN} bytes.
     */
    long[] partStarts(int parts) {
        if (!input.stable() || parts < 2) {
            return new long[0];
        }
        ByteBuffer v = input.view;
        int size = input.limit;
        // The first part's reader also finds each sample's mapping and sets the import up: it reads less.
        double first = 0.9 / parts;
        double each = (1 - first) / (parts - 1);
        long[] starts = new long[parts - 1];
        int n = 0;
        int from = 0;
        for (int k = 1; k < parts; k++) {
            int share = (int) (size * (first + each * (k - 1))) & ~7;
            int p = Math.max(from, share);
            // perf ends a round at every pass over its buffers: far apart only in a file with none to find.
            int shareEnd = (int) Math.min(Math.min(size - RECORD_HEADER_SIZE, size * (first + each * k)),
                    (long) p + MAX_ROUND_SCAN);
            int found = -1;
            for (; p <= shareEnd; p += 8) {
                if (v.getInt(p) == FINISHED_ROUND && v.getShort(p + 4) == 0 && v.getShort(p + 6) == 8) {
                    found = p + 8;
                    break;
                }
            }
            if (found < 0 || found >= size) {
                continue;
            }
            starts[n++] = input.offset(found);
            from = found;
        }
        return java.util.Arrays.copyOf(starts, n);
    }

    /**
     * A reader of the part of this mapped recording from {@code start} (a round boundary, as far
     * as {@link #partStarts} could tell) to {@code stop}, for another thread: the same events, its
     * own books. It stops with a {@link PerfDataException} at anything a part cannot read on its
     * own: a record perf writes for itself (they may change the events), or a problem worth a note.
     */
    PerfDataReader part(long start, long stop) {
        PerfDataReader p = new PerfDataReader(file, bytes, info, null, null, input.part(start));
        p.attrs = attrs;
        p.attrById = attrById;
        p.headerDelivered = true;
        p.stopAt = stop;
        p.sampleRuns = sampleRuns;
        p.roundLimit(roundLimitRecords, roundLimitBytes);
        p.partOf = file;
        return p;
    }

    /**
     * Whether the books of {@code part}, read by its own reader, can join these as if this reader
     * had read it: it met no problem (a problem's note names where it was met, which only a
     * reading in sequence can tell), and the lost counts add up within their bound.
     */
    boolean canAbsorb(PerfDataReader part) {
        return part.samplesDropped == 0 && part.samplesInvalid == 0 && part.invalidRecords == 0
                && part.problemCounts.isEmpty() && part.notes.isEmpty() && lost + part.lost <= MAX_LOST;
    }

    /** Adds the books of a part read by its own reader (see {@link #canAbsorb}). */
    void absorb(PerfDataReader part) {
        samplesRead += part.samplesRead;
        lost += part.lost;
        for (int t = 0; t < recordsByType.length; t++) {
            recordsByType[t] += part.recordsByType[t];
        }
        part.otherTypes.forEach((type, n) -> otherTypes.merge(type, n, Long::sum));
        part.skipped.forEach((name, n) -> skipped.merge(name, n, Long::sum));
    }

    // ---------------------------------------------------------------- batches

    /** The batch being filled. */
    private RawBatch batch() {
        RawBatch b = batch;
        if (b == null) {
            b = newBatch();
            batch = b;
        }
        return b;
    }

    private RawBatch newBatch() {
        RawBatch b = events.take();
        return b != null ? b : new RawBatch(BATCH_RECORDS, stableData(), byteOrder());
    }

    private void handOver() {
        RawBatch b = batch;
        batch = null;
        events.handOver(b);
    }

    /** At the end of the read: the open round, sorted, and the batch handed on. */
    private void handOnAll() {
        RawBatch b = batch;
        if (b != null) {
            endRound(b, b.timedCount);
            handOver();
        }
    }

    /** A FINISHED_ROUND: the open round joins the order, and the batch goes on if it is full enough. */
    private void roundFinished() {
        RawBatch b = batch();
        endRound(b, b.timedCount);
        if (headerDelivered) {
            b.event(RawBatch.ROUND, samplesRead);
        }
        if (b.ordered >= BATCH_RECORDS || events.eachRound()) {
            handOver();
        }
    }

    /**
     * Sorts the open round and appends its {@code n} oldest entries to the order, parsing its
     * side-band records; the rest stay in the round.
     */
    private void endRound(RawBatch b, int n) {
        b.sortRound();
        ByteBuffer data = b.stable != null ? b.stable : b.arena;
        int[] timed = b.timed;
        for (int k = 0; k < n; k++) {
            int i = timed[k];
            if (b.kind[i] == RawBatch.RECORD) {
                Object parsed = parse(data, b.recordOffset[i], b.columns.fileOffset[i]);
                if (parsed == null) {
                    continue;
                }
                b.kind[i] = parsedKind;
                b.event[i] = parsed;
            }
            b.now(i);
        }
        if (n == b.timedCount) {
            b.timedCount = 0;
        }
    }

    /**
     * A round grown past its memory bound: its older half goes on now, its newer half moves to the
     * next batch and stays open.
     */
    private void splitRound() {
        RawBatch old = batch;
        old.sortRound();
        int half = old.timedCount / 2;
        RawBatch next = newBatch();
        next.takeRound(old, half);
        endRound(old, half);
        handOver();
        batch = next;
    }

    private boolean roundTooLarge(RawBatch b) {
        return b.timedCount > roundLimitRecords || (b.stable == null && b.arenaUsed > roundLimitBytes);
    }

    /** Turns the fast path for runs of samples on or off (tests compare the two). */
    void sampleRuns(boolean on) {
        this.sampleRuns = on;
    }

    /**
     * The common case at full speed: a run of well-formed SAMPLE records of a mapped recording
     * with one event that records its time, decoded straight into the open round. It stops at the
     * first record that is anything else (another type, a size that lies or runs past the data, a
     * full batch, a round at its bound) and returns where that record starts: the general path
     * takes it from there, so every rule about odd records has one place, and the values decoded
     * are the ones {@link #decodeSample} gives.
     */
    private int sampleRun(ByteBuffer b, int p, int limit) {
        if (!headerDelivered || attrs.length != 1) {
            return p;
        }
        EventAttr a = attrs[0];
        if (a.unknownSampleBits != 0 || a.has(S_READ) || a.sampleTimeOffset < 0) {
            return p;
        }
        RawBatch rb = batch();
        DecodedSamples d = rb.columns;
        int fixed = a.sampleFixedSize;
        boolean chains = (a.sampleType & S_CALLCHAIN) != 0;
        int least = RECORD_HEADER_SIZE + fixed + (chains ? 8 : 0);
        int ipAt = a.sampleIpOffset;
        int tidAt = a.sampleTidOffset;
        int timeAt = a.sampleTimeOffset;
        int cpuAt = a.sampleCpuOffset;
        int periodAt = a.samplePeriodOffset;
        long period = a.fixedPeriod();
        long base = input.offset(0);
        int i = rb.count;
        int capacity = rb.kind.length;
        int[] timed = rb.timed;
        int inRound = rb.timedCount;
        int roundLimit = Math.min(roundLimitRecords, capacity);
        int start = i;
        while (p <= limit - RECORD_HEADER_SIZE && i < capacity && inRound < roundLimit) {
            int size = Short.toUnsignedInt(b.getShort(p + 6));
            if (b.getInt(p) != SAMPLE || size < least || size > limit - p) {
                break;
            }
            int q = p + RECORD_HEADER_SIZE;
            int chainAt = q + fixed;
            long nr = 0;
            if (chains) {
                nr = b.getLong(chainAt);
                chainAt += 8;
                if (nr < 0 || nr > (p + size - chainAt) / 8) {
                    break;
                }
            }
            d.attr[i] = a;
            d.cpumode[i] = (byte) (b.getShort(p + 4) & CPUMODE_MASK);
            d.fileOffset[i] = base + p;
            d.ip[i] = ipAt >= 0 ? b.getLong(q + ipAt) : 0;
            if (tidAt >= 0) {
                d.pid[i] = b.getInt(q + tidAt);
                d.tid[i] = b.getInt(q + tidAt + 4);
            } else {
                d.pid[i] = -1;
                d.tid[i] = -1;
            }
            d.time[i] = b.getLong(q + timeAt);
            d.cpu[i] = cpuAt >= 0 ? b.getInt(q + cpuAt) : 0;
            d.period[i] = periodAt >= 0 ? b.getLong(q + periodAt) : period;
            d.chainAt[i] = chainAt;
            d.chainLength[i] = (int) nr;
            rb.kind[i] = RawBatch.SAMPLE;
            timed[inRound++] = i;
            i++;
            p += size;
        }
        int n = i - start;
        rb.count = i;
        rb.timedCount = inRound;
        samplesRead += n;
        recordsByType[SAMPLE] += n;
        return p;
    }

    /** Lowers the memory bound of a round (tests make large rounds small this way). */
    void roundLimit(int records, int bytes) {
        this.roundLimitRecords = records;
        this.roundLimitBytes = bytes;
    }

    private PerfDataException truncated(long at, String expected, int available) {
        return new PerfDataException(file, at, "expected " + expected + " but the " + (info.pipe ? "stream" : "data")
                + " ends after " + available + " more bytes: the recording is truncated (perf record was killed,"
                + " or the file was cut); " + samplesRead + " samples were read before this point");
    }

    private void count(int type) {
        if (type >= 0 && type < recordsByType.length) {
            recordsByType[type]++;
        } else {
            otherTypes.merge(type, 1L, Long::sum);
        }
    }

    /** Acts on one record at read time; returns the number of bytes that follow it outside its size. */
    private long record(ByteBuffer b, int p, int type, int size, long at) throws PerfDataException, IOException {
        // Kept small, so that the read loop and the sample path compile as one piece.
        if (type == SAMPLE && headerDelivered) {
            readSample(b, p, size, at);
            return 0;
        }
        if (type < USER_TYPE_START && type >= 0) {
            kernelRecord(b, p, type, size, at);
            return 0;
        }
        return userRecord(b, p, type, size, at);
    }

    /** A record of the kernel's kinds (perf_event_type). */
    private void kernelRecord(ByteBuffer b, int p, int type, int size, long at) throws PerfDataException {
        if (!headerDelivered) {
            deliverHeader();
        }
        if (type == SAMPLE) {
            readSample(b, p, size, at);
        } else if (type == MMAP || type == MMAP2 || type == COMM || type == FORK || type == EXIT) {
            EventAttr a = attrOfTrailer(b, p, size);
            long t = a == null ? -1 : trailerTime(a, b, p, size);
            if (t < 0) {
                Object parsed = parse(b, p, at);
                if (parsed != null) {
                    batch().event(parsedKind, parsed);
                }
            } else {
                RawBatch rb = batch();
                int i = rb.add();
                rb.kind[i] = RawBatch.RECORD;
                rb.columns.attr[i] = null;
                rb.columns.chainLength[i] = 0;
                rb.columns.time[i] = t;
                rb.columns.fileOffset[i] = at;
                rb.recordOffset[i] = rb.stable != null ? p : rb.keep(b, p, size);
                rb.inRound(i);
                if (roundTooLarge(rb)) {
                    splitRound();
                }
            }
        } else if (type == LOST) {
            if (size < 24) {
                invalidRecord(at, "LOST", size, 24);
            } else {
                lost(b.getLong(p + 16), "LOST", at);
            }
        } else if (type == LOST_SAMPLES) {
            if (size < 16) {
                invalidRecord(at, "LOST_SAMPLES", size, 16);
            } else {
                lost(b.getLong(p + 8), "LOST_SAMPLES", at);
            }
        } else {
            skip(type);
        }
    }

    /** A record of perf's own kinds (type 64 and up), or of a type no one defines. */
    private long userRecord(ByteBuffer b, int p, int type, int size, long at) throws PerfDataException, IOException {
        if (partOf != null && type != FINISHED_ROUND) {
            throw new PerfDataException(file, at, "a " + PerfNames.record(type) + " record in a part read on its own");
        }
        switch (type) {
            case FINISHED_ROUND -> {
                roundFinished();
            }
            case HEADER_ATTR -> headerAttr(b, p, size, at);
            case HEADER_FEATURE -> headerFeature(b, p, size, at);
            case HEADER_BUILD_ID -> {
                try {
                    features.buildIdRecord(Bytes.slice(b, p, size), 0, Short.toUnsignedInt(b.getShort(p + 4)), size,
                            at);
                } catch (FeatureParser.Malformed e) {
                    note("record.HEADER_BUILD_ID", "a HEADER_BUILD_ID record at byte " + e.offset + " is malformed ("
                            + e.getMessage() + "); ignored");
                }
            }
            case EVENT_UPDATE -> eventUpdate(b, p, size);
            case HEADER_TRACING_DATA -> {
                skip(type);
                if (size < 12) {
                    throw new PerfDataException(file, at, "HEADER_TRACING_DATA record of " + size + " bytes; expected"
                            + " at least 12 (header and the u32 size of the data that follows it)");
                }
                long dataSize = Integer.toUnsignedLong(b.getInt(p + 8));
                return (dataSize + 7) & ~7L;
            }
            case AUXTRACE -> {
                skip(type);
                if (size < 16) {
                    throw new PerfDataException(file, at, "AUXTRACE record of " + size + " bytes; expected at least"
                            + " 16 (header and the u64 size of the trace data that follows it)");
                }
                long dataSize = b.getLong(p + 8);
                if (dataSize < 0 || dataSize > (1L << 40)) {
                    throw new PerfDataException(file, at + 8, "AUXTRACE record says " + Long.toUnsignedString(dataSize)
                            + " bytes of trace data follow it; the data is corrupt here");
                }
                return dataSize;
            }
            case COMPRESSED, COMPRESSED2 -> throw compressed(at);
            default -> skip(type);
        }
        return 0;
    }

    /** The most samples one LOST record may report: far above any real ring-buffer overflow. */
    static final long MAX_LOST = 1L << 40;

    /** Adds a LOST or LOST_SAMPLES count, unless it cannot be true (a corrupt record, counted invalid). */
    private void lost(long count, String name, long at) {
        if (count < 0 || count > MAX_LOST || lost + count > MAX_LOST) {
            invalidRecords++;
            note("record.invalid." + name, "a " + name + " record at byte " + at + " reports "
                    + Long.toUnsignedString(count) + " lost samples, more than a recording can hold; it is corrupt"
                    + " and counted as invalid");
            return;
        }
        lost += count;
    }

    private void skip(int type) {
        skipped.merge(PerfNames.record(type), 1L, Long::sum);
    }

    private void invalidRecord(long at, String name, int size, int need) {
        invalidRecords++;
        note("record.invalid." + name, "a " + name + " record at byte " + at + " is " + size + " bytes, too short for"
                + " its fields (at least " + need + "); skipped and counted as invalid");
    }

    private void deliverHeader() {
        if (!headerDelivered) {
            headerDelivered = true;
            batch().event(RawBatch.HEADER, info);
        }
    }

    /**
     * Read-time handling of a SAMPLE: find its event and decode it while its bytes are at hand,
     * then queue it by its time (or hand it on, when its event records no time).
     */
    private void readSample(ByteBuffer b, int p, int size, long at) throws PerfDataException {
        samplesRead++;
        EventAttr a = attrOfSample(b, p, size);
        if (a == null) {
            samplesDropped++;
            return;
        }
        if (a.unknownSampleBits != 0 || (a.unknownReadBits != 0 && a.has(S_READ))) {
            samplesDropped++;
            problem("samples.dropped.unknown-layout");
            return;
        }
        boolean timed = a.sampleTimeOffset >= 0;
        if (timed && RECORD_HEADER_SIZE + a.sampleTimeOffset + 8 > size) {
            samplesInvalid++;
            noteInvalidSample(at, size, "its TIME field");
            return;
        }
        RawBatch rb = batch();
        int i = rb.add();
        DecodedSamples d = rb.columns;
        if (!decodeSample(b, p, size, at, a, d, i)) {
            rb.removeLast();
            return;
        }
        rb.kind[i] = RawBatch.SAMPLE;
        if (rb.stable == null && d.chainLength[i] > 0) {
            // A stream's buffer moves on: the callchain is kept with the batch.
            d.chainAt[i] = rb.keep(b, d.chainAt[i], 8 * d.chainLength[i]);
        }
        if (timed) {
            rb.inRound(i);
            if (roundTooLarge(rb)) {
                splitRound();
            }
        } else {
            rb.now(i);
            if (rb.timedCount == 0 && rb.ordered >= BATCH_RECORDS) {
                handOver();
            }
        }
    }

    private EventAttr attrOfSample(ByteBuffer b, int p, int size) {
        EventAttr[] known = attrs;
        return known.length == 1 ? known[0] : attrOfSampleById(b, p, size);
    }

    /** The event of a sample when the recording has several (by its sample id), or none. */
    private EventAttr attrOfSampleById(ByteBuffer b, int p, int size) {
        if (attrs.length == 0) {
            problem("samples.dropped.no-event");
            note("samples.no-event", "samples came before any event (HEADER_ATTR) was described; they are counted as"
                    + " dropped");
            return null;
        }
        int idOff = RECORD_HEADER_SIZE + attrs[0].sampleIdOffset;
        if (idOff + 8 > size) {
            problem("samples.dropped.unknown-id");
            return null;
        }
        long id = b.getLong(p + idOff);
        int idx = attrById.get(id);
        if (idx == LongIntMap.ABSENT) {
            problem("samples.dropped.unknown-id");
            note("samples.unknown-id", "samples carry sample id " + id + ", which no event of the recording lists;"
                    + " they are counted as dropped (first at a record read as sample " + samplesRead + ")");
            return null;
        }
        return attrs[idx];
    }

    private EventAttr attrOfTrailer(ByteBuffer b, int p, int size) {
        if (attrs.length == 1) {
            return attrs[0];
        }
        if (attrs.length == 0 || attrs[0].trailerIdFromEnd < 0 || attrs[0].trailerIdFromEnd > size - 8) {
            return null;
        }
        int idx = attrById.get(b.getLong(p + size - attrs[0].trailerIdFromEnd));
        return idx == LongIntMap.ABSENT ? null : attrs[idx];
    }

    private long trailerTime(EventAttr a, ByteBuffer b, int p, int size) {
        if (!a.sampleIdAll || a.trailerTimeFromEnd < 0 || a.trailerSize > size - RECORD_HEADER_SIZE) {
            return -1;
        }
        long t = b.getLong(p + size - a.trailerTimeFromEnd);
        return t < 0 ? -1 : t;
    }

    // ---------------------------------------------------------------- pipe-mode header records

    private void headerAttr(ByteBuffer b, int p, int size, long at) throws PerfDataException {
        int room = size - RECORD_HEADER_SIZE;
        if (room < EventAttr.SIZE_VER0) {
            throw new PerfDataException(file, at, "HEADER_ATTR record of " + size + " bytes; expected at least 72"
                    + " (header and a 64-byte perf_event_attr)");
        }
        byte[] record = Bytes.slice(b, p, size);
        int attrSize = EventAttr.sizeOf(bytes, record, RECORD_HEADER_SIZE);
        if (attrSize < EventAttr.SIZE_VER0 || attrSize > room || (room - attrSize) % 8 != 0) {
            throw new PerfDataException(file, at + 12, "HEADER_ATTR record: the attr says it is " + attrSize
                    + " bytes, but the record holds " + room + "; expected the attr (64 bytes or more) followed by"
                    + " whole 8-byte ids");
        }
        long[] ids = new long[(room - attrSize) / 8];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = b.getLong(p + RECORD_HEADER_SIZE + attrSize + 8 * i);
        }
        addAttr(EventAttr.parse(bytes, record, RECORD_HEADER_SIZE, attrs.length, ids), at);
    }

    private void headerFeature(ByteBuffer b, int p, int size, long at) throws PerfDataException {
        if (size < 16) {
            invalidRecord(at, "HEADER_FEATURE", size, 16);
            return;
        }
        long id = b.getLong(p + 8);
        if (id == F_COMPRESSED) {
            throw compressed(at);
        }
        if (id <= 0 || id >= FEATURE_BITS) {
            return; // 32 ends the feature list in perf 6.1 (HEADER_LAST_FEATURE); nothing to read
        }
        int bit = (int) id;
        if (!wanted(bit)) {
            info.otherFeatures.add(PerfNames.feature(bit));
            return;
        }
        try {
            features.parse(bit, Bytes.slice(b, p, size), 16, size, at + 16);
        } catch (FeatureParser.Malformed e) {
            note("feature." + PerfNames.feature(bit), "feature " + PerfNames.feature(bit) + " at byte " + e.offset
                    + " is malformed (" + e.getMessage() + "); ignored");
        }
    }

    /** EVENT_UPDATE: u64 type, u64 id, then for type NAME the event's name. */
    private void eventUpdate(ByteBuffer b, int p, int size) {
        if (size < 24 || b.getLong(p + 8) != EVENT_UPDATE_NAME) {
            return;
        }
        long id = b.getLong(p + 16);
        String name = Bytes.paddedString(b, p + 24, p + size);
        if (!name.isEmpty()) {
            features.nameId(id, name);
        }
    }

    // ---------------------------------------------------------------- decoding in time order

    /** Decodes a record (from the read buffer or a round's copy) and hands it on. */
    /** The kind of the record {@link #parse} parsed last. */
    private byte parsedKind;

    /** Parses a side-band record into its object (and {@link #parsedKind}), or null when it is malformed or skipped. */
    private Object parse(ByteBuffer b, int p, long at) {
        int type = b.getInt(p);
        int misc = Short.toUnsignedInt(b.getShort(p + 4));
        int size = Short.toUnsignedInt(b.getShort(p + 6));
        switch (type) {
            case MMAP, MMAP2 -> {
                parsedKind = RawBatch.MMAP;
                return mmap(b, p, type, misc, size, at);
            }
            case COMM -> {
                parsedKind = RawBatch.COMM;
                return comm(b, p, misc, size, at);
            }
            case FORK, EXIT -> {
                parsedKind = type == FORK ? RawBatch.FORK : RawBatch.EXIT;
                return task(b, p, type, size, at);
            }
            default -> {
                skip(type);
                return null;
            }
        }
    }

    /**
     * Decodes a SAMPLE of event {@code a} into entry {@code i} of {@code d} (its callchain's offset
     * in {@code b}); false when its size lies (counted invalid).
     */
    private boolean decodeSample(ByteBuffer b, int p, int size, long at, EventAttr a, DecodedSamples d, int i) {
        int end = p + size;
        int q = p + RECORD_HEADER_SIZE;
        long type = a.sampleType;
        d.attr[i] = a;
        d.cpumode[i] = (byte) (b.getShort(p + 4) & CPUMODE_MASK);
        d.fileOffset[i] = at;
        // The fixed-size fields, IDENTIFIER to PERIOD, at the offsets worked out once per event.
        int fixed = a.sampleFixedSize;
        if (q + fixed > end) {
            return invalidSample(at, size, "its fixed fields", fixed);
        }
        decodeFixed(b, q, a, d, i);
        q += fixed;
        if ((type & S_READ) != 0) {
            int readSize = readSize(b, q, end, at, size, a);
            if (readSize < 0) {
                return false;
            }
            q += readSize;
        }
        if ((type & S_CALLCHAIN) != 0) {
            if (q + 8 > end) {
                return invalidSample(at, size, "its callchain length", -1);
            }
            long nr = b.getLong(q);
            q += 8;
            if (nr < 0 || nr > (end - q) / 8) {
                return invalidChain(at, size, nr, (end - q) / 8);
            }
            d.chainAt[i] = q;
            d.chainLength[i] = (int) nr;
        } else {
            d.chainAt[i] = q;
            d.chainLength[i] = 0;
        }
        return true;
    }

    /** A sample's fixed-size fields, IDENTIFIER to PERIOD, from {@code q}, into entry {@code i} of {@code d}. */
    private static void decodeFixed(ByteBuffer b, int q, EventAttr a, DecodedSamples d, int i) {
        d.ip[i] = a.sampleIpOffset >= 0 ? b.getLong(q + a.sampleIpOffset) : 0;
        if (a.sampleTidOffset >= 0) {
            d.pid[i] = b.getInt(q + a.sampleTidOffset);
            d.tid[i] = b.getInt(q + a.sampleTidOffset + 4);
        } else {
            d.pid[i] = -1;
            d.tid[i] = -1;
        }
        d.time[i] = a.sampleTimeOffset >= 0 ? b.getLong(q + a.sampleTimeOffset) : 0;
        d.cpu[i] = a.sampleCpuOffset >= 0 ? b.getInt(q + a.sampleCpuOffset) : 0;
        d.period[i] = a.samplePeriodOffset >= 0 ? b.getLong(q + a.samplePeriodOffset) : a.fixedPeriod();
    }

    /** The size of a sample's READ values at {@code q}, or -1 when its size lies (counted invalid). */
    private int readSize(ByteBuffer b, int q, int end, long at, int size, EventAttr a) {
        int readSize = a.fixedReadSize();
        if (readSize < 0) {
            if (q + 8 > end) {
                invalidSample(at, size, "the member count of its group READ");
                return -1;
            }
            long nr = b.getLong(q);
            long room = end - q - a.groupHeaderSize();
            if (nr < 0 || room < 0 || nr > room / a.groupMemberSize()) {
                invalidSample(at, size, "its group READ of " + Long.toUnsignedString(nr) + " members");
                return -1;
            }
            readSize = a.groupHeaderSize() + (int) nr * a.groupMemberSize();
        }
        if (q + readSize > end) {
            invalidSample(at, size, "its READ values (" + readSize + " bytes)");
            return -1;
        }
        return readSize;
    }

    /** Counts an invalid sample too short for {@code what} (of {@code bytes} bytes, when not negative); false. */
    private boolean invalidSample(long at, int size, String what, int bytes) {
        invalidSample(at, size, bytes < 0 ? what : what + " (" + bytes + " bytes)");
        return false;
    }

    private boolean invalidChain(long at, int size, long nr, int room) {
        invalidSample(at, size, "a callchain of " + Long.toUnsignedString(nr) + " entries (the record has room for "
                + room + ")");
        return false;
    }

    private void invalidSample(long at, int size, String what) {
        samplesInvalid++;
        noteInvalidSample(at, size, what);
    }

    private void noteInvalidSample(long at, int size, String what) {
        note("samples.invalid", "a SAMPLE record at byte " + at + " of " + size + " bytes is too short for " + what
                + ": its size lies; such samples are counted as invalid");
    }

    private int trailerSizeOf(ByteBuffer b, int p, int size) {
        EventAttr a = attrOfTrailer(b, p, size);
        if (a != null) {
            return a.trailerSize;
        }
        return attrs.length > 0 ? attrs[0].trailerSize : 0;
    }

    private RawBatch.Mmap mmap(ByteBuffer b, int p, int type, int misc, int size, long at) {
        boolean two = type == MMAP2;
        int nameAt = two ? 72 : 40;
        int end = size - trailerSizeOf(b, p, size);
        String name = two ? "MMAP2" : "MMAP";
        if (end < nameAt + 1) {
            invalidRecord(at, name, size, nameAt + 1);
            return null;
        }
        String filename = names.cString(b, p + nameAt, p + end);
        if (filename == null) {
            invalidRecords++;
            note("record.invalid." + name, "a " + name + " record at byte " + at + " has no NUL-terminated file name"
                    + " within its " + size + " bytes; skipped and counted as invalid");
            return null;
        }
        String buildId = null;
        if (two && (misc & MISC_MMAP_BUILD_ID) != 0) {
            int len = b.get(p + 40) & 0xFF;
            if (len > 0 && len <= 20) {
                buildId = Bytes.hex(b, p + 44, len);
            }
        }
        return new RawBatch.Mmap(misc & CPUMODE_MASK, b.getInt(p + 8), b.getLong(p + 16), b.getLong(p + 24),
                b.getLong(p + 32), filename, (misc & MISC_MMAP_DATA) != 0, buildId);
    }

    private RawBatch.Comm comm(ByteBuffer b, int p, int misc, int size, long at) {
        int end = size - trailerSizeOf(b, p, size);
        if (end < 17) {
            invalidRecord(at, "COMM", size, 17);
            return null;
        }
        String comm = names.cString(b, p + 16, p + end);
        if (comm == null) {
            invalidRecords++;
            note("record.invalid.COMM", "a COMM record at byte " + at + " has no NUL-terminated name within its "
                    + size + " bytes; skipped and counted as invalid");
            return null;
        }
        return new RawBatch.Comm(b.getInt(p + 8), b.getInt(p + 12), comm);
    }

    private RawBatch.Task task(ByteBuffer b, int p, int type, int size, long at) {
        if (size < 32) {
            invalidRecord(at, PerfNames.record(type), size, 32);
            return null;
        }
        return new RawBatch.Task(b.getInt(p + 8), b.getInt(p + 12));
    }

    // ---------------------------------------------------------------- books and notes

    private void problem(String key) {
        problemCounts.merge(key, 1L, Long::sum);
    }

    private void note(String key, String text) {
        problem("notes." + key);
        if (!notes.containsKey(key) && notes.size() < MAX_NOTES) {
            notes.put(key, text);
        }
    }

    /** SAMPLE records read. */
    long samplesRead() {
        return samplesRead;
    }

    /** Samples not handed on because their event is unknown or cannot be laid out. */
    long samplesDropped() {
        return samplesDropped;
    }

    /** Samples not handed on because the record is malformed inside its size. */
    long samplesInvalid() {
        return samplesInvalid;
    }

    /** Samples the kernel reported lost (LOST and LOST_SAMPLES records). */
    long lost() {
        return lost;
    }

    /** Non-sample records skipped as malformed. */
    long invalidRecords() {
        return invalidRecords;
    }

    /** Records by type name, skipped records by type name, and the problems counted. */
    Map<String, Long> counters() {
        Map<String, Long> c = new TreeMap<>();
        for (int t = 0; t < recordsByType.length; t++) {
            if (recordsByType[t] > 0) {
                c.put("records." + PerfNames.record(t), recordsByType[t]);
            }
        }
        for (Map.Entry<Integer, Long> e : otherTypes.entrySet()) {
            c.put("records." + PerfNames.record(e.getKey()), e.getValue());
        }
        for (Map.Entry<String, Long> e : skipped.entrySet()) {
            c.put("records.skipped." + e.getKey(), e.getValue());
        }
        c.put("records.invalid", invalidRecords);
        c.put("samples.read", samplesRead);
        c.put("samples.dropped", samplesDropped);
        c.put("samples.invalid", samplesInvalid);
        c.put("samples.lost", lost);
        for (Map.Entry<String, Long> e : problemCounts.entrySet()) {
            if (!e.getKey().startsWith("notes.")) {
                c.put(e.getKey(), e.getValue());
            }
        }
        return c;
    }

    /** The problems met, one line each (a kind met more than once says how often). */
    List<String> notes() {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : notes.entrySet()) {
            long n = problemCounts.getOrDefault("notes." + e.getKey(), 1L);
            out.add(n > 1 ? e.getValue() + " [" + n + " times]" : e.getValue());
        }
        long unlisted = 0;
        for (Map.Entry<String, Long> e : problemCounts.entrySet()) {
            if (e.getKey().startsWith("notes.") && !notes.containsKey(e.getKey().substring(6))) {
                unlisted += e.getValue();
            }
        }
        if (unlisted > 0) {
            out.add(unlisted + " more problems of other kinds (see the counters)");
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public void close() {
        closeQuietly(stream);
        closeQuietly(channel);
    }

    private static void closeQuietly(Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // Closing a read-only file or a finished pipe loses nothing.
            }
        }
    }
}
