package org.hyperprof.symbols.elf;

import static org.hyperprof.symbols.elf.ElfBuilder.ET_DYN;
import static org.hyperprof.symbols.elf.ElfBuilder.ET_REL;
import static org.hyperprof.symbols.elf.ElfBuilder.PT_LOAD;
import static org.hyperprof.symbols.elf.ElfBuilder.PT_NOTE;
import static org.hyperprof.symbols.elf.ElfBuilder.SHF_ALLOC;
import static org.hyperprof.symbols.elf.ElfBuilder.SHF_WRITE;
import static org.hyperprof.symbols.elf.ElfBuilder.SHN_XINDEX;
import static org.hyperprof.symbols.elf.ElfBuilder.SHT_DYNSYM;
import static org.hyperprof.symbols.elf.ElfBuilder.SHT_PROGBITS;
import static org.hyperprof.symbols.elf.ElfBuilder.STB_GLOBAL;
import static org.hyperprof.symbols.elf.ElfBuilder.STB_LOCAL;
import static org.hyperprof.symbols.elf.ElfBuilder.STT_FUNC;
import static org.hyperprof.symbols.elf.ElfBuilder.STT_OBJECT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.symbols.elf.ElfBuilder.Section;
import org.hyperprof.symbols.elf.ElfBuilder.Symbols;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Truncated, lying, corrupt and non-ELF files: each gives a {@link SymbolFileException} naming the
 * file and the offset of the problem, and nothing else ever escapes.
 */
class MalformedElfTest {

    private static final String FILE = "broken.so";
    private final ElfResolver resolver = new ElfResolver();

    /** A small but complete shared object: notes, load and note segments, .dynsym and .symtab. */
    static final class Rich {
        final ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
        final Section buildId;
        final Section text;
        final Symbols symtab;
        final byte[] file;

        Rich() {
            b.note(".note.gnu.property", "GNU", 5, new byte[16], 8);
            buildId = b.note(".note.gnu.build-id", "GNU", 3, new byte[20], 4);
            Section init = b.text(".init", 0x1000, 0x1b);
            text = b.text(".text", 0x1100, 0x200);
            Section data = b.section(".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x3000, new byte[0x40], 8);
            b.nobits(".bss", SHF_ALLOC | SHF_WRITE, 0x3040, 0x100, 32);
            Symbols dyn = b.symbols(".dynsym", SHT_DYNSYM, ".dynstr");
            dyn.function("api_call", 0x1100, 0x40, text);
            symtab = b.symtab();
            symtab.function("_init", 0x1000, 0, init);
            symtab.add("helper", 0x1140, 0x20, STT_FUNC, STB_LOCAL, text.index);
            symtab.function("api_call", 0x1100, 0x40, text);
            symtab.add("state", 0x3000, 8, STT_OBJECT, STB_GLOBAL, data.index);
            symtab.function("main", 0x1160, 0, text); // last name in .strtab
            b.segment(PT_LOAD, 0, 0x1000);
            b.segmentOver(PT_NOTE, buildId, 4);
            file = b.build();
        }

        long sh(Section s, int field64) {
            return s.header(field64, 0);
        }
    }

    private SymbolFileException loadFails(byte[] file) {
        return assertThrows(SymbolFileException.class, () -> resolver.load(Binutils.bytes(FILE, file)));
    }

    private static void assertAt(SymbolFileException e, long offset, String fragment) {
        assertEquals(FILE, e.file(), e.getMessage());
        assertEquals(offset, e.position(), e.getMessage());
        assertTrue(e.getMessage().contains("at offset 0x" + Long.toHexString(offset)), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), () -> "expected '" + fragment + "' in: " + e.getMessage());
    }

    @Test
    void theRichImageIsWellFormed() throws SymbolFileException {
        Rich r = new Rich();
        SymbolTable table = resolver.load(Binutils.bytes(FILE, r.file));
        assertEquals(List.of("_init", "api_call", "helper", "main"), CraftedImagesTest.names(table));
        assertEquals("0".repeat(40), resolver.buildId(Binutils.bytes(FILE, r.file)));
    }

    @Nested
    class NotElf {

        @Test
        void emptyFileIsAnErrorAtOffsetZero() {
            assertAt(loadFails(new byte[0]), 0, "the file is empty");
        }

