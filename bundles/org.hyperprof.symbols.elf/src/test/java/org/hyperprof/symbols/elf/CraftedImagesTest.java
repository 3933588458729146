package org.hyperprof.symbols.elf;

import static org.hyperprof.symbols.elf.ElfBuilder.ET_DYN;
import static org.hyperprof.symbols.elf.ElfBuilder.ET_EXEC;
import static org.hyperprof.symbols.elf.ElfBuilder.ET_REL;
import static org.hyperprof.symbols.elf.ElfBuilder.PT_LOAD;
import static org.hyperprof.symbols.elf.ElfBuilder.PT_NOTE;
import static org.hyperprof.symbols.elf.ElfBuilder.SHF_ALLOC;
import static org.hyperprof.symbols.elf.ElfBuilder.SHF_WRITE;
import static org.hyperprof.symbols.elf.ElfBuilder.SHN_ABS;
import static org.hyperprof.symbols.elf.ElfBuilder.SHN_UNDEF;
import static org.hyperprof.symbols.elf.ElfBuilder.SHT_DYNSYM;
import static org.hyperprof.symbols.elf.ElfBuilder.SHT_PROGBITS;
import static org.hyperprof.symbols.elf.ElfBuilder.STB_GLOBAL;
import static org.hyperprof.symbols.elf.ElfBuilder.STB_LOCAL;
import static org.hyperprof.symbols.elf.ElfBuilder.STB_WEAK;
import static org.hyperprof.symbols.elf.ElfBuilder.STT_FUNC;
import static org.hyperprof.symbols.elf.ElfBuilder.STT_GNU_IFUNC;
import static org.hyperprof.symbols.elf.ElfBuilder.STT_NOTYPE;
import static org.hyperprof.symbols.elf.ElfBuilder.STT_OBJECT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.input.InputTooLargeException;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.InputLimit;
import org.hyperprof.symbols.elf.ElfBuilder.Section;
import org.hyperprof.symbols.elf.ElfBuilder.Symbols;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The resolver's rules on small ELF files written by hand. */
class CraftedImagesTest {

