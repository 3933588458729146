package org.hyperprof.symbols.elf;

/**
 * An ELF file's bytes read in its class (32 or 64 bit) and data encoding (little or big endian).
 * Offsets are {@code long} because ELF64 fields are; callers check ranges against the file length
 * before reading, so every offset given here is inside the array.
 */
class ElfBytes {

    final byte[] data;
    final boolean is64;
    final boolean bigEndian;

    ElfBytes(byte[] data, boolean is64, boolean bigEndian) {
        this.data = data;
        this.is64 = is64;
        this.bigEndian = bigEndian;
    }

    final int u8(long off) {
        return data[(int) off] & 0xff;
    }

    final int u16(long off) {
        int o = (int) off;
        int a = data[o] & 0xff;
        int b = data[o + 1] & 0xff;
        return bigEndian ? (a << 8) | b : (b << 8) | a;
    }

    final long u32(long off) {
        return bytes(off, 4);
    }

    final long u64(long off) {
        return bytes(off, 8);
    }

    /** An address, offset or size field: 4 bytes in ELF32, 8 in ELF64. */
    final long word(long off) {
        return bytes(off, is64 ? 8 : 4);
    }

    private long bytes(long off, int count) {
        int o = (int) off;
        long v = 0;
        if (bigEndian) {
            for (int i = 0; i < count; i++) {
                v = (v << 8) | (data[o + i] & 0xff);
            }
        } else {
            for (int i = count - 1; i >= 0; i--) {
                v = (v << 8) | (data[o + i] & 0xff);
            }
        }
        return v;
    }

    /** Whether {@code size} bytes from {@code offset} lie inside the file (unsigned, without overflow). */
    final boolean fits(long offset, long size) {
        long length = data.length;
        return Long.compareUnsigned(offset, length) <= 0 && Long.compareUnsigned(size, length - offset) <= 0;
    }
}
