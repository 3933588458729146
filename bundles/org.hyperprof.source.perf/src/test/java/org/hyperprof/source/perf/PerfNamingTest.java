package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.symbols.elf.ElfResolver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The names perf gives where a resolver's table names an address otherwise: aliases ranked as perf
 * ranks them, assembly labels, PLT stubs, and zero-size symbols stretched to the next symbol.
 */
class PerfNamingTest {

    @TempDir
    Path dir;

    private static SymbolTable table(Path file) throws Exception {
        return new ElfResolver().load(new org.hyperprof.api.symbols.ImageSource(file.toString(), "elf",
                file.toString(), () -> Files.newInputStream(file)));
    }

    private static String perfName(String[] names, SymbolTable t, long address) {
        int i = t.lookup(address);
        return names != null && names[i] != null ? names[i] : t.name(i);
    }

    @Test
    void ofElfAliasesPerfPrefersNonWeakThenGlobalThenFewerUnderscoresThenTheLongerName() throws Exception {
        Path f = new TinyElf()
                .function("getppid", 0x401000, 8, TinyElf.WEAK)
                .function("__GI_getppid", 0x401000, 8, TinyElf.LOCAL)
                .function("__getppid", 0x401000, 8, TinyElf.LOCAL)
                .function("__GI___getppid", 0x401000, 8, TinyElf.LOCAL)
                .function("malloc", 0x401100, 8, TinyElf.GLOBAL)
                .function("__libc_malloc", 0x401100, 8, TinyElf.GLOBAL)
                .function("_alias", 0x401200, 8, TinyElf.GLOBAL)
                .function("__alias", 0x401200, 8, TinyElf.GLOBAL)
                .function("first", 0x401300, 8, TinyElf.GLOBAL)
                .function("other", 0x401300, 8, TinyElf.GLOBAL)
                .function("sized", 0x401400, 8, TinyElf.LOCAL)
                .function("unsized", 0x401400, 0, TinyElf.GLOBAL)
                .write(dir.resolve("libc.so"));
        SymbolTable t = table(f);
        String[] names = PerfNaming.elfNames(f, t);
        assertEquals("__GI___getppid", perfName(names, t, 0x401000), "locals beat the weak one; the longest wins");
        assertEquals("malloc", perfName(names, t, 0x401100), "fewer leading underscores");
        assertEquals("_alias", perfName(names, t, 0x401200));
        assertEquals("first", perfName(names, t, 0x401300), "equal in every way: the first in the table");
        assertEquals("sized", perfName(names, t, 0x401400), "a symbol that covers bytes beats one that does not");
    }

    @Test
    void ofKallsymsAliasesTheLastLineNamesTheAddress() throws Exception {
        String text = "ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff81000100 t __do_sys_x\n"
                + "ffffffff81000100 T __x64_sys_x\nffffffff81000200 T alone\n";
        SymbolTable t = new org.hyperprof.symbols.kallsyms.KallsymsResolver().load(
                new org.hyperprof.api.symbols.ImageSource("k", "kallsyms", "k", () -> new java.io.ByteArrayInputStream(
                        text.getBytes(StandardCharsets.US_ASCII))));
        String[] names = PerfNaming.kallsymsNames(text.getBytes(StandardCharsets.US_ASCII), t);
        assertEquals("_text", perfName(names, t, 0xffffffff81000000L));
        assertEquals("__x64_sys_x", perfName(names, t, 0xffffffff81000100L));
        assertNull(names[t.lookup(0xffffffff81000200L)], "no alias: the table's name stands");
        assertEquals(0xffffffff81000000L, PerfNaming.kallsymsAddress(text.getBytes(StandardCharsets.US_ASCII),
                "_text"), "the relocation reference is found even when the table dropped it as an alias");
    }

    @Test
    void ofKallsymsOnlyTextLinesMakeRunsAndOtherLinesBetweenThemDoNotEndOne() throws Exception {
        String text = "ffffffff81000100 T first\nffffffff81000100 D data_between\nffffffff81000100 W last_text\n"
                + "ffffffff81000200 T solo\nffffffff81000200 d not_text\nffffffff81000300 t mod_a\t[mod]\n"
                + "ffffffff81000300 t mod_b\t[mod]";
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        PerfNaming.KallsymsRuns runs = PerfNaming.kallsymsRuns(bytes);
        assertEquals(2, runs.count, "0x100 (two text lines) and 0x300 (two); 0x200 has one text line");
        assertEquals(0xffffffff81000100L, runs.address[0]);
        assertEquals("last_text", new String(bytes, runs.nameStart[0], runs.nameEnd[0] - runs.nameStart[0],
                StandardCharsets.US_ASCII));
        assertEquals("mod_b", new String(bytes, runs.nameStart[1], runs.nameEnd[1] - runs.nameStart[1],
                StandardCharsets.US_ASCII), "a module's name ends at the tab before its [module]");
    }

