package org.hyperprof.symbols.elf;

import static org.hyperprof.symbols.elf.ElfFile.hex;

import org.hyperprof.api.symbols.SymbolFileException;

/**
 * Finds the GNU build-id: the note of type {@code NT_GNU_BUILD_ID} (3) with owner name {@code GNU}
 * that the linker's {@code --build-id} writes (usually in {@code .note.gnu.build-id}, inside a
 * {@code PT_NOTE} segment). Its descriptor, as lower-case hex, is the identity debuggers and
 * {@code /usr/lib/debug/.build-id/} use.
 *
 * <p>Where the notes are: the {@code SHT_NOTE} sections when the file has a section header table,
 * otherwise the {@code PT_NOTE} segments (a file stripped of its section headers still has them).
 * Each note is a 12-byte header (name size, descriptor size, type), the name and the descriptor;
 * the descriptor and the next note start at the note area's alignment, counted from the note's
 * start: 8 when the section or segment is 8-aligned (as the GNU property notes of x86-64 are),
 * otherwise 4.
 */
final class ElfNotes {

    static final long NT_GNU_BUILD_ID = 3;

    private ElfNotes() {
    }

    /**
     * The build-id as lower-case hex, or null when the file has none.
     *
     * @throws SymbolFileException when a note area or a note in it is malformed
     */
    static String buildId(ElfFile f) throws SymbolFileException {
        if (f.shnum > 0) {
            for (int s = 1; s < f.shnum; s++) {
                if (f.shType[s] == ElfFile.SHT_NOTE) {
                    String id = scan(f, f.shOffset[s], f.shSize[s], f.shAddralign[s], "note section " + f.sectionLabel(s));
                    if (id != null) {
                        return id;
                    }
                }
            }
            return null;
        }
        for (int i = 0; i < f.phnum; i++) {
            if (f.phType[i] != ElfFile.PT_NOTE) {
                continue;
            }
            if (!f.fits(f.phOffset[i], f.phFilesz[i])) {
                throw f.error(f.phField(i, f.is64 ? 8 : 4), "p_offset", "note segment (program header " + i
                        + ", p_offset " + hex(f.phOffset[i]) + ", p_filesz " + hex(f.phFilesz[i])
                        + ") extends past the end of the file (size " + hex(f.length())
                        + "); the file is truncated or corrupt");
            }
            String id = scan(f, f.phOffset[i], f.phFilesz[i], f.phAlign[i], "note segment (program header " + i + ")");
            if (id != null) {
                return id;
            }
        }
        return null;
    }

    private static String scan(ElfFile f, long from, long size, long alignment, String where)
            throws SymbolFileException {
        long align = alignment == 8 ? 8 : 4;
        long end = from + size;
        long p = from;
        while (p < end) {
            if (end - p < 12) {
                throw f.error(p, "note header", "the last " + (end - p) + " bytes of " + where
                        + " are too short for a 12-byte note header; the file is corrupt");
            }
            long namesz = f.u32(p);
            long descsz = f.u32(p + 4);
            long type = f.u32(p + 8);
            long nameAt = p + 12;
            // Name and descriptor each start on the area's alignment, counted from the note's start.
            long descAt = p + roundUp(12 + namesz, align);
            if (descAt + descsz > end) {
                throw f.error(p, "note header", "a note with a " + namesz + "-byte name and a " + descsz
                        + "-byte descriptor extends past the end of " + where + " (which ends at " + hex(end)
                        + "); the file is corrupt");
            }
            if (type == NT_GNU_BUILD_ID && namesz == 4 && f.u8(nameAt) == 'G' && f.u8(nameAt + 1) == 'N'
                    && f.u8(nameAt + 2) == 'U' && f.u8(nameAt + 3) == 0) {
                if (descsz == 0) {
                    throw f.error(p, "note header", "the GNU build-id note in " + where
                            + " has an empty descriptor; the file is corrupt");
                }
                StringBuilder hexId = new StringBuilder((int) descsz * 2);
                for (long b = descAt; b < descAt + descsz; b++) {
                    int v = f.u8(b);
                    hexId.append(Character.forDigit(v >>> 4, 16)).append(Character.forDigit(v & 0xf, 16));
                }
                return hexId.toString();
            }
            p = p + roundUp(descAt - p + descsz, align);
        }
        return null;
    }

    private static long roundUp(long value, long align) {
        return (value + align - 1) & -align;
    }
}