        @Test
        void textFileIsNotElfAndIsPointedToTheKallsymsFormat() {
            SymbolFileException e = loadFails("c0100000 T _stext\n".getBytes(StandardCharsets.US_ASCII));
            assertAt(e, 0, "not an ELF file");
            assertTrue(e.getMessage().contains("'kallsyms' format"), e.getMessage());
        }

        @Test
        void wrongMagicByteIsReportedWhereItIs() {
            assertAt(loadFails(new byte[] {0x7f, 'E', 'L', 'G', 2, 1, 1, 0}), 3, "expected the magic 7f 45 4c 46");
            assertAt(loadFails(new byte[] {'M', 'Z', (byte) 0x90, 0}), 0, "not an ELF file");
        }

        @Test
        void fileEndingInsideTheMagicIsTruncated() {
            assertAt(loadFails(new byte[] {0x7f, 'E', 'L'}), 3, "truncated");
        }

        @Test
        void fileEndingInsideTheIdentificationIsTruncated() {
            assertAt(loadFails(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0}), 10,
                    "ends inside the 16-byte ELF identification");
        }
    }

    @Nested
    class Truncated {

        @Test
        void craftedImageTruncatedAtEveryBoundaryFailsWhereItEnds() {
            Rich r = new Rich();
            for (long cut : boundaries(r.file)) {
                assertTruncationFails(r.file, (int) cut);
            }
        }

        @Test
        void realImagesTruncatedAtEveryBoundaryFail() throws IOException {
            for (Path path : new Path[] {RealImagesTest.LS, RealImagesTest.LIBJAVA}) {
                if (!Files.isReadable(path)) {
                    continue;
                }
                byte[] file = Files.readAllBytes(path);
                for (long cut : boundaries(file)) {
                    assertTruncationFails(file, (int) cut);
                }
            }
        }

        private void assertTruncationFails(byte[] file, int cut) {
            byte[] truncated = Arrays.copyOf(file, cut);
            SymbolFileException e = assertThrows(SymbolFileException.class,
                    () -> resolver.load(Binutils.bytes(FILE, truncated)), () -> "truncated at " + cut);
            assertEquals(FILE, e.file());
            assertTrue(e.position() >= 0 && e.position() <= cut, () -> "cut " + cut + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("at offset 0x" + Long.toHexString(e.position())), e.getMessage());
            if (cut < 64) {
                assertEquals(cut, e.position(), e.getMessage()); // inside the file header: where the file ends
            }
        }

        /**
         * Every field boundary of the ELF64 file header, every program and section header boundary,
         * and the start and end of every section's contents (read with a little decoder of our own).
         */
        private TreeSet<Long> boundaries(byte[] file) {
            ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
            TreeSet<Long> cuts = new TreeSet<>();
            for (long f : new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 18, 20, 24, 32, 40, 48, 52, 54, 56, 58, 60, 62}) {
                cuts.add(f);
            }
            long phoff = b.getLong(32);
            long shoff = b.getLong(40);
            int phnum = b.getShort(56) & 0xffff;
            int shnum = b.getShort(60) & 0xffff;
            for (int i = 0; i <= phnum; i++) {
                cuts.add(phoff + 56L * i);
            }
            for (int i = 0; i <= shnum; i++) {
                cuts.add(shoff + 64L * i);
            }
            for (int i = 1; i < shnum; i++) {
                int h = (int) (shoff + 64L * i);
                if (b.getInt(h + 4) != 8) { // not SHT_NOBITS
                    cuts.add(b.getLong(h + 24));
                    cuts.add(b.getLong(h + 24) + b.getLong(h + 32));
                }
            }
            cuts.removeIf(c -> c >= file.length);
            return cuts;
        }
    }

    @Nested
    class LyingFileHeader {
        private final Rich r = new Rich();

        @Test
        void sectionHeaderTablePastTheEnd() {
            assertAt(loadFails(r.b.patch(r.file, 0x28, 8, r.file.length + 0x100)), 0x28, "e_shoff");
            assertAt(loadFails(r.b.patch(r.file, 0x28, 8, 0xffffffffffffff00L)), 0x28, "past the end of the file");
        }

        @Test
        void absurdSectionCount() {
            SymbolFileException e = loadFails(r.b.patch(r.file, 0x3c, 2, 0xfff0));
            assertAt(e, 0x28, "65520 entries of 64 bytes) extends past the end of the file (size 0x"
                    + Integer.toHexString(r.file.length) + ")");
        }

        @Test
        void absurdExtendedSectionCountInSectionZero() {
            byte[] lying = r.b.patch(r.b.patch(r.file, 0x3c, 2, 0), r.b.shoff + 32, 8, 1L << 40);
            assertAt(loadFails(lying), 0x28, "the extended section count");
        }

        @Test
        void sectionNameTableIndexOutOfRange() {
            assertAt(loadFails(r.b.patch(r.file, 0x3e, 2, r.b.sectionCount() + 5)), 0x3e, "e_shstrndx");
        }

        @Test
        void sectionNameTableThatIsNotAStringTable() {
            assertAt(loadFails(r.b.patch(r.file, 0x3e, 2, r.text.index)), r.sh(r.text, 4), "expected 3 (SHT_STRTAB)");
        }

        @Test
        void wrongHeaderSizes() {
            assertAt(loadFails(r.b.patch(r.file, 0x34, 2, 0x30)), 0x34, "e_ehsize");
            assertAt(loadFails(r.b.patch(r.file, 0x36, 2, 55)), 0x36, "e_phentsize");
            assertAt(loadFails(r.b.patch(r.file, 0x3a, 2, 63)), 0x3a, "e_shentsize");
        }

        @Test
        void programHeaderTablePastTheEnd() {
            assertAt(loadFails(r.b.patch(r.file, 0x20, 8, r.file.length - 8)), 0x20, "program header table");
            assertAt(loadFails(r.b.patch(r.file, 0x38, 2, 0xfffe)), 0x20, "65534 entries");
        }

        @Test
        void badIdentification() {
            assertAt(loadFails(r.b.patch(r.file, 4, 1, 3)), 4, "EI_CLASS");
            assertAt(loadFails(r.b.patch(r.file, 5, 1, 0)), 5, "EI_DATA");
            assertAt(loadFails(r.b.patch(r.file, 6, 1, 2)), 6, "EI_VERSION");
            assertAt(loadFails(r.b.patch(r.file, 0x14, 4, 2)), 0x14, "e_version");
        }

        @Test
        void coreDumpsAndUnknownTypesAreRefused() {
            assertAt(loadFails(r.b.patch(r.file, 0x10, 2, 4)), 0x10, "core dump");
            assertAt(loadFails(r.b.patch(r.file, 0x10, 2, 0)), 0x10, "e_type");
        }

        @Test
        void sectionCountWithoutSectionTable() {
            assertAt(loadFails(r.b.patch(r.file, 0x28, 8, 0)), 0x3c, "e_shnum");
        }
    }

    @Nested
    class LyingSections {
        private final Rich r = new Rich();

        @Test
        void hugeSymbolTableSize() {
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.symtab.table, 32), 8, 1L << 62)),
                    r.sh(r.symtab.table, 24), "extend past the end of the file");
        }

        @Test
        void stringTablePastTheEnd() {
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.symtab.strings, 24), 8, r.file.length)),
                    r.sh(r.symtab.strings, 24), "sh_offset");
        }

        @Test
        void symbolTableLinkOutOfRange() {
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.symtab.table, 40), 4, 99)), r.sh(r.symtab.table, 40),
                    "names section 99 as its string table");
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.symtab.table, 40), 4, 0)), r.sh(r.symtab.table, 40),
                    "sh_link");
        }

        @Test
        void symbolTableLinkToAnotherKindOfSection() {
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.symtab.table, 40), 4, r.text.index)),
                    r.sh(r.symtab.table, 40), "not 3 (SHT_STRTAB)");
        }

        @Test
        void wrongSymbolEntrySize() {
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.symtab.table, 56), 8, 16)), r.sh(r.symtab.table, 56),
                    "expected 24 (an Elf64_Sym)");
        }

        @Test
        void symbolTableSizeNotAWholeNumberOfEntries() {
            long size = r.symtab.table.size();
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.symtab.table, 32), 8, size - 5)), r.sh(r.symtab.table, 32),
                    "not a whole number of 24-byte entries");
        }

        @Test
        void sectionNamePastTheNameTable() {
            assertAt(loadFails(r.b.patch(r.file, r.sh(r.text, 0), 4, 0x7fff)), r.sh(r.text, 0), "sh_name");
        }

        @Test
        void symbolNamePastTheStringTable() {
            long name = r.symtab.field(3, 0, 0); // api_call
            assertAt(loadFails(r.b.patch(r.file, name, 4, 0x10000)), name, "is not a terminated string");
        }

        @Test
        void symbolNameRunningOffTheStringTable() {
            // The last name in .strtab loses its terminating NUL: "main" runs into the next section.
            long lastByte = r.symtab.strings.offset + r.symtab.strings.size() - 1;
            byte[] lying = r.b.patch(r.file, lastByte, 1, 'x');
            assertAt(loadFails(lying), r.symtab.field(5, 0, 0), "st_name");
        }

        @Test
        void symbolInASectionThatDoesNotExist() {
            long shndx = r.symtab.field(3, 6, 0);
            assertAt(loadFails(r.b.patch(r.file, shndx, 2, 200)), shndx, "is in section 200");
        }

        @Test
        void extendedIndexWithoutItsTable() {
            long shndx = r.symtab.field(3, 6, 0);
            assertAt(loadFails(r.b.patch(r.file, shndx, 2, SHN_XINDEX)), shndx, "no SHT_SYMTAB_SHNDX section");
        }

        @Test
        void extendedIndexTableTooShort() {
            ElfBuilder b = ElfBuilder.elf64le(ET_REL);
            Section text = b.text(".text", 0, 0x40);
            Symbols s = b.symtab();
            Section shndx = s.withExtendedIndices();
            s.extended("f", 0, 0x10, STT_FUNC, STB_GLOBAL, text.index);
            byte[] file = b.build();
            long sizeField = shndx.header(32, 20);
            assertAt(loadFails(b.patch(file, sizeField, 8, 4)), sizeField, "needing 4 bytes each");
        }

        @Test
        void moduleAlignmentThatIsNotAPowerOfTwo() {
            ElfBuilder b = ElfBuilder.elf64le(ET_REL);
            Section text = b.text(".text", 0, 0x40);
            b.symtab().function("f", 0, 0x10, text);
            byte[] file = b.build();
            long align = text.header(48, 32);
            assertAt(loadFails(b.patch(file, align, 8, 3)), align, "not a power of two");
        }

        @Test
        void moduleLayoutPastTheTopOfTheAddressSpace() {
            ElfBuilder b = ElfBuilder.elf64le(ET_REL);
            Section text = b.text(".text", 0, 0x40);
            Section bss = b.nobits(".bss", SHF_ALLOC | SHF_WRITE, 0, 0x10, 8);
            Section late = b.text(".text.late", 0, 0x40);
            b.symtab().function("f", 0, 0x10, late);
            byte[] file = b.build();
            long size = bss.header(32, 20);
            // .text ends at 0x40; .bss then ends 8 bytes below 2^64, so aligning .text.late passes the top.
            assertAt(loadFails(b.patch(file, size, 8, -0x48L)), late.header(32, 20), "top of the 64-bit address space");
            assertTrue(text.index < bss.index);
        }

        @Test
        void buildIdNoteWithALyingNameSize() {
            Rich rich = new Rich();
            long note = rich.buildId.offset;
            byte[] lying = rich.b.patch(rich.file, note, 4, 0x7fffffff);
            SymbolFileException e = assertThrows(SymbolFileException.class,
                    () -> resolver.buildId(Binutils.bytes(FILE, lying)));
            assertAt(e, note, "extends past the end of note section");
        }

        @Test
        void noteSegmentPastTheEndWithoutSections() {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN).withoutSectionHeaders();
            Section note = b.note(".note.gnu.build-id", "GNU", 3, new byte[20], 4);
            b.segmentOver(PT_NOTE, note, 4);
            byte[] file = b.build();
            long filesz = b.phoff + 32;
            SymbolFileException e = assertThrows(SymbolFileException.class,
                    () -> resolver.buildId(Binutils.bytes(FILE, b.patch(file, filesz, 8, 1L << 40))));
            assertAt(e, b.phoff + 8, "note segment");
        }
    }

    @Nested
    class Fuzzed {

        /** Every byte of the small image set to 0x00 and to 0xff in turn: exhaustive over every field. */
        @Test
        void everySingleByteCorruptionOfTheCraftedImageIsAnsweredCleanly() {
            Rich r = new Rich();
            for (int at = 0; at < r.file.length; at++) {
                for (int value : new int[] {0x00, 0xff}) {
                    byte[] corrupt = r.file.clone();
                    corrupt[at] = (byte) value;
                    exercise(corrupt, "byte " + at + " := " + value);
                }
            }
        }

        @Test
        void randomCorruptionsOfTheCraftedImageAreAnsweredCleanly() {
            Rich r = new Rich();
            fuzz(r.file, 0x5eed_0001L, 3000);
        }

        @Test
        void randomCorruptionsOfABigEndian32BitImageAreAnsweredCleanly() {
            ElfBuilder b = new ElfBuilder(false, true, ElfBuilder.ET_EXEC, ElfBuilder.EM_PPC);
            Section text = b.text(".text", 0x10000000L, 0x100);
            b.note(".note.gnu.build-id", "GNU", 3, new byte[20], 4);
            Symbols s = b.symtab();
            s.function("a", 0x10000000L, 0, text);
            s.function("b", 0x10000040L, 0x10, text);
            b.segment(PT_LOAD, 0x10000000L, 0x10000);
            fuzz(b.build(), 0x5eed_0002L, 2000);
        }

        @Test
        void randomCorruptionsOfARealStrippedBinaryAreAnsweredCleanly() throws IOException {
            Binutils.assumeFile(RealImagesTest.LS);
            fuzz(Files.readAllBytes(RealImagesTest.LS), 0x5eed_0003L, 1500);
        }

        private int loaded;
        private int refused;

        private void fuzz(byte[] original, long seed, int iterations) {
            loaded = 0;
            refused = 0;
            Random random = new Random(seed);
            int length = original.length;
            for (int i = 0; i < iterations; i++) {
                byte[] corrupt = original.clone();
                int edits = 1 + random.nextInt(4);
                StringBuilder what = new StringBuilder("seed 0x" + Long.toHexString(seed) + " iteration " + i + ":");
                for (int k = 0; k < edits; k++) {
                    int region = random.nextInt(3);
                    // Headers live at both ends of a real file; the middle is mostly code.
                    int at = region == 0 ? random.nextInt(Math.min(length, 1024))
                            : region == 1 ? length - 1 - random.nextInt(Math.min(length, 4096))
                            : random.nextInt(length);
                    if (random.nextBoolean()) {
                        corrupt[at] ^= (byte) (1 << random.nextInt(8));
                    } else {
                        corrupt[at] = (byte) random.nextInt(256);
                    }
                    what.append(' ').append(at);
                }
                if (random.nextInt(10) == 0) {
                    int cut = random.nextInt(length);
                    corrupt = Arrays.copyOf(corrupt, cut);
                    what.append(" cut ").append(cut);
                }
                exercise(corrupt, what.toString());
            }
            System.out.printf("fuzz seed %x: %d corrupt files loaded, %d refused%n", seed, loaded, refused);
            assertTrue(loaded > 0 && refused > 0, "the corruptions reach both outcomes");
        }

        private void exercise(byte[] corrupt, String what) {
            try {
                SymbolTable table = resolver.load(Binutils.bytes(FILE, corrupt));
                for (int j = 0; j < table.size(); j++) {
                    assertTrue(table.symbolSize(j) != 0, what);
                }
                loaded++;
            } catch (SymbolFileException e) {
                assertClean(e, corrupt, what);
                refused++;
            } catch (Throwable t) {
                fail(what + ": load threw " + t, t);
            }
            try {
                resolver.buildId(Binutils.bytes(FILE, corrupt));
            } catch (SymbolFileException e) {
                assertClean(e, corrupt, what);
            } catch (Throwable t) {
                fail(what + ": buildId threw " + t, t);
            }
            try {
                resolver.loadBase(Binutils.bytes(FILE, corrupt));
            } catch (SymbolFileException e) {
                assertClean(e, corrupt, what);
            } catch (Throwable t) {
                fail(what + ": loadBase threw " + t, t);
            }
        }

        private void assertClean(SymbolFileException e, byte[] corrupt, String what) {
            assertEquals(FILE, e.file(), what);
            assertTrue(e.position() >= 0, () -> what + ": no offset in " + e.getMessage());
            assertTrue(e.getMessage().contains("at offset 0x" + Long.toHexString(e.position())),
                    () -> what + ": " + e.getMessage());
        }
    }
}
