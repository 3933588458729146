package org.hyperprof.symbols.elf;

/**
 * An ELF file's bytes read in its class (32 or 64 bit) and data encoding (little or big endian).
 * Offsets are {@code long} because ELF64 fields are; callers check ranges against the file length
 * before reading, so every offset given here is inside the file.
 */
class ElfBytes {

    final ElfData data;
    final boolean is64;
    final boolean bigEndian;

    ElfBytes(ElfData data, boolean is64, boolean bigEndian) {
        this.data = data;
        this.is64 = is64;
        this.bigEndian = bigEndian;
    }

    /** The file's length in bytes. */
    final long length() {
        return data.length;
    }

    final int u8(long off) {
        return data.u8(off);
    }

    final int u16(long off) {
        return (int) data.bytes(off, 2, bigEndian);
    }

    final long u32(long off) {
        return data.bytes(off, 4, bigEndian);
    }

    final long u64(long off) {
        return data.bytes(off, 8, bigEndian);
    }

    /** An address, offset or size field: 4 bytes in ELF32, 8 in ELF64. */
    final long word(long off) {
        return data.bytes(off, is64 ? 8 : 4, bigEndian);
    }

    /** Whether {@code size} bytes from {@code offset} lie inside the file (unsigned, without overflow). */
    final boolean fits(long offset, long size) {
        long length = data.length;
        return Long.compareUnsigned(offset, length) <= 0 && Long.compareUnsigned(size, length - offset) <= 0;
    }
}
