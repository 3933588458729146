package org.hyperprof.source.perf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What the importer needs to know of an ELF file beyond its symbols: its loadable segments (to turn
 * a file offset into the link-time address its symbols use), whether it has a full symbol table
 * ({@code .symtab}, as opposed to only {@code .dynsym}), its GNU build-id and the name of its
 * separate debug file ({@code .gnu_debuglink}). Reads only the headers, the section names and the
 * note and debuglink sections, each checked against the file's size.
 *
 * <h2>Addresses</h2>
 * A sample at run-time address {@code ip} in a mapping that starts at {@code start} with file offset
 * {@code pgoff} lies at file offset {@code ip - start + pgoff} (perf's rule for file-backed
 * mappings). The {@code PT_LOAD} segment holding that offset maps it to the link-time address
 * {@code offset - p_offset + p_vaddr}, the address space the ELF symbol table uses for executables
 * and shared objects alike.
 */
final class ElfImage {

    /** The file is not an ELF image this importer can use. */
    static final class NotElf extends Exception {
        private static final long serialVersionUID = 1L;

        NotElf(String message) {
            super(message);
        }
    }

    static final int PT_LOAD = 1;
    static final int PF_X = 1;
    static final int SHT_SYMTAB = 2;
    static final int SHT_NOTE = 7;
    static final int NT_GNU_BUILD_ID = 3;
    private static final int MAX_HEADERS = 1 << 16;

    final Path path;
    final int type;
    final long[] loadOffset;
    final long[] loadVaddr;
    final long[] loadSize;
    /** Whether each loadable segment is executable (PF_X): where a sample's address may lie. */
    final boolean[] loadCode;
    final boolean hasSymtab;
    final String buildId;
    /** The file name {@code .gnu_debuglink} gives for the separate debug file, or null. */
    final String debuglink;

    private ElfImage(Path path, int type, long[] loadOffset, long[] loadVaddr, long[] loadSize, boolean[] loadCode,
            boolean hasSymtab, String buildId, String debuglink) {
        this.path = path;
        this.type = type;
        this.loadOffset = loadOffset;
        this.loadVaddr = loadVaddr;
        this.loadSize = loadSize;
        this.loadCode = loadCode;
        this.hasSymtab = hasSymtab;
        this.buildId = buildId;
        this.debuglink = debuglink;
    }

    /** The link-time address of a file offset, or -1 when no loadable segment holds it. */
    long linkAddress(long fileOffset) {
        for (int i = 0; i < loadOffset.length; i++) {
            long d = fileOffset - loadOffset[i];
            if (d >= 0 && d < loadSize[i]) {
                return loadVaddr[i] + d;
            }
        }
        return -1;
    }

    /**
     * Whether a file offset lies in code: an executable loadable segment holds it. A program runs
     * only there, so a sample elsewhere means its mapping record (its pgoff) or its address is
     * corrupt, or the file changed since the recording. True for a file without any executable
     * segment (a debug file whose headers say nothing of it): nothing to judge by.
     */
    boolean inCode(long fileOffset) {
        boolean any = false;
        for (int i = 0; i < loadOffset.length; i++) {
            if (loadCode[i]) {
                any = true;
                long d = fileOffset - loadOffset[i];
                if (d >= 0 && d < loadSize[i]) {
                    return true;
                }
            }
        }
        return !any;
    }

