package org.hyperprof.source.perf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Mutants of a real perf.data recording (file or pipe form), made the same way from the same seed
 * every run: bits flipped, runs of bytes overwritten, the file cut, and the fields that steer a
 * reader set to values a damaged file holds (a record's size, type or cpumode, a sample's or a
 * mapping's fields, the file header's sizes and offsets, an attr's fields, the feature table).
 * Each mutant says what was done, at which byte, so a failure names the mutant exactly.
 */
final class PerfDataMutants {

    /** One mutated copy of the recording. */
    record Mutant(int number, String recipe, byte[] bytes) {
        @Override
        public String toString() {
            return "mutant " + number + " (" + recipe + ")";
        }
    }

    /** Where the records of a recording lie: the file header's fields, the attrs, the records. */
    static final class Layout {
        final byte[] bytes;
        final boolean pipe;
        final ByteBuffer b;
        long attrSize;
        long attrsOffset;
        long attrsSize;
        long dataOffset;
        long dataEnd;
        final List<int[]> records = new ArrayList<>();

        Layout(byte[] bytes) {
            this.bytes = bytes;
            this.b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            this.pipe = b.getLong(8) == PerfFormat.PIPE_HEADER_SIZE;
            if (pipe) {
                dataOffset = PerfFormat.PIPE_HEADER_SIZE;
                dataEnd = bytes.length;
            } else {
                attrSize = b.getLong(16);
                attrsOffset = b.getLong(24);
                attrsSize = b.getLong(32);
                dataOffset = b.getLong(40);
                dataEnd = dataOffset + b.getLong(48);
            }
            for (long p = dataOffset; p + 8 <= dataEnd;) {
                int size = Short.toUnsignedInt(b.getShort((int) p + 6));
                if (size < 8 || p + size > dataEnd) {
                    break;
                }
                records.add(new int[] {(int) p, b.getInt((int) p), size});
                p += size;
            }
        }

        /** The records of these types: {offset, type, size} each. */
        List<int[]> of(int... types) {
            List<int[]> out = new ArrayList<>();
            for (int[] r : records) {
                for (int t : types) {
                    if (r[1] == t) {
                        out.add(r);
                    }
                }
            }
            return out;
        }
    }

    private final Layout layout;
    private final SplittableRandom random;
    private final String form;

    PerfDataMutants(byte[] recording, long seed) {
        this.layout = new Layout(recording);
        this.random = new SplittableRandom(seed);
        this.form = layout.pipe ? "pipe" : "file";
    }

    Layout layout() {
        return layout;
    }

    /** The next {@code n} mutants. */
    List<Mutant> next(int n, int firstNumber) {
        List<Mutant> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(next(firstNumber + i));
        }
        return out;
    }

    private Mutant next(int number) {
        byte[] c = layout.bytes.clone();
        ByteBuffer b = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
        int roll = random.nextInt(100);
        String recipe;
        if (roll < 22) {
            int at = random.nextInt(c.length);
            int bit = random.nextInt(8);
            c[at] ^= (byte) (1 << bit);
            recipe = "bit " + bit + " of byte " + at + " flipped" + where(at);
        } else if (roll < 30) {
            int at = random.nextInt(c.length);
            int length = Math.min(c.length - at, 2 + random.nextInt(31));
            int fill = random.nextInt(3);
            for (int k = 0; k < length; k++) {
                c[at + k] = (byte) (fill == 0 ? 0 : fill == 1 ? 0xFF : random.nextInt(256));
            }
            recipe = length + " bytes from byte " + at + " set to " + (fill == 0 ? "0x00" : fill == 1 ? "0xff" : "noise")
                    + where(at);
        } else if (roll < 37) {
            int at = random.nextInt(c.length);
            c = Arrays.copyOf(c, at);
            recipe = "cut to " + at + " bytes" + where(at);
        } else if (roll < 50) {
            int[] r = anyRecord();
            int size = r[2];
            int[] choices = {0, 4, 7, size - 8, size - 1, size + 1, size + 8, size * 2, 65535, random.nextInt(65536)};
            int v = Math.max(0, Math.min(65535, choices[random.nextInt(choices.length)]));
            b.putShort(r[0] + 6, (short) v);
            recipe = describe(r) + " size " + size + " -> " + v;
        } else if (roll < 60) {
            int[] r = anyRecord();
            int[] known = {1, 2, 3, 4, 7, 9, 10, 13, 68, 69, 73, 74, 78, 82};
            int[] undefined = {0, 22 + random.nextInt(42), 87 + random.nextInt(100), random.nextInt()};
            int v = random.nextBoolean() ? known[random.nextInt(known.length)] : undefined[random.nextInt(4)];
            b.putInt(r[0], v);
            recipe = describe(r) + " type -> " + Integer.toUnsignedString(v);
        } else if (roll < 64) {
            int[] r = anyRecord();
            int misc = Short.toUnsignedInt(b.getShort(r[0] + 4));
            int v = random.nextBoolean() ? (misc & ~7) | random.nextInt(8) : misc ^ (1 << (3 + random.nextInt(13)));
            b.putShort(r[0] + 4, (short) v);
            recipe = describe(r) + " misc 0x" + Integer.toHexString(misc) + " -> 0x" + Integer.toHexString(v);
        } else if (roll < 76) {
            recipe = field(b, layout.of(PerfFormat.SAMPLE), "sample");
        } else if (roll < 84) {
            recipe = field(b, layout.of(PerfFormat.MMAP, PerfFormat.MMAP2, PerfFormat.COMM, PerfFormat.FORK,
                    PerfFormat.EXIT), "side-band");
        } else if (layout.pipe) {
            recipe = roll < 96 ? field(b, layout.of(PerfFormat.HEADER_ATTR, PerfFormat.HEADER_FEATURE, 69, 73, 74, 78,
                    82), "header") : pipeHeader(b);
        } else if (roll < 92) {
            recipe = headerField(b);
        } else if (roll < 98) {
            recipe = attrField(b);
        } else {
            recipe = featureTable(b);
        }
        return new Mutant(number, form + ": " + recipe, c);
    }

    /** Where {@code at} lies, for recipes. */
    private String where(int at) {
        if (at < (layout.pipe ? 16 : 104)) {
            return " (in the file header)";
        }
        if (at < layout.dataOffset) {
            return " (in the attrs)";
        }
        if (at >= layout.dataEnd) {
            return " (in the features)";
        }
        for (int[] r : layout.records) {
            if (at >= r[0] && at < r[0] + r[2]) {
                return " (in " + describe(r) + ")";
            }
        }
        return "";
    }

    private static String describe(int[] r) {
        return PerfNames.record(r[1]) + " record at byte " + r[0];
    }

    private int[] anyRecord() {
        List<int[]> all = layout.records;
        return all.get(random.nextInt(all.size()));
    }

    private static final long[] NOTABLE = {0, 1, -1, 0x7fffffffffffffffL, 1L << 40};

    /** A value for a field that held {@code v}: one bit flipped, or a value a damaged file holds. */
    private long value(long v, int bytes) {
        long mask = bytes == 8 ? -1L : (1L << (8 * bytes)) - 1;
        return switch (random.nextInt(7)) {
            case 0, 1 -> v ^ (1L << random.nextInt(8 * bytes));
            case 2 -> v + (random.nextBoolean() ? 8 : -8);
            case 3 -> v * 2;
            case 4 -> v / 2;
            case 5 -> random.nextLong();
            default -> NOTABLE[random.nextInt(NOTABLE.length)];
        } & mask;
    }

    /** A u32 or u64 field inside the payload of one of {@code records}. */
    private String field(ByteBuffer b, List<int[]> records, String what) {
        if (records.isEmpty()) {
            return "no " + what + " record to mutate";
        }
        int[] r = records.get(random.nextInt(records.size()));
        int payload = r[2] - 8;
        if (payload < 4) {
            return describe(r) + " has no field";
        }
        boolean wide = payload >= 8 && random.nextBoolean();
        int slots = (payload - (wide ? 8 : 4)) / 4 + 1;
        int at = r[0] + 8 + 4 * random.nextInt(slots);
        if (wide) {
            long old = b.getLong(at);
            long v = value(old, 8);
            b.putLong(at, v);
            return describe(r) + ": u64 at +" + (at - r[0]) + " 0x" + Long.toHexString(old) + " -> 0x"
                    + Long.toHexString(v);
        }
        long old = Integer.toUnsignedLong(b.getInt(at));
        long v = value(old, 4);
        b.putInt(at, (int) v);
        return describe(r) + ": u32 at +" + (at - r[0]) + " 0x" + Long.toHexString(old) + " -> 0x" + Long.toHexString(v);
    }

    private static final String[] HEADER_FIELDS = {"magic", "header size", "attr_size", "attrs.offset", "attrs.size",
        "data.offset", "data.size", "event_types.offset", "event_types.size", "features[0]", "features[1]",
        "features[2]", "features[3]"};

    private String headerField(ByteBuffer b) {
        int f = 1 + random.nextInt(HEADER_FIELDS.length - 1);
        long old = b.getLong(8 * f);
        long v = value(old, 8);
        b.putLong(8 * f, v);
        return "header " + HEADER_FIELDS[f] + " " + old + " -> " + v;
    }

    /** Fields of the first attr in the attrs section: {offset, bytes, name}. */
    private static final Object[][] ATTR_FIELDS = {{0, 4, "type"}, {4, 4, "size"}, {8, 8, "config"},
        {16, 8, "sample_period"}, {24, 8, "sample_type"}, {32, 8, "read_format"}, {40, 8, "flags"}};

    private String attrField(ByteBuffer b) {
        int attr = (int) layout.attrsOffset;
        int pick = random.nextInt(ATTR_FIELDS.length + 2);
        if (pick >= ATTR_FIELDS.length) {
            int at = attr + (int) layout.attrSize - 16 + 8 * (pick - ATTR_FIELDS.length);
            long old = b.getLong(at);
            long v = value(old, 8);
            b.putLong(at, v);
            return "attr ids." + (pick == ATTR_FIELDS.length ? "offset" : "size") + " " + old + " -> " + v;
        }
        int off = (Integer) ATTR_FIELDS[pick][0];
        int bytes = (Integer) ATTR_FIELDS[pick][1];
        long old = bytes == 8 ? b.getLong(attr + off) : Integer.toUnsignedLong(b.getInt(attr + off));
        long v = value(old, bytes);
        if (bytes == 8) {
            b.putLong(attr + off, v);
        } else {
            b.putInt(attr + off, (int) v);
        }
        return "attr " + ATTR_FIELDS[pick][2] + " 0x" + Long.toHexString(old) + " -> 0x" + Long.toHexString(v);
    }

    private String featureTable(ByteBuffer b) {
        long bits = b.getLong(72);
        int count = Long.bitCount(bits);
        if (count == 0 || layout.dataEnd + 16L * count > layout.bytes.length) {
            return headerField(b);
        }
        int entry = random.nextInt(count);
        int at = (int) layout.dataEnd + 16 * entry + (random.nextBoolean() ? 0 : 8);
        long old = b.getLong(at);
        long v = value(old, 8);
        b.putLong(at, v);
        return "feature table entry " + entry + (at % 16 == layout.dataEnd % 16 ? " offset " : " size ") + old
                + " -> " + v;
    }

    private String pipeHeader(ByteBuffer b) {
        if (random.nextBoolean()) {
            int at = random.nextInt(8);
            int bit = random.nextInt(8);
            b.put(at, (byte) (b.get(at) ^ (1 << bit)));
            return "bit " + bit + " of magic byte " + at + " flipped";
        }
        long v = value(16, 8);
        b.putLong(8, v);
        return "header size 16 -> " + v;
    }
}