    @Test
    void pltStubsAreNamedAfterTheirRelocationsInOrder() throws Exception {
        Path f = new TinyElf().function("main", 0x401000, 0x40, TinyElf.GLOBAL).plt("strcmp").plt("memset")
                .write(dir.resolve("prog"));
        SymbolTable plt = PerfNaming.pltSymbols(f, "prog");
        assertEquals(2, plt.size());
        assertEquals("strcmp@plt", plt.name(plt.lookup(TinyElf.PLT_ADDR + 16)), "after the 16-byte PLT header");
        assertEquals("memset@plt", plt.name(plt.lookup(TinyElf.PLT_ADDR + 32 + 15)));
        assertEquals(-1, plt.lookup(TinyElf.PLT_ADDR + 8), "the header itself names nothing");
    }

    /** perf names an image's PLT stubs only when it gave perf a symbol; a label in code is one. */
    @Test
    void aLabelInCodeCountsAsASymbolForNamingPltStubsAndAnImageWithNoSymbolHasNone() throws Exception {
        Path labelOnly = new TinyElf().label("_dl_start_user", 0x401020).plt("strcmp").write(dir.resolve("labels"));
        Path bare = new TinyElf().plt("strcmp").write(dir.resolve("bare"));
        Path withFunction = new TinyElf().function("main", 0x401000, 0x40, TinyElf.GLOBAL).plt("strcmp")
                .write(dir.resolve("with-function"));
        assertTrue(PerfNaming.loadsAnySymbol(labelOnly), "a label in .text");
        assertFalse(PerfNaming.loadsAnySymbol(bare), "no symbol at all");
        assertTrue(PerfNaming.loadsAnySymbol(withFunction), "a function");
    }

    @Test
    void labelsReachToTheNextSymbolAndStandWhereNoFunctionCoversAnAddress() throws Exception {
        Path f = new TinyElf().function("_start", 0x401000, 0x10, TinyElf.GLOBAL).label("_dl_start_user", 0x401020)
                .function("after", 0x401080, 0x10, TinyElf.GLOBAL).write(dir.resolve("ld.so"));
        SymbolTable t = table(f);
        SymbolTable labels = PerfNaming.labels(f, t, "ld.so");
        int i = labels.lookup(0x401050);
        assertEquals("_dl_start_user", labels.name(i));
        assertEquals(0x60, labels.symbolSize(i), "up to the next symbol, the function at 0x401080");
    }

    @Test
    void importedSamplesTakePerfsNamesForAliasesStubsLabelsAndStretchedSymbols() throws Exception {
        Path f = new TinyElf().function("getppid", 0x401000, 8, TinyElf.WEAK)
                .function("__GI___getppid", 0x401000, 8, TinyElf.LOCAL)
                .label("trampoline", 0x401200)
                .function("mid", 0x401300, 0x10, TinyElf.GLOBAL)
                .function("_fini", 0x401f80, 0, TinyElf.GLOBAL)
                .plt("strcmp").write(dir.resolve("prog"));
        long base = 0x555500000000L;
        PerfDataWriter w = new PerfDataWriter().attr(new Attr().sampleType(IP | TID | TIME));
        w.comm(5, "prog", 0).mmap2(2, 5, base, 0x2000, 0x1000, f.toString(), 0);
        long[] offsets = {0x1004, 0x2010, 0x1210, 0x1f90, 0x2004};
        for (int k = 0; k < offsets.length; k++) {
            w.sample(new Sample(2, base + offsets[k] - 0x1000, 5, k + 1));
        }
        Path empty = Files.createDirectories(dir.resolve("e"));
        List<String> names = new ArrayList<>();
        try (PerfDataReader r = PerfDataReader.open(w.writeFile(dir, "n.data"))) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withSymbolDirs(empty, empty,
                    empty), false);
            imp.tap(batch -> {
                SessionDictionary d = imp.dictionary();
                for (int i = 0; i < batch.size; i++) {
                    names.add(batch.symbol[i] < 0 ? "?" : d.symbolName(batch.symbol[i]));
                }
            });
            imp.run(r, null, "perf.data", null, false);
        }
        // _fini has no size and is the last symbol: perf stretches it to the end of the next page
        // before it adds the PLT stubs there, and its tree then meets _fini before strcmp@plt.
        String[] expected = {"__GI___getppid", "_fini", "trampoline", "_fini", "_fini"};
        assertArrayEquals(expected, names.toArray());
        if (PerfTool.perfInstalled()) {
            List<String> perf = new ArrayList<>();
            for (String line : PerfTool.run(List.of("perf", "script", "-i", dir.resolve("n.data").toString(), "-F",
                    "ip,sym"), null).split("\n")) {
                if (!line.isBlank()) {
                    perf.add(line.strip().split(" ", 2)[1]);
                }
            }
            assertArrayEquals(expected, perf.toArray(), "perf script on the same file");
        }
    }
}
