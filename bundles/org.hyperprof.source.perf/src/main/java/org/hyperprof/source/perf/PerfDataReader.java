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
 * SAMPLE, MMAP, MMAP2, COMM, FORK and EXIT records, decoded, in the order perf report's ordered
 * events hand them on: records with a time are queued, and at each FINISHED_ROUND those up to the
 * newest time of the round before go on in time order (times compared as the u64 they are); a
 * record without a time (or of time 0 or 2^64-1, which perf takes for none) goes on as it is read,
 * and a file whose events give no time to every record (no sample_id_all) is read in file order,
 * as perf report reads it. LOST and LOST_SAMPLES add to the lost count. Every other record type is
 * skipped and counted by its name. The records inside COMPRESSED records ({@code perf record -z})
 * are read as if they stood where their COMPRESSED record stands ({@link CompressedRecords}).
 *
 * <h2>Bad input</h2>
 * Every size and offset is checked against what holds it. A file too short for what its header
 * says, a record whose size is less than its header or runs past the end of the data, a section
 * outside the file, a header perf refuses (attrs inside the file header, an attr whose size
 * disagrees with the header's attr size), compressed data that cannot be decoded, or a layout this
 * reader cannot follow (an old format, events that do not agree where their sample id is) stops the
 * read with a {@link PerfDataException} naming the file, the byte offset, what was expected and
 * what to do. A single record that is malformed inside its own (valid) size is counted as invalid
 * and the read goes on; a sample of an event the attrs do not name, or of an event whose
 * sample_type has bits this reader does not know, is counted as dropped. So: samples read = handed
 * on + dropped + invalid, always. Every record skipped or doubted is in the {@link #notes}, by
 * kind: a type perf 6.1 does not define (after a record whose size lies, every record is misread),
 * an ID_INDEX or EVENT_UPDATE perf refuses, a pipe's feature record perf stops at
 * ({@link PipeFeatureCheck}), a record older than what perf's ordering handed on already; and an
 * empty data section or a stream that ends after its header is said to be so.
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
    private final PipeFeatureCheck pipeFeatures;
    private final FileChannel channel;
    private final InputStream stream;
    private final PerfInput input;
    /** The batch being filled, or null. */
    private RecordBatch batch;
    /** MMAP file names and COMM names, each met again given back as the String made the first time. */
    private final RecordStrings names = new RecordStrings();
    /** Walks the fields after a sample's callchain, for the events that have any. */
    private final SampleTail tail = new SampleTail();
    /** Whether {@link #sampleRun} may take runs of samples (turned off to check it against the general path). */
    private boolean sampleRuns = true;
    private int roundLimitRecords = ROUND_LIMIT_RECORDS;
    private int roundLimitBytes = ROUND_LIMIT_BYTES;
    private LongIntMap attrById = new LongIntMap(64);
    /**
     * Records are handed on in the order read: a file whose events do not give every record its
     * time (no sample_id_all), which perf report then reads unordered.
     */
    private boolean unordered;
    /** The events, {@code attrs[0..attrCount)}. */
    private EventAttr[] attrs = new EventAttr[0];
    private int attrCount;
    private PerfEvents events;
    private boolean headerDelivered;
    /**
     * The file's header lists the COMPRESSED feature (perf record -z): its records are read
     * through a buffer (decompressed), so none is read in place in the mapping.
     */
    private boolean compressed;
    /** The records of the COMPRESSED records read so far, or null before the first. */
    private CompressedRecords decompressed;
    /** Where the COMPRESSED record whose records are being read starts, or -1. */
    private long compressedAt = -1;

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
    /** Samples handed on with a user stack dump (perf record --call-graph dwarf), which this reader does not unwind. */
    private long userStacks;
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
        this.pipeFeatures = new PipeFeatureCheck(bytes);
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
        return open(path, ImportOptions.DEFAULT_MAX_HEADER_BYTES);
    }

    /**
     * {@link #open(Path)}, holding at most {@code maxHeaderBytes} of the recording's header (attrs,
     * ids, the features read; a stream's header records) in memory: past it the open or the read
     * stops with a {@link PerfDataException} that says how to raise it.
     */
    public static PerfDataReader open(Path path, long maxHeaderBytes) throws PerfDataException {
        String name = path.toString();
        String problem = InputFiles.problem(path);
        if (problem != null) {
            throw new PerfDataException(name, -1, problem.equals("does not exist")
                    ? "no such file; give the path of a perf.data file (perf record -o)" : problem);
        }
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
            return openChannel(name, ch, maxHeaderBytes);
        } catch (PerfDataException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        } catch (IOException e) {
            closeQuietly(ch);
            throw new PerfDataException(name, -1, "cannot be read: " + e);
        }
    }

    private static PerfDataReader openChannel(String name, FileChannel ch, long maxHeaderBytes)
            throws IOException, PerfDataException {
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
            PerfDataReader r = new PerfDataReader(name, bytes, info, ch, in, PerfInput.ofStream(in, order(bytes),
                    PIPE_HEADER_SIZE));
            r.maxHeaderBytes = maxHeaderBytes;
            return r;
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
        if (attrsOffset < FILE_HEADER_SIZE) {
            throw new PerfDataException(name, 24, "the attrs section starts at byte " + attrsOffset + ", inside the "
                    + FILE_HEADER_SIZE + "-byte file header; expected it after the header: the header is corrupt"
                    + " (perf report refuses the file too: incompatible file format); re-record, or copy the file"
                    + " again if it was damaged in transfer");
        }
        long[] bits = new long[4];
        boolean anyFeature = false;
        for (int i = 0; i < 4; i++) {
            bits[i] = bytes.u64(h, 72 + 8 * i);
            anyFeature |= bits[i] != 0;
        }
        // perf record writes the feature bits with the first header already: they hold in an unfinished file too.
        boolean compressedFeature = (bits[F_COMPRESSED >>> 6] & (1L << (F_COMPRESSED & 63))) != 0;
        boolean noRecords = false;
        if (dataSize == 0 && dataOffset >= FILE_HEADER_SIZE && fileSize > dataOffset
                && !featureTableAt(ch, bytes, dataOffset, bits, fileSize)) {
            // perf record did not end properly and never wrote the final header, which holds the data's size.
            dataSize = fileSize - dataOffset;
            openNotes.add("the header's data size is 0: perf record did not end properly (it was killed, or its disk"
                    + " filled) and never wrote its final header, so perf report refuses this file; the records are"
                    + " read from byte " + dataOffset + " to the end of the file" + (anyFeature ? ", and the"
                    + " features the header lists (build-ids, host name), whose table lies after the data, are not"
                    + " read" : ""));
            if (anyFeature) {
                java.util.Arrays.fill(bits, 0);
            }
        } else {
            checkDataSection(name, dataOffset, dataSize, fileSize);
            if (dataSize == 0) {
                noRecords = true;
                openNotes.add("the header's data size is 0: the recording holds no record (perf record was stopped"
                        + " before it wrote any, or did not end properly), and perf report refuses it");
            }
        }
        info.dataOffset = dataOffset;
        info.dataSize = dataSize;
        PerfDataReader r = new PerfDataReader(name, bytes, info, ch, null,
                PerfInput.ofFile(ch, order(bytes), dataOffset, dataOffset + dataSize));
        r.maxHeaderBytes = maxHeaderBytes;
        for (String n : openNotes) {
            r.note("header.data-size", n);
        }
        r.compressed = compressedFeature;
        r.readAttrs(attrSize, attrsOffset, attrsSize, fileSize);
        // perf report orders a file's records by time only when they carry it (sample_id_all).
        r.unordered = !r.attrs[0].sampleIdAll;
        r.readFeatures(bits, dataOffset + dataSize, fileSize);
        if (noRecords && fileSize <= dataOffset) {
            throw new PerfDataException(name, 48, "the header's data size is 0 and the file ends where the data would"
                    + " start (byte " + dataOffset + "): the recording holds no record; perf record was stopped before"
                    + " it wrote any, or did not end properly (perf report refuses it too); record again and let perf"
                    + " record end by itself or with Ctrl-C");
        }
        return r;
    }

    /**
     * Whether the feature table a finished recording has lies at {@code offset}: an entry for each
     * feature bit, each section after the table and inside the file. A recording whose header's
     * data size is 0 either holds no record (then its table follows at once) or was never finished
     * (then records follow, which do not read as such a table).
     */
    private static boolean featureTableAt(FileChannel ch, Bytes bytes, long offset, long[] bits, long fileSize)
            throws IOException {
        int count = 0;
        for (long w : bits) {
            count += Long.bitCount(w);
        }
        long tableEnd = offset + 16L * count;
        if (count == 0 || tableEnd > fileSize) {
            return false;
        }
        byte[] table = readAt(ch, offset, 16 * count);
        for (int k = 0; k < count; k++) {
            long at = bytes.u64(table, 16 * k);
            long size = bytes.u64(table, 16 * k + 8);
            if (at < tableEnd || size < 0 || at > fileSize || size > fileSize - at) {
                return false;
            }
        }
        return true;
    }

    /**
     * Opens a pipe-mode recording from a stream (the output of {@code perf record -o -}); reads
     * only its 16-byte header now, everything else as {@link #read} goes.
     */
    public static PerfDataReader open(InputStream in, String name) throws PerfDataException {
        return open(in, name, ImportOptions.DEFAULT_MAX_HEADER_BYTES);
    }

    /** {@link #open(InputStream, String)} with a bound on the header held in memory (see {@link #open(Path, long)}). */
    public static PerfDataReader open(InputStream in, String name, long maxHeaderBytes) throws PerfDataException {
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
        PerfDataReader r = new PerfDataReader(name, bytes, info, null, in, PerfInput.ofStream(in, order(bytes),
                PIPE_HEADER_SIZE));
        r.maxHeaderBytes = maxHeaderBytes;
        return r;
    }

    /** The most bytes of the recording's header this reader holds in memory ({@link #open(Path, long)}). */
    private long maxHeaderBytes = ImportOptions.DEFAULT_MAX_HEADER_BYTES;
    /** The header bytes held so far. */
    private long headerBytes;

    /** Whether {@code n} more header bytes fit the bound. */
    private boolean headerFits(long n) {
        return n >= 0 && n <= maxHeaderBytes - headerBytes;
    }

    /**
     * Takes {@code n} more header bytes ({@code what}, at byte {@code at}) into memory, or stops
     * with an error past the bound: a recording's header is kilobytes to a few megabytes.
     */
    private void holdHeader(long n, long at, String what) throws PerfDataException {
        if (!headerFits(n)) {
            throw new PerfDataException(file, at, what + " would take the recording's header held in memory to "
                    + (headerBytes + n) + " bytes, past the " + maxHeaderBytes + " an import allows (a header is"
                    + " kilobytes to a few megabytes): the recording is corrupt here, or, if it is genuine, raise"
                    + " the bound (hp:import --max-header-mb N)");
        }
        headerBytes += n;
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
        readAttrEntries(attrSize, attrsOffset, attrsSize, fileSize);
        EventAttr first = attrs[0];
        if (first.has(S_READ) && (first.readFormat & R_ID) == 0) {
            throw new PerfDataException(file, attrsOffset + 24, "event 0 " + first.describe() + " samples its"
                    + " counter values (READ) without their ids (read_format lacks ID): the attrs section is corrupt"
                    + " (perf report refuses it: non matching read_format); re-record, or copy the file again");
        }
    }

    private void readAttrEntries(long attrSize, long attrsOffset, long attrsSize, long fileSize)
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
        holdHeader(attrsSize, 32, "the attrs section of " + attrsSize + " bytes");
        int n = (int) (attrsSize / attrSize);
        byte[] all = readAt(channel, attrsOffset, (int) attrsSize);
        for (int i = 0; i < n; i++) {
            int off = (int) (i * attrSize);
            long at = attrsOffset + off;
            int ownSize = EventAttr.sizeOf(bytes, all, off);
            if (ownSize != attrSize - 16) {
                // perf reads each attr by its own size and the ids pointer right after it.
                throw new PerfDataException(file, at + 4, "attr " + i + " says it is " + ownSize + " bytes, but the"
                        + " header's attr entries are " + attrSize + " bytes, which leaves " + (attrSize - 16)
                        + " for the attr before its 16-byte ids pointer; expected the two to agree, as perf record"
                        + " writes them: the attrs section is corrupt (perf report reads it wrongly or refuses it);"
                        + " re-record, or copy the file again");
            }
            int idsAt = off + (int) attrSize - 16;
            long idsOffset = bytes.u64(all, idsAt);
            long idsSize = bytes.u64(all, idsAt + 8);
            section(file, attrsOffset + idsAt, "ids of attr " + i, idsOffset, idsSize, fileSize);
            if (idsSize % 8 != 0) {
                throw new PerfDataException(file, attrsOffset + idsAt + 8, "the ids of attr " + i + " take "
                        + idsSize + " bytes; expected a whole number of 8-byte ids");
            }
            holdHeader(idsSize, attrsOffset + idsAt + 8, "the " + idsSize + " bytes of ids of attr " + i);
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
            if (offset < 0 || size < 0 || offset > fileSize || size > fileSize - offset) {
                note("feature." + name, "feature " + name + ": its section {offset " + offset + ", size " + size
                        + "} (table entry at byte " + at + ") lies outside the " + fileSize + "-byte file; ignored");
                continue;
            }
            if (!wanted(bit)) {
                info.otherFeatures.add(name);
                continue;
            }
            if (!headerFits(size)) {
                note("feature." + name, "feature " + name + " (table entry at byte " + at + ") is " + size + " bytes,"
                        + " more than the header an import holds in memory allows (" + (maxHeaderBytes - headerBytes)
                        + " bytes left of " + maxHeaderBytes + "); not read (hp:import --max-header-mb N raises the"
                        + " bound)");
                continue;
            }
            headerBytes += size;
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
        return bit == F_BUILD_ID || (bit >= F_HOSTNAME && bit <= F_EVENT_DESC) || bit == F_SAMPLE_TIME
                || bit == F_COMPRESSED;
    }

    // ---------------------------------------------------------------- compressed records

    /**
     * A COMPRESSED record (perf record -z): its piece of the zstd stream is decompressed, and the
     * whole records it completes are read at once, before the record after it, as perf does. They
     * carry the COMPRESSED record's offset (perf's too): every error about them names it.
     */
    private void compressedRecord(ByteBuffer b, int p, int type, int size, long at)
            throws PerfDataException, IOException {
        String name = PerfNames.record(type);
        if (compressedAt >= 0) {
            throw new PerfDataException(file, compressedAt, "the records decompressed from the COMPRESSED record at"
                    + " byte " + compressedAt + " hold a " + name + " record; perf record never nests them: the"
                    + " compressed data is corrupt here (perf report stops here too); re-record");
        }
        if ((input.stable() && !compressed) || info.compressedMmapLen <= 0) {
            throw new PerfDataException(file, at, "a " + name + " record, but the recording's header does not give"
                    + " the COMPRESSED feature (or its mmap_len) that perf record -z writes with such records: perf"
                    + " report cannot decompress it either, as it takes its buffer's size from that feature; the"
                    + " header is corrupt: re-record, or copy the file again");
        }
        int from = p + RECORD_HEADER_SIZE;
        int length = size - RECORD_HEADER_SIZE;
        if (type == COMPRESSED2) {
            // COMPRESSED2: a u64 data size after the header, the data then padded to 8 bytes.
            long dataSize = size < 16 ? -1 : b.getLong(p + 8);
            if (dataSize < 0 || dataSize > size - 16) {
                throw new PerfDataException(file, at, "a " + name + " record of " + size + " bytes whose data size"
                        + " is " + (size < 16 ? "missing" : Long.toUnsignedString(dataSize)) + "; expected at most"
                        + " the " + Math.max(0, size - 16) + " bytes after its 16-byte header: the record is corrupt");
            }
            from = p + 16;
            length = (int) dataSize;
        }
        if (decompressed == null) {
            decompressed = new CompressedRecords(byteOrder());
        }
        try {
            decompressed.add(b, from, length, info.compressedMmapLen);
        } catch (CompressedRecords.Corrupt e) {
            throw new PerfDataException(file, at, "the " + name + " record of " + size + " bytes: " + e.getMessage()
                    + "; the compressed data is corrupt from here on (perf report stops here too: it cannot"
                    + " decompress it); " + samplesRead + " samples were read before it; re-record, or copy the"
                    + " file again if it was damaged in transfer");
        }
        compressedAt = at;
        try {
            readDecompressed(at);
        } finally {
            compressedAt = -1;
        }
    }

    /** Reads the whole records decompressed so far; one cut at the end waits for the next COMPRESSED record. */
    private void readDecompressed(long at) throws PerfDataException, IOException {
        CompressedRecords d = decompressed;
        ByteBuffer v = d.view();
        while (d.size - d.head >= RECORD_HEADER_SIZE) {
            int q = d.head;
            int type = v.getInt(q);
            int size = Short.toUnsignedInt(v.getShort(q + 6));
            if (size < RECORD_HEADER_SIZE) {
                throw new PerfDataException(file, at, "a record of type " + (type & 0xFFFFFFFFL) + " ("
                        + PerfNames.record(type) + ") decompressed from the COMPRESSED record at byte " + at
                        + " says it is " + size + " bytes, less than its own 8-byte header: the compressed data is"
                        + " corrupt here, so the records after it cannot be found; re-record");
            }
            if (size > d.size - q) {
                return;
            }
            count(type);
            long extra = record(v, q, type, size, at);
            if (extra > d.size - q - size) {
                throw new PerfDataException(file, at, "the " + PerfNames.record(type) + " record decompressed from"
                        + " the COMPRESSED record at byte " + at + " is followed by " + extra + " bytes of its data,"
                        + " more than that record decompressed to; perf record writes such data uncompressed: the"
                        + " compressed data is corrupt here; re-record");
            }
            d.head = q + size + (int) extra;
        }
    }

    /** At the end of the data: compressed records that end inside a record are noted (perf drops its bytes too). */
    private void endOfCompressedRecords() {
        CompressedRecords d = decompressed;
        if (d != null && (d.left() > 0 || d.pendingInput() > 0)) {
            note("compressed.cut", "the compressed records end inside a record: " + d.left() + " decompressed bytes"
                    + (d.pendingInput() > 0 ? " and " + d.pendingInput() + " bytes of a zstd block not yet whole" : "")
                    + " after the last whole record were not read (perf report drops them too); perf record was"
                    + " stopped before it wrote the rest, or the file was cut");
        }
    }

    /** Adds an event; every event must place its sample id where the others do (perf requires it too). */
    private void addAttr(EventAttr a, long at) throws PerfDataException {
        if (attrCount > 0) {
            EventAttr first = attrs[0];
            if (a.sampleIdOffset != first.sampleIdOffset || a.trailerIdFromEnd != first.trailerIdFromEnd
                    || a.sampleIdAll != first.sampleIdAll) {
                throw new PerfDataException(file, at, "event " + attrCount + " " + a.describe()
                        + " places its sample id differently from event 0 " + first.describe()
                        + "; perf writes recordings whose events agree on it (sample_type with IDENTIFIER, or the"
                        + " same ID position), so the records cannot be told apart");
            }
            if (a.sampleIdOffset < 0) {
                throw new PerfDataException(file, at, "the recording has " + (attrCount + 1) + " events but"
                        + " their sample_type has neither ID nor IDENTIFIER: a sample cannot be matched to its event");
            }
        }
        for (long id : a.ids) {
            int prev = attrById.get(id);
            if (prev != LongIntMap.ABSENT && prev != attrCount) {
                note("attr.duplicate-id", "sample id " + id + " is listed by events " + prev + " and " + attrCount
                        + "; samples with it are counted for event " + prev);
                continue;
            }
            attrById.put(id, attrCount);
        }
        if (a.unknownSampleBits != 0) {
            note("attr.unknown-sample-type." + attrCount, "event " + attrCount + " " + a.describe()
                    + " has sample_type bits 0x" + Long.toHexString(a.unknownSampleBits) + " this reader does not"
                    + " know, so its samples cannot be laid out: they are counted as dropped");
        } else if (a.unknownReadBits != 0 && a.has(S_READ)) {
            note("attr.unknown-read-format." + attrCount, "event " + attrCount + " " + a.describe()
                    + " has read_format bits 0x" + Long.toHexString(a.unknownReadBits) + " this reader does not"
                    + " know, so its samples cannot be laid out: they are counted as dropped");
        }
        if (attrCount == attrs.length) {
            // Doubling: a stream may describe its events one HEADER_ATTR at a time, thousands of them.
            attrs = java.util.Arrays.copyOf(attrs, Math.max(4, 2 * attrCount));
        }
        attrs[attrCount++] = a;
        info.attrs.add(a);
    }

    // ---------------------------------------------------------------- reading

    /**
     * The mapped data section that decoded records point into for the whole read (callchains may be
     * read there in place, from any thread), or null when records are read through a buffer.
     */
    java.nio.ByteBuffer stableData() {
        return inPlace() ? input.view : null;
    }

    /** Whether records are read where they lie in the mapping (not through a buffer: a stream, or compressed records). */
    private boolean inPlace() {
        return input.stable() && !compressed;
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
        boolean inPlace = inPlace();
        try {
            while (true) {
                if (sampleRuns && inPlace) {
                    long stopPos = stopAt - in.offset(0);
                    in.pos = sampleRun(in.view, in.pos, stopPos < in.limit ? (int) stopPos : in.limit);
                }
                if (in.offset() >= stopAt && pauses(in.offset())) {
                    // The queue stays: a reading in sequence hands it on at the rounds to come.
                    handOverKeepingQueue();
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
                if (type == FINISHED_ROUND) {
                    roundEndAt = at + size;
                }
                long extra = record(b, p, type, size, at);
                in.pos = p + size;
                if (extra > 0 && !in.skip(extra)) {
                    throw truncated(in.offset(), "the " + extra + " bytes of data that follow the "
                            + PerfNames.record(type) + " record at byte " + at, 0);
                }
            }
            if (info.pipe && attrCount == 0) {
                throw new PerfDataException(file, in.offset(), in.offset() == PIPE_HEADER_SIZE
                        ? "the stream holds only its 16-byte header: perf record wrote nothing more (it could not"
                        + " start recording, or was stopped at once); see its error output, and record again"
                        : "the stream ends without describing any event (no HEADER_ATTR record): it is not a whole"
                        + " perf record stream; record again");
            }
            endOfCompressedRecords();
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
     * Where a later part of a mapped recording starts ({@code start}, just after a FINISHED_ROUND)
     * and where its reader starts reading ({@code readFrom}, after the FINISHED_ROUND two rounds
     * before): perf's ordering hands a round's records on at the rounds after it, so a part's
     * reader reads two rounds ahead of its part to find the queue and bounds a reading in sequence
     * has where the part starts ({@link #canAbsorb} checks that it found the same).
     */
    record PartStart(long readFrom, long start) {
    }

    /** Rounds a part's reader reads before its part starts (see {@link PartStart}). */
    static final int LEAD_IN_ROUNDS = 2;

    /**
     * Where a mapped recording may be cut into {@code parts} parts read at once: for each part
     * after the first, three FINISHED_ROUND records found in a row from its share of the data on.
     * Found by their bytes (type 68, misc 0, size 8, at an 8-byte step), so only a guess: such bytes
     * may lie inside a record. A reader that reaches the offset exactly after a FINISHED_ROUND
     * confirms it ({@link #read} pauses there); none for a stream, and fewer parts when three
     * rounds do not end in a share's first {@link #MAX_ROUND_SCAN} bytes.
     */
    PartStart[] partStarts(int parts) {
        if (!inPlace() || parts < 2) {
            return new PartStart[0];
        }
        ByteBuffer v = input.view;
        int size = input.limit;
        // The first part's reader also finds each sample's mapping and sets the import up: it reads less.
        double first = 0.9 / parts;
        double each = (1 - first) / (parts - 1);
        PartStart[] starts = new PartStart[parts - 1];
        int n = 0;
        int from = 0;
        for (int k = 1; k < parts; k++) {
            int share = (int) (size * (first + each * (k - 1))) & ~7;
            int p = Math.max(from, share);
            // perf ends a round at every pass over its buffers: far apart only in a file with none to find.
            int shareEnd = (int) Math.min(Math.min(size - RECORD_HEADER_SIZE, size * (first + each * k)),
                    (long) p + MAX_ROUND_SCAN);
            int[] found = new int[LEAD_IN_ROUNDS + 1];
            int got = 0;
            for (; p <= shareEnd && got < found.length; p += 8) {
                if (v.getInt(p) == FINISHED_ROUND && v.getShort(p + 4) == 0 && v.getShort(p + 6) == 8) {
                    found[got++] = p + 8;
                }
            }
            if (got < found.length || found[LEAD_IN_ROUNDS] >= size) {
                continue;
            }
            starts[n++] = new PartStart(input.offset(found[0]), input.offset(found[LEAD_IN_ROUNDS]));
            from = found[LEAD_IN_ROUNDS];
        }
        return java.util.Arrays.copyOf(starts, n);
    }

    /**
     * A reader of the part of this mapped recording from {@code at.start()} to {@code stop}, for
     * another thread, reading from {@code at.readFrom()}: the same events, its own books. It stops
     * with a {@link PerfDataException} at anything a part cannot read on its own: a record perf
     * writes for itself (they may change the events), or a problem worth a note.
     */
    PerfDataReader part(PartStart at, long stop) {
        PerfDataReader p = new PerfDataReader(file, bytes, info, null, null, input.part(at.readFrom()));
        p.attrs = attrs;
        p.attrCount = attrCount;
        p.attrById = attrById;
        p.headerDelivered = true;
        p.stopAt = stop;
        p.sampleRuns = sampleRuns;
        p.roundLimit(roundLimitRecords, roundLimitBytes);
        p.partOf = file;
        p.partStart = at.start();
        p.unordered = unordered;
        return p;
    }

    /** Where a part's own records start (its reader reads {@link #LEAD_IN_ROUNDS} rounds before), or -1. */
    private long partStart = -1;
    /** What a part's reader had read and queued when its part started, or null before. */
    private LeadIn leadIn;

    /** A part reader's books and ordering state where its part starts: after its lead-in rounds. */
    private static final class LeadIn {
        final long endAt;
        final long lastFlushB;
        final long nextFlushB;
        final long limitB;
        final long maxTimeB;
        final int queued;
        final long samplesRead;
        final long lost;
        final long userStacks;
        final long[] recordsByType;
        final Map<Integer, Long> otherTypes;
        final Map<String, Long> skipped;

        LeadIn(PerfDataReader r, int queued) {
            this.endAt = r.roundEndAt;
            this.lastFlushB = r.lastFlushB;
            this.nextFlushB = r.nextFlushB;
            this.limitB = r.limitB;
            this.maxTimeB = r.maxTimeB;
            this.queued = queued;
            this.samplesRead = r.samplesRead;
            this.lost = r.lost;
            this.userStacks = r.userStacks;
            this.recordsByType = r.recordsByType.clone();
            this.otherTypes = new TreeMap<>(r.otherTypes);
            this.skipped = new TreeMap<>(r.skipped);
        }
    }

    /** Records queued (read, not yet handed on: newer than perf's ordering hands on so far). */
    private int queued() {
        return batch == null ? 0 : batch.timedCount;
    }

    /**
     * Whether the books of {@code part}, read by its own reader, can join these as if this reader
     * had read it, this reader having paused where the part starts: the part's reader found the
     * part's start after its lead-in rounds with the same queue and ordering bounds as this reader
     * has (so its records are handed on in the order of a reading in sequence), it met no problem
     * (a problem's note names where it was met, which only a reading in sequence can tell), and the
     * lost counts add up within their bound.
     */
    boolean canAbsorb(PerfDataReader part) {
        LeadIn l = part.leadIn;
        boolean sameStart = l != null && l.endAt == part.partStart && l.queued == queued()
                && l.lastFlushB == lastFlushB && l.nextFlushB == nextFlushB && l.limitB == limitB
                && l.maxTimeB == maxTimeB;
        return sameStart && part.samplesDropped == 0 && part.samplesInvalid == 0 && part.invalidRecords == 0
                && part.problemCounts.isEmpty() && part.notes.isEmpty() && lost + part.lost - l.lost <= MAX_LOST;
    }

    /**
     * Takes a part read by its own reader as read (see {@link #canAbsorb}): its books past its
     * lead-in, its ordering state, and its queue. The part handed on this reader's queue, so that
     * is dropped; what the part left queued at its stop is queued here again, read from the mapping.
     */
    void absorb(PerfDataReader part) {
        LeadIn l = part.leadIn;
        samplesRead += part.samplesRead - l.samplesRead;
        lost += part.lost - l.lost;
        userStacks += part.userStacks - l.userStacks;
        for (int t = 0; t < recordsByType.length; t++) {
            recordsByType[t] += part.recordsByType[t] - l.recordsByType[t];
        }
        part.otherTypes.forEach((type, n) -> otherTypes.merge(type, n - l.otherTypes.getOrDefault(type, 0L),
                Long::sum));
        part.skipped.forEach((name, n) -> skipped.merge(name, n - l.skipped.getOrDefault(name, 0L), Long::sum));
        lastFlushB = part.lastFlushB;
        nextFlushB = part.nextFlushB;
        limitB = part.limitB;
        maxTimeB = part.maxTimeB;
        roundsEnded += part.roundsEnded - LEAD_IN_ROUNDS;
        roundEndAt = part.roundEndAt;
        RecordBatch b = batch();
        b.timedCount = 0;
        RecordBatch left = part.batch;
        if (left != null) {
            for (int k = 0; k < left.timedCount; k++) {
                requeue(left.columns.fileOffset[left.timed[k]]);
            }
        }
    }

    /** Queues the (timed) record at {@code offset} of the mapping again, as its reading queued it, outside the books. */
    private void requeue(long offset) {
        input.seek(offset);
        ByteBuffer b = input.view;
        int p = input.pos;
        int type = b.getInt(p);
        int size = Short.toUnsignedInt(b.getShort(p + 6));
        if (type == SAMPLE) {
            queueSample(b, p, size, offset, attrOfSample(b, p, size), true);
        } else {
            queueRecord(b, p, size, offset, trailerTime(attrOfTrailer(b, p, size), b, p, size));
        }
    }

    // ---------------------------------------------------------------- batches

    /** The batch being filled. */
    private RecordBatch batch() {
        RecordBatch b = batch;
        if (b == null) {
            b = newBatch();
            batch = b;
        }
        return b;
    }

    private RecordBatch newBatch() {
        RecordBatch b = events.take();
        return b != null ? b : new RecordBatch(BATCH_RECORDS, stableData(), byteOrder());
    }

    private void handOver() {
        RecordBatch b = batch;
        batch = null;
        events.handOver(b);
    }

    /** At the end of the read: the open round, sorted, and the batch handed on. */
    private void handOnAll() {
        RecordBatch b = batch;
        if (b != null) {
            endRound(b, b.timedCount);
            handOver();
        }
    }

    /**
     * A FINISHED_ROUND, as perf's ordered events take it: the queued records up to the newest time
     * of the round before join the order, in time order; newer ones stay queued (perf record ends a
     * round after each pass over the CPUs' buffers, so a record of the next round may be older than
     * one of this round, though never older than the round before). The batch goes on if it is
     * full enough, the queue moving to the next one.
     */
    private void roundFinished() {
        RecordBatch b = batch();
        b.sortRound();
        int n = flushable(b, nextFlushB);
        if (n > 0) {
            lastFlushB = b.columns.time[b.timed[n - 1]] ^ Long.MIN_VALUE;
        }
        limitB = nextFlushB;
        nextFlushB = maxTimeB;
        roundsEnded++;
        endRound(b, n);
        if (headerDelivered) {
            b.event(RecordBatch.ROUND, samplesRead);
        }
        if (partOf != null && roundsEnded == LEAD_IN_ROUNDS) {
            leadIn = new LeadIn(this, b.timedCount);
        }
        if (b.ordered >= events.batchRecords() || events.eachRound()) {
            handOverKeepingQueue();
        }
    }

    /** How many of the (sorted) queued records of {@code b} are at most {@code limitB}. */
    private static int flushable(RecordBatch b, long limitB) {
        int lo = 0;
        int hi = b.timedCount;
        long[] time = b.columns.time;
        int[] timed = b.timed;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if ((time[timed[mid]] ^ Long.MIN_VALUE) <= limitB) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Hands the batch on; its queued records move to the next batch. */
    private void handOverKeepingQueue() {
        RecordBatch b = batch;
        if (b != null && b.timedCount > 0) {
            RecordBatch next = newBatch();
            next.takeRound(b, 0);
            handOver();
            batch = next;
        } else if (b != null) {
            handOver();
        }
    }

    /**
     * Sorts the open round and appends its {@code n} oldest entries to the order, parsing its
     * side-band records; the rest stay in the round.
     */
    private void endRound(RecordBatch b, int n) {
        b.sortRound();
        ByteBuffer data = b.stable != null ? b.stable : b.arena;
        int[] timed = b.timed;
        for (int k = 0; k < n; k++) {
            int i = timed[k];
            if (b.kind[i] == RecordBatch.RECORD) {
                Object parsed = parse(data, b.recordOffset[i], b.columns.fileOffset[i]);
                if (parsed == null) {
                    continue;
                }
                b.kind[i] = parsedKind;
                b.event[i] = parsed;
            }
            b.now(i);
        }
        if (n < b.timedCount) {
            System.arraycopy(timed, n, timed, 0, b.timedCount - n);
        }
        b.timedCount -= n;
    }

    /**
     * A round grown past its memory bound: its older half goes on now, its newer half moves to the
     * next batch and stays open.
     */
    private void splitRound() {
        RecordBatch old = batch;
        old.sortRound();
        int half = old.timedCount / 2;
        RecordBatch next = newBatch();
        next.takeRound(old, half);
        endRound(old, half);
        handOver();
        batch = next;
    }

    private boolean roundTooLarge(RecordBatch b) {
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
        if (!headerDelivered || attrCount != 1) {
            return p;
        }
        EventAttr a = attrs[0];
        if (a.unknownSampleBits != 0 || a.has(S_READ) || a.afterCallchain != 0 || a.sampleTimeOffset < 0
                || unordered) {
            return p;
        }
        RecordBatch rb = batch();
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
        long flushedB = lastFlushB;
        long maxB = maxTimeB;
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
            long t = b.getLong(q + timeAt);
            long tb = t ^ Long.MIN_VALUE;
            if (t == 0 || t == -1 || tb < flushedB) {
                break; // untimed or out of order: the general path takes it
            }
            if (tb > maxB) {
                maxB = tb;
            }
            d.time[i] = t;
            d.cpu[i] = cpuAt >= 0 ? b.getInt(q + cpuAt) : 0;
            d.period[i] = periodAt >= 0 ? b.getLong(q + periodAt) : period;
            d.chainAt[i] = chainAt;
            d.chainLength[i] = (int) nr;
            rb.kind[i] = RecordBatch.SAMPLE;
            timed[inRound++] = i;
            i++;
            p += size;
        }
        int n = i - start;
        maxTimeB = maxB;
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
            if (t == -1) {
                Object parsed = parse(b, p, at);
                if (parsed != null) {
                    batch().event(parsedKind, parsed);
                }
            } else {
                timed(t, at);
                queueRecord(b, p, size, at, t);
                if (roundTooLarge(batch)) {
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
            skip(type, at);
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
            case HEADER_ATTR -> {
                holdHeader(size, at, "a HEADER_ATTR record of " + size + " bytes");
                headerAttr(b, p, size, at);
            }
            case HEADER_FEATURE -> {
                holdHeader(size, at, "a HEADER_FEATURE record of " + size + " bytes");
                headerFeature(b, p, size, at);
            }
            case HEADER_BUILD_ID -> {
                holdHeader(size, at, "a HEADER_BUILD_ID record of " + size + " bytes");
                try {
                    features.buildIdRecord(Bytes.slice(b, p, size), 0, Short.toUnsignedInt(b.getShort(p + 4)), size,
                            at);
                } catch (FeatureParser.Malformed e) {
                    note("record.HEADER_BUILD_ID", "a HEADER_BUILD_ID record at byte " + e.offset + " is malformed ("
                            + e.getMessage() + "); ignored");
                }
            }
            case EVENT_UPDATE -> {
                holdHeader(size, at, "an EVENT_UPDATE record of " + size + " bytes");
                eventUpdate(b, p, size, at);
            }
            case ID_INDEX -> idIndex(b, p, size, at);
            case HEADER_TRACING_DATA -> {
                skip(type, at);
                if (size < 12) {
                    throw new PerfDataException(file, at, "HEADER_TRACING_DATA record of " + size + " bytes; expected"
                            + " at least 12 (header and the u32 size of the data that follows it)");
                }
                long dataSize = Integer.toUnsignedLong(b.getInt(p + 8));
                return (dataSize + 7) & ~7L;
            }
            case AUXTRACE -> {
                skip(type, at);
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
            case COMPRESSED, COMPRESSED2 -> compressedRecord(b, p, type, size, at);
            default -> skip(type, at);
        }
        return 0;
    }

    /**
     * ID_INDEX: u64 nr, then nr entries {id, idx, cpu, tid}. perf report refuses a recording whose
     * index holds more entries than its record or an id no event lists; the reader needs none of it.
     */
    private void idIndex(ByteBuffer b, int p, int size, long at) {
        skip(ID_INDEX, at);
        if (size < 16) {
            invalidRecord(at, "ID_INDEX", size, 16);
            return;
        }
        long nr = b.getLong(p + 8);
        long room = (size - 16) / 32;
        String wrong = null;
        if (nr < 0 || nr > room) {
            wrong = "says it holds " + Long.toUnsignedString(nr) + " entries but has room for " + room;
        } else {
            for (int k = 0; k < nr && wrong == null; k++) {
                long id = b.getLong(p + 16 + 32 * k);
                if (attrById.get(id) == LongIntMap.ABSENT) {
                    wrong = "lists sample id " + id + ", which no event of the recording lists";
                }
            }
        }
        if (wrong != null) {
            invalidRecords++;
            note("record.invalid.ID_INDEX", "the ID_INDEX record at byte " + at + " " + wrong + ": it is corrupt;"
                    + " skipped and counted as invalid (perf report stops at such a record and reports nothing)");
        }
    }

    /** The most samples one LOST record may report: far above any real ring-buffer overflow. */
    static final long MAX_LOST = 1L << 40;

    /** Queues a side-band record of time {@code t} by its time, its bytes kept (parsed when handed on). */
    private void queueRecord(ByteBuffer b, int p, int size, long at, long t) {
        RecordBatch rb = batch();
        int i = rb.add();
        rb.kind[i] = RecordBatch.RECORD;
        rb.columns.attr[i] = null;
        rb.columns.chainLength[i] = 0;
        rb.columns.time[i] = t;
        rb.columns.fileOffset[i] = at;
        rb.recordOffset[i] = rb.stable != null ? p : rb.keep(b, p, size);
        rb.inRound(i);
    }

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

    /** A record the reader does not act on: counted by its type; noted when perf 6.1 does not know the type. */
    private void skip(int type, long at) {
        skipped.merge(PerfNames.record(type), 1L, Long::sum);
        if (!definedType(type)) {
            if (samplesBeforeUndefined < 0) {
                samplesBeforeUndefined = samplesRead;
            }
            note("record.undefined", "a record of type " + Integer.toUnsignedString(type) + " at byte " + at
                    + ", which perf 6.1 does not define, was skipped: the data is corrupt from there on (a record"
                    + " whose size lies makes the records after it misread) or a newer perf wrote it; perf report"
                    + " stops at such a record and reports nothing");
        }
    }

    /** SAMPLE records read before the first record of an undefined type, or -1. */
    private long samplesBeforeUndefined = -1;

    private void invalidRecord(long at, String name, int size, int need) {
        invalidRecords++;
        note("record.invalid." + name, "a " + name + " record at byte " + at + " is " + size + " bytes, too short for"
                + " its fields (at least " + need + "); skipped and counted as invalid");
    }

    private void deliverHeader() {
        if (!headerDelivered) {
            headerDelivered = true;
            batch().event(RecordBatch.HEADER, info);
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
        queueSample(b, p, size, at, a, false);
    }

    /**
     * Decodes a SAMPLE of event {@code a} into the batch: queued by its time, or handed on at once
     * when it has none (perf takes a time of 0 or 2^64-1 for none); a sample whose size lies is
     * counted invalid. {@code again}: a record queued before, queued again outside the books.
     */
    private void queueSample(ByteBuffer b, int p, int size, long at, EventAttr a, boolean again) {
        RecordBatch rb = batch();
        int i = rb.add();
        DecodedSamples d = rb.columns;
        if (!decodeSample(b, p, size, at, a, d, i)) {
            rb.removeLast();
            return;
        }
        rb.kind[i] = RecordBatch.SAMPLE;
        if (!again && a.has(S_STACK_USER) && tail.userStackUsed != 0) {
            userStacks++;
        }
        if (rb.stable == null && d.chainLength[i] > 0) {
            // A stream's buffer moves on: the callchain is kept with the batch.
            d.chainAt[i] = rb.keep(b, d.chainAt[i], 8 * d.chainLength[i]);
        }
        long t = d.time[i];
        if (a.sampleTimeOffset >= 0 && t != 0 && t != -1 && !unordered) {
            if (!again) {
                timed(t, at);
            }
            rb.inRound(i);
            if (!again && roundTooLarge(rb)) {
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
        return attrCount == 1 ? attrs[0] : attrOfSampleById(b, p, size);
    }

    /** The event of a sample when the recording has several (by its sample id), or none. */
    private EventAttr attrOfSampleById(ByteBuffer b, int p, int size) {
        if (attrCount == 0) {
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
        if (attrCount == 1) {
            return attrs[0];
        }
        if (attrCount == 0 || attrs[0].trailerIdFromEnd < 0 || attrs[0].trailerIdFromEnd > size - 8) {
            return null;
        }
        int idx = attrById.get(b.getLong(p + size - attrs[0].trailerIdFromEnd));
        return idx == LongIntMap.ABSENT ? null : attrs[idx];
    }

    /** A side-band record's time from its sample_id trailer, or -1 for none (perf takes 0 for none too). */
    private long trailerTime(EventAttr a, ByteBuffer b, int p, int size) {
        if (!a.sampleIdAll || a.trailerTimeFromEnd < 0 || a.trailerSize > size - RECORD_HEADER_SIZE) {
            return -1;
        }
        long t = b.getLong(p + size - a.trailerTimeFromEnd);
        return t == 0 ? -1 : t;
    }

    /**
     * A record queued by its time {@code t} (a u64: perf orders times unsigned, and hands on
     * records of time 0 or 2^64-1 at once, as untimed). perf's ordering hands on, at each
     * FINISHED_ROUND, what is older than the newest record of the round before; a record older
     * than what it handed on already is "out of order" (perf report warns of them), and the reader
     * notes them: samples near one may be resolved against other mappings than perf's.
     */
    private void timed(long t, long at) {
        long tb = t ^ Long.MIN_VALUE;
        if (tb < lastFlushB) {
            outOfOrder(at);
        }
        if (tb > maxTimeB) {
            maxTimeB = tb;
        }
    }

    private void outOfOrder(long at) {
        note("records.out-of-order", "a record at byte " + at + " has a time before records perf's ordering has"
                + " handed on already (perf report warns of as many \"out of order events\"): its time, or the time"
                + " of a record before it, is corrupt; samples near it may be resolved against other mappings than"
                + " perf report's");
    }

    // perf's ordered-events state (ordered-events.c), times as time ^ Long.MIN_VALUE so that signed
    // compares order them as the u64 they are.
    /** The time of the last record handed on from the queue (perf's last_flush). */
    private long lastFlushB = Long.MIN_VALUE;
    /** What the next FINISHED_ROUND hands on up to (perf's next_flush): the newest time at the round before. */
    private long nextFlushB = Long.MIN_VALUE;
    /** The limit the last FINISHED_ROUND handed on up to. */
    private long limitB = Long.MIN_VALUE;
    /** The newest time read (perf's max_timestamp). */
    private long maxTimeB = Long.MIN_VALUE;
    private long roundsEnded;

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
        addAttr(EventAttr.parse(bytes, record, RECORD_HEADER_SIZE, attrCount, ids), at);
    }

    private void headerFeature(ByteBuffer b, int p, int size, long at) {
        if (size < 16) {
            invalidRecord(at, "HEADER_FEATURE", size, 16);
            return;
        }
        long id = b.getLong(p + 8);
        byte[] record = Bytes.slice(b, p, size);
        try {
            pipeFeatures.check(id, record, 16, size, attrCount);
        } catch (PipeFeatureCheck.Refused e) {
            String name = id > 0 && id < FEATURE_BITS ? PerfNames.feature((int) id) : "id " + Long.toUnsignedString(id);
            note("feature.refused." + name, "the HEADER_FEATURE record at byte " + at + " (feature " + name + ") is"
                    + " corrupt: " + e.getMessage() + "; perf report stops at such a record and reports nothing; the"
                    + " feature is ignored here (features say nothing about the samples)");
            return;
        }
        if (id <= 0 || id >= PipeFeatureCheck.LAST_FEATURE) {
            return; // 32 ends the feature list in perf 6.1 (HEADER_LAST_FEATURE); nothing to read
        }
        int bit = (int) id;
        if (!wanted(bit)) {
            info.otherFeatures.add(PerfNames.feature(bit));
            return;
        }
        try {
            features.parse(bit, record, 16, size, at + 16);
        } catch (FeatureParser.Malformed e) {
            note("feature." + PerfNames.feature(bit), "feature " + PerfNames.feature(bit) + " at byte " + e.offset
                    + " is malformed (" + e.getMessage() + "); ignored");
        }
    }

    /** EVENT_UPDATE: u64 type, u64 id, then for type NAME the event's name. */
    private void eventUpdate(ByteBuffer b, int p, int size, long at) {
        if (size < 24) {
            return;
        }
        long id = b.getLong(p + 16);
        // perf report refuses an update of no event: before any event, or of an id no event lists.
        if (attrCount == 0 || (attrCount > 1 && id != 0 && attrs[0].sampleIdAll
                && attrById.get(id) == LongIntMap.ABSENT)) {
            invalidRecords++;
            note("record.invalid.EVENT_UPDATE", "the EVENT_UPDATE record at byte " + at + " updates "
                    + (attrCount == 0 ? "an event before any event was described" : "sample id " + id + ", which no"
                    + " event lists") + ": it is corrupt; skipped and counted as invalid (perf report stops at such"
                    + " a record and reports nothing)");
            return;
        }
        if (b.getLong(p + 8) != EVENT_UPDATE_NAME) {
            return;
        }
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
                parsedKind = RecordBatch.MMAP;
                return mmap(b, p, type, misc, size, at);
            }
            case COMM -> {
                parsedKind = RecordBatch.COMM;
                return comm(b, p, misc, size, at);
            }
            case FORK, EXIT -> {
                parsedKind = type == FORK ? RecordBatch.FORK : RecordBatch.EXIT;
                return task(b, p, type, size, at);
            }
            default -> {
                skip(type, at);
                return null;
            }
        }
    }

    /**
     * Decodes a SAMPLE of event {@code a} into entry {@code i} of {@code d} (its callchain's offset
     * in {@code b}); false when its size lies or perf refuses a field after its callchain (counted
     * invalid).
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
            q += 8 * (int) nr;
        } else {
            d.chainAt[i] = q;
            d.chainLength[i] = 0;
        }
        return a.afterCallchain == 0 || takenAfterCallchain(b, q, end, size, at, a);
    }

    /**
     * Whether perf takes a sample whose event has fields after the callchain ({@link SampleTail});
     * one it refuses is counted invalid, one it reads past its end is noted.
     */
    private boolean takenAfterCallchain(ByteBuffer b, int q, int end, int size, long at, EventAttr a) {
        if (!tail.walk(b, q, end, size, a)) {
            if (!tail.stackOverused) {
                return invalidSample(at, size, tail.refused, -1);
            }
            samplesInvalid++;
            note("samples.invalid.user-stack", "a SAMPLE record at byte " + at + " of " + size + " bytes holds "
                    + tail.refused + ": perf report refuses it (user stack dump failure); such samples are counted"
                    + " as invalid");
            return false;
        }
        if (tail.pastEnd != null) {
            note("samples.past-end", "a SAMPLE record at byte " + at + " of " + size + " bytes ends before its "
                    + tail.pastEnd + ": perf report reads the bytes after the record as it (it checks no size there)"
                    + " and keeps the sample; it is kept here too");
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
        return attrCount > 0 ? attrs[0].trailerSize : 0;
    }

    private RecordBatch.Mmap mmap(ByteBuffer b, int p, int type, int misc, int size, long at) {
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
        // MMAP has no prot and flags: perf takes it as executable unless it is a data mapping.
        int prot = two ? b.getInt(p + 64) : (misc & MISC_MMAP_DATA) != 0 ? 0 : PROT_EXEC;
        int flags = two ? b.getInt(p + 68) : 0;
        return new RecordBatch.Mmap(misc & CPUMODE_MASK, b.getInt(p + 8), b.getInt(p + 12), b.getLong(p + 16),
                b.getLong(p + 24), b.getLong(p + 32), filename, prot, flags, buildId);
    }

    private RecordBatch.Comm comm(ByteBuffer b, int p, int misc, int size, long at) {
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
        return new RecordBatch.Comm(b.getInt(p + 8), b.getInt(p + 12), comm);
    }

    private RecordBatch.Task task(ByteBuffer b, int p, int type, int size, long at) {
        if (size < 32) {
            invalidRecord(at, PerfNames.record(type), size, 32);
            return null;
        }
        boolean exec = (Short.toUnsignedInt(b.getShort(p + 4)) & MISC_FORK_EXEC) != 0;
        return new RecordBatch.Task(b.getInt(p + 8), b.getInt(p + 12), b.getInt(p + 16), b.getInt(p + 20), exec);
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

    /**
     * Samples that hold a user stack dump to unwind (perf record --call-graph dwarf): their
     * callchains stop where the kernel's ends, as this reader does not unwind it.
     */
    long userStacks() {
        return userStacks;
    }

    /** Records read, of every type. */
    long recordsRead() {
        long n = 0;
        for (long c : recordsByType) {
            n += c;
        }
        for (long c : otherTypes.values()) {
            n += c;
        }
        return n;
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
        if (decompressed != null) {
            c.put("records.compressed.cut", decompressed.recordsCut);
        }
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
            String text = e.getValue();
            if (e.getKey().equals("record.undefined") && samplesRead > samplesBeforeUndefined) {
                text += "; " + (samplesRead - samplesBeforeUndefined) + " SAMPLE records were read after the first"
                        + " such record and may be misread";
            }
            out.add(n > 1 ? text + " [" + n + " times]" : text);
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