    /** Reads the headers of the ELF file at {@code path}. */
    static ElfImage read(Path path) throws NotElf, IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < 52) {
                throw new NotElf(size + " bytes, too short for an ELF header");
            }
            byte[] id = read(ch, 0, 16, size);
            if (id[0] != 0x7f || id[1] != 'E' || id[2] != 'L' || id[3] != 'F') {
                throw new NotElf("not an ELF file (no \\x7fELF magic)");
            }
            boolean is64 = id[4] == 2;
            if (id[4] != 1 && id[4] != 2) {
                throw new NotElf("ELF class " + id[4] + "; expected 1 (32-bit) or 2 (64-bit)");
            }
            if (id[5] != 1 && id[5] != 2) {
                throw new NotElf("ELF data encoding " + id[5] + "; expected 1 (little) or 2 (big endian)");
            }
            Bytes b = new Bytes(id[5] == 2);
            byte[] h = read(ch, 0, is64 ? 64 : 52, size);
            int type = b.u16(h, 16);
            long phoff = is64 ? b.u64(h, 32) : b.u32(h, 28);
            long shoff = is64 ? b.u64(h, 40) : b.u32(h, 32);
            int phentsize = b.u16(h, is64 ? 54 : 42);
            int phnum = b.u16(h, is64 ? 56 : 44);
            int shentsize = b.u16(h, is64 ? 58 : 46);
            int shnum = b.u16(h, is64 ? 60 : 48);
            int shstrndx = b.u16(h, is64 ? 62 : 50);

            long[] off = new long[0];
            long[] vaddr = new long[0];
            long[] filesz = new long[0];
            boolean[] code = new boolean[0];
            if (phnum > 0) {
                if (phentsize < (is64 ? 56 : 32)) {
                    throw new NotElf("program header entry size " + phentsize + " is too small");
                }
                byte[] ph = read(ch, phoff, (long) phentsize * phnum, size);
                int loads = 0;
                for (int i = 0; i < phnum; i++) {
                    if (b.s32(ph, i * phentsize) == PT_LOAD) {
                        loads++;
                    }
                }
                off = new long[loads];
                vaddr = new long[loads];
                filesz = new long[loads];
                code = new boolean[loads];
                int k = 0;
                for (int i = 0; i < phnum; i++) {
                    int p = i * phentsize;
                    if (b.s32(ph, p) != PT_LOAD) {
                        continue;
                    }
                    off[k] = is64 ? b.u64(ph, p + 8) : b.u32(ph, p + 4);
                    vaddr[k] = is64 ? b.u64(ph, p + 16) : b.u32(ph, p + 8);
                    filesz[k] = is64 ? b.u64(ph, p + 32) : b.u32(ph, p + 16);
                    code[k] = ((is64 ? b.u32(ph, p + 4) : b.u32(ph, p + 24)) & PF_X) != 0;
                    k++;
                }
            }
            boolean symtab = false;
            String buildId = null;
            String debuglink = null;
            if (shnum > 0 && shoff != 0) {
                if (shentsize < (is64 ? 64 : 40)) {
                    throw new NotElf("section header entry size " + shentsize + " is too small");
                }
                byte[] sh = read(ch, shoff, (long) shentsize * shnum, size);
                for (int i = 0; i < shnum; i++) {
                    int p = i * shentsize;
                    int shType = b.s32(sh, p + 4);
                    if (shType == SHT_SYMTAB) {
                        symtab = true;
                    } else if (shType == SHT_NOTE && buildId == null) {
                        long noteOff = is64 ? b.u64(sh, p + 24) : b.u32(sh, p + 16);
                        long noteSize = is64 ? b.u64(sh, p + 32) : b.u32(sh, p + 20);
                        if (noteSize > 0 && noteSize < (1 << 20) && noteOff >= 0 && noteOff <= size
                                && noteSize <= size - noteOff) {
                            buildId = buildId(b, read(ch, noteOff, noteSize, size));
                        }
                    }
                }
                debuglink = debuglink(ch, b, is64, sh, shentsize, shnum, shstrndx, size);
            }
            return new ElfImage(path, type, off, vaddr, filesz, code, symtab, buildId, debuglink);
        }
    }

    private static final byte[] DEBUGLINK = ".gnu_debuglink".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * The file name in the {@code .gnu_debuglink} section (a NUL-terminated name, then padding and a
     * CRC, which perf does not check and neither do we: the build-id decides), or null when there is
     * none or the section names cannot be read: a debug file is optional, so a malformed one is not
     * an error.
     */
    private static String debuglink(FileChannel ch, Bytes b, boolean is64, byte[] sh, int shentsize, int shnum,
            int shstrndx, long size) throws IOException {
        if (shstrndx <= 0 || shstrndx >= shnum) {
            return null;
        }
        try {
            int s = shstrndx * shentsize;
            long namesOff = is64 ? b.u64(sh, s + 24) : b.u32(sh, s + 16);
            long namesSize = is64 ? b.u64(sh, s + 32) : b.u32(sh, s + 20);
            if (namesSize <= 0 || namesSize > (1 << 20)) {
                return null;
            }
            byte[] names = read(ch, namesOff, namesSize, size);
            for (int i = 0; i < shnum; i++) {
                int p = i * shentsize;
                long name = b.u32(sh, p);
                if (!named(names, name, DEBUGLINK)) {
                    continue;
                }
                long at = is64 ? b.u64(sh, p + 24) : b.u32(sh, p + 16);
                long length = is64 ? b.u64(sh, p + 32) : b.u32(sh, p + 20);
                if (length < 2 || length > 4096) {
                    return null;
                }
                byte[] link = read(ch, at, length, size);
                int end = 0;
                while (end < link.length && link[end] != 0) {
                    end++;
                }
                return end == 0 || end == link.length ? null
                        : new String(link, 0, end, java.nio.charset.StandardCharsets.UTF_8);
            }
            return null;
        } catch (NotElf e) {
            return null;
        }
    }

    /** Whether the NUL-terminated string at {@code at} of {@code names} is {@code wanted}. */
    private static boolean named(byte[] names, long at, byte[] wanted) {
        if (at < 0 || at + wanted.length >= names.length) {
            return false;
        }
        for (int k = 0; k < wanted.length; k++) {
            if (names[(int) at + k] != wanted[k]) {
                return false;
            }
        }
        return names[(int) at + wanted.length] == 0;
    }

    /** The GNU build-id in a note section's bytes (an ELF file's, or the running kernel's /sys/kernel/notes), or null. */
    static String buildId(Bytes b, byte[] notes) {
        int p = 0;
        while (p + 12 <= notes.length) {
            long namesz = b.u32(notes, p);
            long descsz = b.u32(notes, p + 4);
            int type = b.s32(notes, p + 8);
            long nameEnd = p + 12 + ((namesz + 3) & ~3L);
            long descEnd = nameEnd + ((descsz + 3) & ~3L);
            if (nameEnd > notes.length || nameEnd + descsz > notes.length) {
                return null;
            }
            if (type == NT_GNU_BUILD_ID && namesz == 4 && notes[p + 12] == 'G' && notes[p + 13] == 'N'
                    && notes[p + 14] == 'U' && descsz > 0 && descsz <= 64) {
                return Bytes.hex(notes, (int) nameEnd, (int) descsz);
            }
            p = (int) Math.min(descEnd, notes.length);
        }
        return null;
    }

    private static byte[] read(FileChannel ch, long offset, long length, long size) throws NotElf, IOException {
        if (offset < 0 || length < 0 || length > MAX_HEADERS * 64L || offset > size || length > size - offset) {
            throw new NotElf(length + " bytes at offset " + offset + " lie outside the " + size + "-byte file");
        }
        byte[] out = new byte[(int) length];
        ByteBuffer bb = ByteBuffer.wrap(out);
        while (bb.hasRemaining()) {
            if (ch.read(bb, offset + bb.position()) < 0) {
                throw new NotElf("the file ends at " + (offset + bb.position()) + " while reading its headers");
            }
        }
        return out;
    }
}
