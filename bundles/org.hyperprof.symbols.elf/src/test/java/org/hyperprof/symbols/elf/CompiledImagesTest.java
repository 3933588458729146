package org.hyperprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.symbols.elf.Binutils.ReadelfSection;
import org.hyperprof.symbols.elf.Binutils.ReadelfSymbol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Images compiled with gcc on the spot, for shapes the machine's own files lack: aliases, weak and
 * indirect functions, assembly without a size, PIE versus fixed-address executables, static
 * linking, stripping, separate debug files, a kernel linked at a high address and a kernel-style
 * relocatable module. Compared with {@code readelf} and {@code nm}; skipped when gcc is missing.
 */
class CompiledImagesTest {

    /** A program with each kind of function symbol the rules treat specially. */
    static final String PROGRAM = String.join("\n",
            "int counter;",
            "static __attribute__((noinline)) int helper(int x) { return x * 3 + counter; }",
            "int work(int x) { return helper(x) + 1; }",
            "int work_alias(int x) __attribute__((alias(\"work\")));",
            "__attribute__((weak)) int weakfn(int x) { return x - 1; }",
            "static int impl(int x) { return x + 2; }",
            "static void *resolve_fast(void) { return (void *) impl; }",
            "int fast(int x) __attribute__((ifunc(\"resolve_fast\")));",
            "__asm__(\".text\\n.globl asm_nosize\\n.type asm_nosize,@function\\n"
                    + "asm_nosize:\\n\\tnop\\n\\tnop\\n\\tret\\n\");",
            "int main(void) { return work(1) + weakfn(2) + fast(3); }",
            "");

    /** Kernel-style code: fixed sections for init and exit code, as kernel modules have. */
    static final String KERNEL = String.join("\n",
            "void startup_64(void) { for (;;) { } }",
            "__attribute__((noinline)) int schedule(int x) { return x * 7; }",
            "static __attribute__((noinline)) int helper(int x) { return schedule(x) + 1; }",
            "int do_irq(int x) { return helper(x) ^ 3; }",
            "__attribute__((section(\".init.text\"))) int init_module(void) { return do_irq(1); }",
            "__attribute__((section(\".exit.text\"))) void cleanup_module(void) { }",
            "");

    @TempDir
    Path dir;

    private final ElfResolver resolver = new ElfResolver();

    private SymbolTable loadAndCompare(Path file) throws SymbolFileException {
        SymbolTable table = resolver.load(Binutils.image(file));
        ToolComparison.Counts counts = ToolComparison.compare(file, table);
        System.out.println(file.getFileName() + ": " + counts);
        String expectedId = Binutils.readelfBuildId(file);
        if (expectedId != null) {
            assertEquals(expectedId, resolver.buildId(Binutils.image(file)));
        }
        return table;
    }

    private static int index(SymbolTable table, String name) {
        int i = table.indexOf(name);
        assertTrue(i >= 0, name + " is missing");
        return i;
    }

    @Test
    void positionIndependentExecutableKeepsTheRuleChosenAliasesAndSizes() throws Exception {
        Path prog = Binutils.gcc(dir, PROGRAM, "prog", "-O1", "-fPIE", "-pie", "-Wl,--build-id=sha1");
        SymbolTable table = loadAndCompare(prog);
        // work and work_alias are both GLOBAL: the first in the table wins.
        assertEquals(-1, table.indexOf("work_alias"));
        index(table, "work");
        // fast (GLOBAL IFUNC) and resolve_fast (LOCAL FUNC) share an address: GLOBAL wins.
        assertEquals(-1, table.indexOf("resolve_fast"));
        index(table, "fast");
        index(table, "weakfn");
        // asm_nosize has st_size 0: it runs to the next function.
        int asm = index(table, "asm_nosize");
        assertEquals(table.start(asm + 1) - table.start(asm), table.symbolSize(asm));
        assertNotNull(resolver.buildId(Binutils.image(prog)));
    }

    @Test
    void fixedAddressExecutableIsAbsoluteAndItsLoadBaseIsItsFirstSegment() throws Exception {
        Path prog = Binutils.gcc(dir, PROGRAM, "prog_exec", "-O1", "-no-pie", "-Wl,--build-id=sha1");
        SymbolTable table = loadAndCompare(prog);
        long lowestLoad = lowestLoadAddress(prog);
        assertEquals(lowestLoad, resolver.loadBase(Binutils.image(prog)));
        assertTrue(Long.compareUnsigned(table.start(index(table, "main")), lowestLoad) > 0);
    }

    @Test
    void sharedObjectMatchesTheTools() throws Exception {
        Path lib = Binutils.gcc(dir, PROGRAM, "libprog.so", "-O1", "-shared", "-fPIC");
        loadAndCompare(lib);
        assertEquals(0, resolver.loadBase(Binutils.image(lib)));
    }

    @Test
    void staticExecutableMatchesTheTools() throws Exception {
        Path prog = Binutils.gcc(dir, PROGRAM, "prog_static", "-O1", "-static");
        SymbolTable table = loadAndCompare(prog);
        assertTrue(table.size() > 500, "a static program carries the C library's functions");
    }

