package org.hyperprof.symbols.elf;

import static org.hyperprof.symbols.elf.ElfBuilder.ET_EXEC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.input.InputTooLargeException;
import org.hyperprof.api.input.NotAFileException;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.InputLimit;
import org.hyperprof.input.SymbolFiles;
import org.hyperprof.symbols.elf.ElfBuilder.Section;
import org.hyperprof.symbols.elf.ElfBuilder.Symbols;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the resolver reads of large images, and its ceiling. A file is read where the table needs
 * it, so its memory follows the symbols, not the file; what claims more than the ceiling is refused
 * before memory is taken for it. The 600 MB vmlinux is a sparse file: its debug information is a
 * hole that costs no disk and no time.
 */
class LargeImagesTest {

    private static final long KERNEL_TEXT = 0xffffffff81000000L;
    private static final long MB = 1 << 20;

    private final ElfResolver resolver = new ElfResolver();

    /** A vmlinux with {@code debugBytes} of debug information before its symbol table, as the linker lays one out. */
    private static ElfBuilder vmlinux(long debugBytes) {
        ElfBuilder b = ElfBuilder.elf64le(ET_EXEC);
        Section text = b.text(".text", KERNEL_TEXT, 0x3000);
        b.hole(".debug_info", debugBytes);
        Symbols symtab = b.symtab();
        symtab.function("_stext", KERNEL_TEXT, 0x1000, text);
        symtab.function("schedule", KERNEL_TEXT + 0x1000, 0x1000, text);
        symtab.function("do_idle", KERNEL_TEXT + 0x2000, 0x1000, text);
        return b;
    }

    @Test
    void a600MbVmlinuxWithDebugInformationLoadsUnderTheDefaultCeilingReadingOnlyItsSymbols(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("vmlinux-6.1.0-debug");
        long length = vmlinux(600 * MB).writeSparse(file);
        assertTrue(length > 600 * MB);

        long before = allocated();
        SymbolTable table = resolver.load(SymbolFiles.source("vmlinux", "elf", file));
        long allocated = allocated() - before;

        assertEquals(List.of("_stext", "schedule", "do_idle"), names(table));
        assertEquals(1, table.lookup(KERNEL_TEXT + 0x1800));
        // The file header's block and the last blocks (symbols, strings, section headers): well under 1 MB.
        assertTrue(allocated < MB, "loading the symbols of a 600 MB vmlinux allocated " + allocated + " bytes");
    }

    @Test
    void theJdksLibjvmLoadsUnderTheDefaultCeilingReadingItsSymbolsNotItsCode() throws Exception {
        Path libjvm = RealImagesTest.LIBJVM;
        Binutils.assumeFile(libjvm);
        SymbolTable warm = resolver.load(SymbolFiles.source("libjvm.so", "elf", libjvm)); // classes loaded

        long before = allocated();
        SymbolTable fromFile = resolver.load(SymbolFiles.source("libjvm.so", "elf", libjvm));
        long allocated = allocated() - before;
        SymbolTable fromStream = resolver.load(Binutils.stream(libjvm));

        assertTrue(fromFile.size() > 10_000, fromFile.toString());
        assertEquals(rows(fromStream), rows(fromFile), "read through its channel or as a stream, the same table");
        assertEquals(rows(warm), rows(fromFile));
        // What the table needs is .symtab and .strtab, a sixth of the file: memory follows them (the
        // blocks read, the names kept, the entries' columns), and the code and data are never read.
        long symbols = Binutils.readelfSections(libjvm).stream()
                .filter(s -> s.name().equals(".symtab") || s.name().equals(".strtab"))
                .mapToLong(Binutils.ReadelfSection::size).sum();
        long size = Files.size(libjvm);
        assertTrue(symbols > 0 && symbols < size / 4, symbols + " bytes of symbols in " + size);
        assertTrue(allocated < 4 * symbols, "loading libjvm.so (" + size + " bytes, " + symbols + " of them"
                + " .symtab and .strtab) allocated " + allocated + " bytes");
    }

    @Test
    void aSymbolTableThatClaimsMoreThanTheCeilingIsRefusedBeforeMemoryIsTakenForIt(@TempDir Path dir)
            throws Exception {
        // A symbol table of 600 MB of (empty) entries: what a corrupt or hostile sh_size can claim.
        ElfBuilder b = ElfBuilder.elf64le(ET_EXEC);
        b.text(".text", KERNEL_TEXT, 0x1000);
        Section strings = b.section(".strtab", ElfBuilder.SHT_STRTAB, 0, 0, new byte[] {0}, 1);
        Section table = b.hole(".symtab", 600 * MB);
        table.type = ElfBuilder.SHT_SYMTAB;
        table.entsize = 24;
        table.addralign = 8;
        table.link = strings.index;
        Path file = dir.resolve("vmlinux-lying");
        b.writeSparse(file);
        ElfResolver ceiling = new ElfResolver(64);

        long before = allocated();
        SymbolFileException e = assertThrows(SymbolFileException.class,
                () -> ceiling.load(SymbolFiles.source("vmlinux", "elf", file)));
        long allocated = allocated() - before;

        assertEquals(file + ": holds more than 64 MiB, the most Hyperprof reads of an ELF image; check that it is"
                + " the file you meant, or raise the limit (max.read.mb of PID org.hyperprof.symbols.elf in"
                + " Configuration Admin)", e.getMessage());
        assertInstanceOf(InputTooLargeException.class, e.getCause());
        assertTrue(allocated < 80 * MB, "refusing a 600 MB symbol table under a 64 MiB ceiling allocated "
                + allocated + " bytes");
    }

    @Test
    void aStreamIsReadWholeWithinTheCeiling() throws Exception {
        byte[] image = vmlinux(16).build();
        ElfResolver exact = new ElfResolver(new InputLimit("ELF image", image.length, "-"));
        assertEquals(List.of("_stext", "schedule", "do_idle"), names(exact.load(Binutils.bytes("vmlinux", image))));
        ElfResolver below = new ElfResolver(new InputLimit("ELF image", image.length - 1, "-"));
        SymbolFileException e = assertThrows(SymbolFileException.class,
                () -> below.load(Binutils.bytes("vmlinux", image)));
        assertInstanceOf(InputTooLargeException.class, e.getCause());
    }

    @Test
    void aDeviceOrADirectoryGivenAsAnImageIsRefusedNamingItAndWhatToDo(@TempDir Path dir) {
        SymbolFileException device = assertThrows(SymbolFileException.class,
                () -> resolver.load(SymbolFiles.source("vmlinux", "elf", Path.of("/dev/zero"))));
        assertTrue(device.getMessage().startsWith("/dev/zero: is a character device, not a regular file"),
                device.getMessage());
        assertInstanceOf(NotAFileException.class, device.getCause());
        SymbolFileException folder = assertThrows(SymbolFileException.class,
                () -> resolver.load(SymbolFiles.source("vmlinux", "elf", dir)));
        assertTrue(folder.getMessage().startsWith(dir + ": is a directory, not a regular file"), folder.getMessage());
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static List<String> names(SymbolTable t) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < t.size(); i++) {
            out.add(t.name(i));
        }
        return out;
    }

    private static List<String> rows(SymbolTable t) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < t.size(); i++) {
            out.add(Long.toHexString(t.start(i)) + " " + t.symbolSize(i) + " " + t.name(i));
        }
        return out;
    }
}