    private static final byte[] BUILD_ID = {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef, 0x01, 0x23, 0x45,
        0x67, (byte) 0x89, (byte) 0xab, (byte) 0xcd, (byte) 0xef, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
    private static final String BUILD_ID_HEX = "deadbeef0123456789abcdef0011223344556677";

    private final ElfResolver resolver = new ElfResolver();

    SymbolTable load(byte[] file) throws SymbolFileException {
        return resolver.load(Binutils.bytes("crafted.elf", file));
    }

    static List<String> names(SymbolTable table) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < table.size(); i++) {
            names.add(table.name(i));
        }
        return names;
    }

    static void assertFunction(SymbolTable table, String name, long start, long size) {
        int i = table.indexOf(name);
        assertTrue(i >= 0, name + " is not in " + names(table));
        assertEquals(start, table.start(i), "start of " + name);
        assertEquals(size, table.symbolSize(i), "size of " + name);
    }

    @Test
    void registersForTheElfFormat() throws IOException {
        assertEquals("elf", resolver.format());
        // @Component is kept in the class file only (bnd turns it into the DS descriptor when packaging).
        try (InputStream in = ElfResolver.class.getResourceAsStream("ElfResolver.class")) {
            String classFile = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertTrue(classFile.contains("Lorg/osgi/service/component/annotations/Component;"));
        }
        // DS registers the component's format statement as its symbols.format property.
        assertEquals("elf", ElfResolver.class.getAnnotation(SymbolResolver.Format.class).value());
    }

    @Nested
    class ClassesAndByteOrders {

        private byte[] image(boolean is64, boolean bigEndian, int machine) {
            ElfBuilder b = new ElfBuilder(is64, bigEndian, ET_EXEC, machine);
            Section text = b.text(".text", 0x10000000L, 0x100);
            b.note(".note.gnu.build-id", "GNU", 3, BUILD_ID, 4);
            Symbols s = b.symtab();
            s.function("start", 0x10000000L, 0x20, text);
            s.function("compute", 0x10000040L, 0x10, text);
            s.add("table", 0x10000080L, 0x40, STT_OBJECT, STB_GLOBAL, text.index);
            b.segment(PT_LOAD, 0x10000000L, 0x10000);
            return b.build();
        }

        @Test
        void elf32BigEndianIsReadField() throws SymbolFileException {
            byte[] file = image(false, true, ElfBuilder.EM_PPC);
            SymbolTable table = load(file);
            assertEquals(List.of("start", "compute"), names(table));
            assertFunction(table, "start", 0x10000000L, 0x20);
            assertFunction(table, "compute", 0x10000040L, 0x10);
            assertEquals(BUILD_ID_HEX, resolver.buildId(Binutils.bytes("be32", file)));
        }

        @Test
        void elf64BigEndianIsRead() throws SymbolFileException {
            SymbolTable table = load(image(true, true, ElfBuilder.EM_PPC64));
            assertFunction(table, "start", 0x10000000L, 0x20);
            assertFunction(table, "compute", 0x10000040L, 0x10);
        }

        @Test
        void elf32LittleEndianIsRead() throws SymbolFileException {
            SymbolTable table = load(image(false, false, ElfBuilder.EM_386));
            assertFunction(table, "start", 0x10000000L, 0x20);
            assertEquals(BUILD_ID_HEX, resolver.buildId(Binutils.bytes("le32", image(false, false, 3))));
        }

        @Test
        void elf64LittleEndianIsRead() throws SymbolFileException {
            SymbolTable table = load(image(true, false, ElfBuilder.EM_X86_64));
            assertEquals(List.of("start", "compute"), names(table));
        }
    }

    @Nested
    class WhichSymbols {

        @Test
        void onlyDefinedNamedFunctionsInSectionsAreKept() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols s = b.symtab();
            s.function("defined", 0x1000, 0x10, text);
            s.add("indirect", 0x1010, 0x10, STT_GNU_IFUNC, STB_GLOBAL, text.index);
            s.add("imported", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF);
            s.add("absolute", 0x1020, 0x10, STT_FUNC, STB_GLOBAL, SHN_ABS);
            s.add("object", 0x1030, 0x10, STT_OBJECT, STB_GLOBAL, text.index);
            s.add("label", 0x1040, 0, STT_NOTYPE, STB_LOCAL, text.index);
            s.add("", 0x1050, 0x10, STT_FUNC, STB_LOCAL, text.index);
            assertEquals(List.of("defined", "indirect"), names(load(b.build())));
        }

        @Test
        void symtabIsPreferredOverDynsym() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols dyn = b.symbols(".dynsym", SHT_DYNSYM, ".dynstr");
            dyn.function("exported", 0x1000, 0x10, text);
            Symbols all = b.symtab();
            all.function("exported", 0x1000, 0x10, text);
            all.add("internal", 0x1040, 0x10, STT_FUNC, STB_LOCAL, text.index);
            assertEquals(List.of("exported", "internal"), names(load(b.build())));
        }

        @Test
        void strippedImageFallsBackToDynsym() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols dyn = b.symbols(".dynsym", SHT_DYNSYM, ".dynstr");
            dyn.function("exported", 0x1000, 0x10, text);
            assertEquals(List.of("exported"), names(load(b.build())));
        }

        @Test
        void fullyStrippedImageIsAnErrorThatNamesTheDebugFile() {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            b.text(".text", 0x1000, 0x100);
            b.note(".note.gnu.build-id", "GNU", 3, BUILD_ID, 4);
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> load(b.build()));
            assertTrue(e.getMessage().contains("neither .symtab nor .dynsym"), e.getMessage());
            assertTrue(e.getMessage().contains("/usr/lib/debug/.build-id/de/adbeef0123456789abcdef0011223344556677.debug"),
                    e.getMessage());
            assertEquals(b.shoff, e.position());
        }

        @Test
        void tableWithoutDefinedFunctionsIsAnError() {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols dyn = b.symbols(".dynsym", SHT_DYNSYM, ".dynstr");
            dyn.add("imported", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF);
            dyn.add("object", 0x1000, 8, STT_OBJECT, STB_GLOBAL, text.index);
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> load(b.build()));
            assertTrue(e.getMessage().contains("holds no defined function symbol"), e.getMessage());
            assertEquals("crafted.elf", e.file());
        }
    }

    @Nested
    class Aliases {

        @Test
        void globalBeatsWeakBeatsLocalThenTheFirstWins() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols s = b.symtab();
            s.add("local_a", 0x1000, 0x10, STT_FUNC, STB_LOCAL, text.index);
            s.add("weak_a", 0x1000, 0x10, STT_FUNC, STB_WEAK, text.index);
            s.add("global_a1", 0x1000, 0x10, STT_FUNC, STB_GLOBAL, text.index);
            s.add("global_a2", 0x1000, 0x10, STT_FUNC, STB_GLOBAL, text.index);
            s.add("local_b", 0x1020, 0x10, STT_FUNC, STB_LOCAL, text.index);
            s.add("weak_b", 0x1020, 0x10, STT_FUNC, STB_WEAK, text.index);
            s.add("local_c1", 0x1040, 0x10, STT_FUNC, STB_LOCAL, text.index);
            s.add("local_c2", 0x1040, 0x10, STT_FUNC, STB_LOCAL, text.index);
            assertEquals(List.of("global_a1", "weak_b", "local_c1"), names(load(b.build())));
        }

        @Test
        void sizeComesFromAnAliasWhenTheKeptSymbolHasNone() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols s = b.symtab();
            s.add("sized_local", 0x1000, 0x18, STT_FUNC, STB_LOCAL, text.index);
            s.add("unsized_global", 0x1000, 0, STT_FUNC, STB_GLOBAL, text.index);
            s.function("next", 0x1080, 0x10, text);
            assertFunction(load(b.build()), "unsized_global", 0x1000, 0x18);
        }

        @Test
        void unsortedSymbolsComeOutInAscendingOrder() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols s = b.symtab();
            s.function("c", 0x1080, 0x10, text);
            s.function("a", 0x1000, 0x10, text);
            s.function("b", 0x1040, 0x10, text);
            assertEquals(List.of("a", "b", "c"), names(load(b.build())));
        }
    }

    @Nested
    class ZeroSizes {

        @Test
        void zeroSizeFunctionRunsToTheNextFunction() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols s = b.symtab();
            s.function("asm_entry", 0x1000, 0, text);
            s.add("data_label", 0x1008, 0, STT_NOTYPE, STB_LOCAL, text.index);
            s.function("next", 0x1030, 0x10, text);
            assertFunction(load(b.build()), "asm_entry", 0x1000, 0x30);
        }

        @Test
        void zeroSizeFunctionStopsAtTheEndOfItsSection() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section init = b.text(".init", 0x1000, 0x1b);
            Section text = b.text(".text", 0x1100, 0x100);
            Symbols s = b.symtab();
            s.function("_init", 0x1000, 0, init);
            s.function("main", 0x1100, 0x40, text);
            SymbolTable table = load(b.build());
            assertFunction(table, "_init", 0x1000, 0x1b);
            assertEquals(-1, table.lookup(0x101b));
        }

        @Test
        void zeroSizeFunctionAtTheEndOfItsSectionIsLeftOut() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x40);
            Symbols s = b.symtab();
            s.function("main", 0x1000, 0x40, text);
            s.function("text_end", 0x1040, 0, text);
            assertEquals(List.of("main"), names(load(b.build())));
        }

        @Test
        void sizedFunctionKeepsItsSizeEvenPastTheNextFunction() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            Section text = b.text(".text", 0x1000, 0x100);
            Symbols s = b.symtab();
            s.function("outer", 0x1000, 0x80, text);
            s.function("inner", 0x1040, 0x10, text);
            SymbolTable table = load(b.build());
            assertFunction(table, "outer", 0x1000, 0x80);
            assertEquals("outer", table.name(table.lookup(0x1030)));
            assertEquals("inner", table.name(table.lookup(0x1048)));
        }
    }

    @Nested
    class KernelsAndModules {

        @Test
        void kernelImageKeepsItsHighAbsoluteAddressesInUnsignedOrder() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_EXEC);
            Section head = b.text(".head.text", 0x1000, 0x100);
            Section text = b.text(".text", 0xffffffff81000000L, 0x1000);
            Symbols s = b.symtab();
            s.function("schedule", 0xffffffff81000800L, 0x200, text);
            s.function("startup_64", 0xffffffff81000000L, 0x100, text);
            s.function("percpu_stub", 0x1000, 0x10, head);
            SymbolTable table = load(b.build());
            assertEquals(List.of("percpu_stub", "startup_64", "schedule"), names(table));
            assertEquals("schedule", table.name(table.lookup(0xffffffff810009ffL)));
            assertEquals(-1, table.lookup(0xffffffff81000a00L));
        }

        @Test
        void moduleSectionsAreLaidOutInSectionOrderFromZeroAtTheirAlignment() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_REL);
            Section text = b.text(".text", 0, 0x30);
            Section init = b.text(".init.text", 0, 0x11);
            Section data = b.section(".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0, new byte[8], 8);
            Section comment = b.section(".comment", SHT_PROGBITS, 0, 0, new byte[0x20], 1);
            Section bss = b.nobits(".bss", SHF_ALLOC | SHF_WRITE, 0, 0x100, 64);
            Section exit = b.text(".exit.text", 0, 0x10);
            Symbols s = b.symtab();
            s.function("e1000_probe", 0, 0x20, text);
            s.function("e1000_intr", 0x20, 0x10, text);
            s.function("init_module", 0, 0x11, init);
            s.function("cleanup_module", 4, 0xc, exit);
            s.function("not_loaded", 0, 0x10, comment);
            s.add("e1000_driver", 0, 8, STT_OBJECT, STB_LOCAL, data.index);
            s.add("counters", 0, 0x100, STT_OBJECT, STB_LOCAL, bss.index);
            SymbolTable table = load(b.build());
            // .text at 0, .init.text at 0x30, .data at 0x48 (8-aligned), .bss at 0x80 (64-aligned), .exit.text at 0x180
            assertEquals(List.of("e1000_probe", "e1000_intr", "init_module", "cleanup_module"), names(table));
            assertFunction(table, "e1000_intr", 0x20, 0x10);
            assertFunction(table, "init_module", 0x30, 0x11);
            assertFunction(table, "cleanup_module", 0x184, 0xc);
            long moduleLoadAddress = 0xffffffffa0000000L; // the bias a caller gives for the module
            long pc = moduleLoadAddress + 0x188;
            assertEquals("cleanup_module", table.name(table.lookup(pc - moduleLoadAddress)));
            assertEquals(0, resolver.loadBase(Binutils.bytes("e1000.ko", b.build())));
        }

        @Test
        void moduleFunctionsOutsideLoadedSectionsAreLeftOut() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_REL);
            Section text = b.text(".text", 0, 0x30);
            Section debug = b.section(".debug_stub", SHT_PROGBITS, 0, 0, new byte[0x10], 1);
            Symbols s = b.symtab();
            s.function("loaded", 0, 0x30, text);
            s.function("unloaded", 0, 0x10, debug);
            assertEquals(List.of("loaded"), names(load(b.build())));
        }
    }

    @Nested
    class ExtendedSectionIndices {

        @Test
        void xindexSymbolTakesItsSectionFromTheShndxTable() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_REL);
            Section first = b.text(".text", 0, 0x40);
            Section second = b.text(".text.hot", 0, 0x20);
            Symbols s = b.symtab();
            s.withExtendedIndices();
            s.function("cold", 0, 0x40, first);
            s.extended("hot", 0x8, 0x10, STT_FUNC, STB_GLOBAL, second.index);
            SymbolTable table = load(b.build());
            assertFunction(table, "hot", 0x48, 0x10);
        }

        @Test
        void moreThan65279SectionsUseTheEscapesInSectionZero() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_REL);
            for (int i = 0; i < 0xff00; i++) {
                b.section("", SHT_PROGBITS, 0, 0, new byte[0], 1);
            }
            Section text = b.text(".text.f", 0, 0x40);
            assertTrue(text.index >= 0xff00);
            Symbols s = b.symtab();
            s.withExtendedIndices();
            s.extended("far_away", 0x10, 0x20, STT_FUNC, STB_GLOBAL, text.index);
            byte[] file = b.build();
            assertTrue(b.shstrndx >= 0xff00, "the name table's index needs the escape too");
            SymbolTable table = load(file);
            assertFunction(table, "far_away", 0x10, 0x20);
        }

        @Test
        void smallFileMayUseTheEscapesToo() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN).extendedNumbering();
            Section text = b.text(".text", 0x1000, 0x40);
            b.symtab().function("main", 0x1000, 0x40, text);
            assertEquals(List.of("main"), names(load(b.build())));
        }
    }

    @Nested
    class PowerPc64Descriptors {

        private Symbols symbols;

        private ElfBuilder ppc64(long abiFlags) {
            ElfBuilder b = new ElfBuilder(true, true, ET_EXEC, ElfBuilder.EM_PPC64).flags(abiFlags);
            Section text = b.text(".text", 0x10000000L, 0x100);
            ByteBuffer descriptors = b.buffer(48);
            descriptors.putLong(0x10000000L).putLong(0x10008000L).putLong(0);
            descriptors.putLong(0x10000040L).putLong(0x10008000L).putLong(0);
            Section opd = b.section(".opd", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x10020000L, descriptors.array(), 8);
            Symbols s = b.symtab();
            symbols = s;
            s.add("plain", 0x10020000L, 24, STT_FUNC, STB_GLOBAL, opd.index);
            s.add(".dotted", 0x10000040L, 0x20, STT_FUNC, STB_GLOBAL, text.index);
            s.add("dotted", 0x10020018L, 24, STT_FUNC, STB_GLOBAL, opd.index);
            return b;
        }

        @Test
        void elfV1DescriptorSymbolsResolveToTheirEntryPoint() throws SymbolFileException {
            SymbolTable table = load(ppc64(1).build());
            assertEquals(List.of("plain", ".dotted"), names(table));
            assertFunction(table, "plain", 0x10000000L, 0x40);
            assertFunction(table, ".dotted", 0x10000040L, 0x20);
        }

        @Test
        void unspecifiedAbiVersionIsElfV1() throws SymbolFileException {
            assertFunction(load(ppc64(0).build()), "plain", 0x10000000L, 0x40);
        }

        @Test
        void descriptorOutsideOpdIsAnErrorAtItsValue() {
            ElfBuilder b = ppc64(1);
            byte[] file = b.build();
            long valueField = symbols.field(1, 8, 4); // "plain"
            byte[] lying = b.patch(file, valueField, 8, 0x10030000L);
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> load(lying));
            assertEquals(valueField, e.position());
            assertTrue(e.getMessage().contains("is not inside [2] .opd"), e.getMessage());
        }
    }

    @Nested
    class BuildId {

        @Test
        void buildIdIsFoundAfterAnEightAlignedPropertyNote() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            b.note(".note.gnu.property", "GNU", 5, new byte[16], 8);
            b.note(".note.gnu.build-id", "GNU", 3, BUILD_ID, 4);
            b.symtab().function("main", 0x1000, 0x10, b.text(".text", 0x1000, 0x10));
            assertEquals(BUILD_ID_HEX, resolver.buildId(Binutils.bytes("x", b.build())));
        }

        @Test
        void onlyTheGnuOwnersType3IsTheBuildId() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            b.note(".note.other", "XEN", 3, new byte[] {1, 2, 3, 4}, 4);
            b.note(".note.abi", "GNU", 1, new byte[16], 4);
            assertNull(resolver.buildId(Binutils.bytes("x", b.build())));
        }

        @Test
        void buildIdIsFoundThroughPtNoteWhenSectionHeadersAreGone() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN).withoutSectionHeaders();
            Section note = b.note(".note.gnu.build-id", "GNU", 3, BUILD_ID, 4);
            b.segmentOver(PT_NOTE, note, 4);
            byte[] file = b.build();
            assertEquals(BUILD_ID_HEX, resolver.buildId(Binutils.bytes("x", file)));
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> load(file));
            assertTrue(e.getMessage().contains("no section header table"), e.getMessage());
        }
    }

    @Nested
    class LoadBase {

        private long loadBase(int type, long[][] loads) throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(type);
            for (long[] load : loads) {
                b.segment(PT_LOAD, load[0], load[1]);
            }
            return resolver.loadBase(Binutils.bytes("x", b.build()));
        }

        @Test
        void sharedObjectLinkedAtZeroHasLoadBaseZero() throws SymbolFileException {
            assertEquals(0, loadBase(ET_DYN, new long[][] {{0, 0x1000}, {0x3000, 0x1000}}));
        }

        @Test
        void executableLoadBaseIsItsFirstSegmentSoItsBiasIsZero() throws SymbolFileException {
            assertEquals(0x400000, loadBase(ET_EXEC, new long[][] {{0x400000, 0x1000}, {0x401000, 0x1000}}));
        }

        @Test
        void loadBaseIsAlignedDownToTheSegmentsAlignment() throws SymbolFileException {
            assertEquals(0x401000, loadBase(ET_EXEC, new long[][] {{0x401234, 0x1000}}));
            assertEquals(0x401234, loadBase(ET_EXEC, new long[][] {{0x401234, 0}}));
        }

        @Test
        void loadBaseIsTheLowestSegmentWhateverTheOrder() throws SymbolFileException {
            assertEquals(0x10000, loadBase(ET_DYN, new long[][] {{0x20000, 0x1000}, {0x10000, 0x1000}}));
        }

        @Test
        void imageWithoutLoadSegmentIsAnError() {
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> loadBase(ET_DYN, new long[0][]));
            assertTrue(e.getMessage().contains("no PT_LOAD segment"), e.getMessage());
            assertEquals(0x20, e.position());
        }
    }

    @Nested
    class Sources {

        @Test
        void otherFormatIsRefused() {
            ImageSource text = new ImageSource("vmlinux", "kallsyms", "System.map", () -> InputStream.nullInputStream());
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> resolver.load(text));
            assertTrue(e.getMessage().contains("'kallsyms'"), e.getMessage());
            assertEquals("System.map", e.file());
        }

        @Test
        void missingResourceIsAnError() {
            ImageSource missing = new ImageSource("x", "elf", "nowhere.so", () -> null);
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> resolver.load(missing));
            assertTrue(e.getMessage().contains("cannot be opened"), e.getMessage());
        }

        @Test
        void unreadableFileIsAnErrorWithItsCause() {
            ImageSource broken = new ImageSource("x", "elf", "broken.so", () -> {
                throw new IOException("disk on fire");
            });
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> resolver.load(broken));
            assertTrue(e.getMessage().contains("disk on fire"), e.getMessage());
            assertTrue(e.getCause() instanceof IOException);
        }

        @Test
        void aStreamAboveTheReadLimitIsRefusedNamingTheLimitAndTheSetting() {
            ElfResolver small = new ElfResolver(new InputLimit("ELF image", 4096, "max.read.mb of PID "
                    + ElfResolver.PID + " in Configuration Admin"));
            SymbolFileException e = assertThrows(SymbolFileException.class,
                    () -> small.load(Binutils.bytes("huge.so", new byte[4097])));
            assertTrue(e.getMessage().startsWith("huge.so: holds more than 4096 bytes, the most Hyperprof reads of an"
                    + " ELF image; check that it is the file you meant, or raise the limit (max.read.mb of PID"
                    + " org.hyperprof.symbols.elf in Configuration Admin)"), e.getMessage());
            assertInstanceOf(InputTooLargeException.class, e.getCause());
        }

        @Test
        void fileExactlyAtTheSizeLimitIsRead() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            b.symtab().function("main", 0x1000, 0x10, b.text(".text", 0x1000, 0x10));
            byte[] file = b.build();
            assertEquals(List.of("main"),
                    names(new ElfResolver(new InputLimit("ELF image", file.length, "-")).load(Binutils.bytes("x", file))));
        }

        /** The stream's own count of what is left only sizes the buffer: too high, too low or none, the same table. */
        @Test
        void aStreamThatMiscountsWhatIsLeftStillReadsWhole() throws SymbolFileException {
            ElfBuilder b = ElfBuilder.elf64le(ET_DYN);
            b.symtab().function("main", 0x1000, 0x10, b.text(".text", 0x1000, 0x10));
            byte[] file = b.build();
            for (int claimed : new int[] {0, 1, file.length - 1, file.length, file.length + 1, 10 * file.length}) {
                ImageSource source = new ImageSource("x", "elf", "x.so", () -> new java.io.ByteArrayInputStream(file) {
                    @Override
                    public synchronized int available() {
                        return claimed;
                    }
                });
                assertEquals(List.of("main"), names(resolver.load(source)), "available() = " + claimed);
            }
        }
    }
}