    @Test
    void strippedExecutableFallsBackToItsExportedFunctions() throws Exception {
        Path prog = Binutils.gcc(dir, PROGRAM, "prog_exported", "-O1", "-fPIE", "-pie", "-rdynamic");
        assumeTrue(Binutils.tryRun(dir, "strip", "--strip-all", prog.toString()).isPresent(), "strip is missing");
        assertTrue(!Binutils.hasSymtab(prog));
        SymbolTable table = loadAndCompare(prog);
        index(table, "work");
        assertEquals(-1, table.indexOf("helper"), "a local function is not exported");
    }

    @Test
    void separateDebugFileGivesTheSameTableAsTheImage() throws Exception {
        Path prog = Binutils.gcc(dir, PROGRAM, "prog_dbg", "-O1", "-g", "-fPIE", "-pie", "-Wl,--build-id=sha1");
        Path debug = dir.resolve("prog_dbg.debug");
        assumeTrue(Binutils.tryRun(dir, "objcopy", "--only-keep-debug", prog.toString(), debug.toString())
                .isPresent(), "objcopy is missing");
        SymbolTable image = resolver.load(Binutils.image(prog));
        SymbolTable fromDebug = resolver.load(Binutils.image(debug));
        assertEquals(image.size(), fromDebug.size());
        for (int i = 0; i < image.size(); i++) {
            assertEquals(image.start(i), fromDebug.start(i));
            assertEquals(image.symbolSize(i), fromDebug.symbolSize(i));
            assertEquals(image.name(i), fromDebug.name(i));
        }
        assertEquals(resolver.buildId(Binutils.image(prog)), resolver.buildId(Binutils.image(debug)));
    }

    @Test
    void kernelLinkedAtAHighAddressKeepsItsAbsoluteAddresses() throws Exception {
        Path vmlinux = Binutils.gcc(dir, KERNEL, "vmlinux", "-O1", "-nostdlib", "-static", "-no-pie", "-fno-pic",
                "-mcmodel=kernel", "-ffreestanding", "-Wl,-Ttext-segment=0xffffffff81000000", "-Wl,-e,startup_64",
                "-Wl,--build-id=sha1");
        SymbolTable table = loadAndCompare(vmlinux);
        assertEquals(0xffffffff81000000L, resolver.loadBase(Binutils.image(vmlinux)));
        int schedule = index(table, "schedule");
        assertTrue(Long.compareUnsigned(table.start(schedule), 0xffffffff81000000L) > 0);
        assertEquals(schedule, table.lookup(table.start(schedule) + table.symbolSize(schedule) - 1));
    }

    /**
     * A relocatable module: the table's addresses follow the documented layout (allocated sections
     * in section order from 0, each at its alignment), computed here from {@code readelf -S}.
     */
    @Test
    void moduleFunctionsSitAtTheirSectionsLaidOutInOrder() throws Exception {
        Path module = Binutils.gcc(dir, KERNEL, "module.o", "-c", "-O1", "-fno-pic", "-mcmodel=kernel",
                "-ffreestanding", "-ffunction-sections", "-falign-functions=16");
        Map<Integer, Long> base = new HashMap<>();
        long cursor = 0;
        for (ReadelfSection s : Binutils.readelfSections(module)) {
            if (s.allocated()) {
                long align = Math.max(1, s.align());
                cursor = (cursor + align - 1) / align * align;
                base.put(s.index(), cursor);
                cursor += s.size();
            }
        }
        SymbolTable table = resolver.load(Binutils.image(module));
        List<ReadelfSymbol> functions = Binutils.readelfSymbols(module, ".symtab").stream()
                .filter(ReadelfSymbol::isDefinedFunction).toList();
        assertEquals(6, functions.size());
        assertEquals(functions.size(), table.size());
        long[] expectedStarts = new long[functions.size()];
        long[] starts = new long[functions.size()];
        for (int k = 0; k < functions.size(); k++) {
            ReadelfSymbol f = functions.get(k);
            long address = base.get(Integer.parseInt(f.ndx())) + f.value();
            int i = index(table, f.name());
            expectedStarts[k] = address;
            starts[k] = table.start(i);
            assertEquals(f.size(), table.symbolSize(i), f.name());
        }
        assertArrayEquals(expectedStarts, starts);
        assertEquals(0, resolver.loadBase(Binutils.image(module)));
    }

    @Test
    void thirtyTwoBitProgramFromGccMatchesTheTools() throws Exception {
        Path prog = Binutils.gcc(dir, PROGRAM, "prog32", "-m32", "-O1", "-Wl,--build-id=sha1");
        loadAndCompare(prog);
    }

    private static long lowestLoadAddress(Path file) {
        long lowest = -1;
        for (String line : Binutils.run("readelf", "-lW", file.toString())) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 3 && f[0].equals("LOAD")) {
                long vaddr = Long.parseUnsignedLong(f[2].substring(2), 16);
                if (lowest == -1 || Long.compareUnsigned(vaddr, lowest) < 0) {
                    lowest = vaddr;
                }
            }
        }
        return lowest;
    }
}
