package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.input.SymbolFiles;
import org.hyperprof.pipeline.Dictionary;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How an import turns perf's records into Hyperprof's model: cpumode into domain and mode,
 * callchain markers into the mode of the frames after them, MMAP/FORK into each process's maps,
 * file offsets into link-time addresses, kernels into kallsyms symbols.
 */
class ImportRulesTest {

    static final long KERNEL_MARK = -128L;
    static final long USER_MARK = -512L;
    static final long GUEST_KERNEL_MARK = -2176L;
    static final long K_TEXT = 0xffffffff81000000L;
    static final long LIB_START = 0x7f0000002000L;

    @TempDir
    Path dir;
    Path kallsyms;
    Path lib;
    ImportOptions options;

    @BeforeEach
    void files() throws Exception {
        kallsyms = Files.writeString(dir.resolve("kallsyms"), String.join("\n",
                "ffffffff81000000 T _stext",
                "ffffffff81000000 T _text",
                "ffffffff81000100 T do_syscall_64",
                "ffffffff81000200 t __do_sys_getppid",
                "ffffffff81000200 T __ia32_sys_getppid",
                "ffffffff81000200 T __x64_sys_getppid",
                "ffffffff81000300 T entry_SYSCALL_64",
                "ffffffff81001000 D _etext",
                "ffffffffc0001000 t e1000_intr\t[e1000]",
                "ffffffffc0001100 t e1000_clean\t[e1000]", ""));
        lib = new TinyElf().function("work", 0x401100, 0x40, TinyElf.GLOBAL).function("main", 0x401200, 0x80,
                TinyElf.GLOBAL).write(dir.resolve("libwork.so"));
        Path empty = Files.createDirectories(dir.resolve("empty"));
        options = ImportOptions.defaults().withKallsyms(kallsyms).withSymbolDirs(empty, empty, empty);
    }

    /** One sample as "domain mode image:symbol <- image:symbol ...". */
    record Seen(int domain, int mode, String frame, List<String> callers) {
    }

    private PerfImport.Result run(PerfDataWriter w, ImportOptions opt, List<Seen> seen) throws Exception {
        Path f = w.writeFile(dir, "t.data");
        try (PerfDataReader r = PerfDataReader.open(f)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), opt, true);
            imp.tap(batch -> {
                SessionDictionary d = imp.dictionary();
                for (int i = 0; i < batch.size; i++) {
                    List<String> callers = new ArrayList<>();
                    for (int c = batch.chainStart[i]; c < batch.chainStart[i + 1]; c++) {
                        callers.add(name(d, batch.chainImage[c], batch.chainSymbol[c]));
                    }
                    seen.add(new Seen(batch.domain[i], batch.mode[i], name(d, batch.image[i], batch.symbol[i]),
                            callers));
                }
            });
            return imp.run(r, null, "perf.data", null, false);
        }
    }

    private static String name(SessionDictionary d, int image, int symbol) {
        return d.imageName(image) + ":" + (symbol < 0 ? "?" : d.symbolName(symbol));
    }

    private PerfDataWriter withMaps() {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.mmap(1, -1, K_TEXT, 0x1000000, K_TEXT, "[kernel.kallsyms]_text", 0);
        w.comm(10, "work", 0).mmap2(2, 10, LIB_START, 0x2000, 0x1000, lib.toString(), 0);
        return w;
    }

    @Test
    void aTappedCallGraphImportHandsOnMoreBatchesThanTheReportsQueueHolds() throws Exception {
        // One sample per batch: the tap reads each batch while called, the call graph on its own
        // thread behind a queue the import waits for; no batch may wait for arrays that never come
        // back, and the report misses none.
        PerfDataWriter w = withMaps();
        int samples = 4 * PerfImport.REPORT_QUEUE;
        for (int i = 0; i < samples; i++) {
            w.sample(new Sample(2, LIB_START + 0x110, 10, i + 1, LIB_START + 0x210));
        }
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                () -> run(w, options.withBatchSize(1), seen));
        assertEquals(samples, seen.size());
        assertEquals(samples, r.report().samples());
        assertEquals(new ConsumerAccounting(PerfReport.NAME, samples, 0, null), r.reportBooks());
        assertEquals(new Seen(0, 0, lib + ":work", List.of(lib + ":main")), seen.get(samples - 1));
    }

    @Test
    void hostKernelAndUserSamplesAreTheHostDomainInKernelAndUserMode() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(1, 0xffffffff81000110L, 10, 1))
                .sample(new Sample(2, LIB_START + 0x110, 10, 2));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals(List.of(new Seen(0, 1, "[kernel.kallsyms]:do_syscall_64", List.of()),
                new Seen(0, 0, lib + ":work", List.of())), seen);
        assertEquals(Map.of(0, "host"), r.domains());
    }

    @Test
    void aUserAddressIsTheMappingsFileOffsetThenTheLinkTimeAddressOfTheSegmentHoldingIt() throws Exception {
        // The mapping puts file offset 0x1000 at LIB_START; the segment links offset 0x1000 at
        // 0x401000. LIB_START + 0x120 is file offset 0x1120, address 0x401120: inside work.
        PerfDataWriter w = withMaps().sample(new Sample(2, LIB_START + 0x120, 10, 1))
                .sample(new Sample(2, LIB_START + 0x250, 10, 2)).sample(new Sample(2, LIB_START + 0x180, 10, 3));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals(List.of(lib + ":work", lib + ":main", lib + ":?"), seen.stream().map(Seen::frame).toList());
        PerfReport.Row unknown = r.report().rows().stream().filter(x -> x.symbol().startsWith("0x")).findFirst()
                .orElseThrow();
        assertEquals(Dictionary.addressText(0x1180), unknown.symbol(), "perf's key: the file-relative address");
    }

    @Test
    void aVdsoAddressIsItsOffsetFromTheMappingStartWhateverPgoffTheRecordGives() throws Exception {
        // perf's map__new sets pgoff to 0 for [vdso]: a record whose pgoff is damaged (or odd) names
        // the sample by its offset into the mapping, as perf report does.
        long vdso = 0x7fff00001000L;
        PerfDataWriter w = withMaps().mmap2(2, 10, vdso, 0x2000, 0xf5c2561d6ed60000L, "[vdso]", 0)
                .sample(new Sample(2, vdso + 0xa7e, 10, 1));
        PerfImport.Result r = run(w, options, new ArrayList<>());
        PerfReport.Row row = r.report().rows().stream().filter(x -> x.image().equals("[vdso]")).findFirst()
                .orElseThrow();
        assertEquals(Dictionary.addressText(0xa7e), row.symbol());
    }

    @Test
    void hypervisorSamplesAreTheHostDomainInHypervisorMode() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(3, 0xffff830000001000L, 10, 1));
        List<Seen> seen = new ArrayList<>();
        run(w, options, seen);
        assertEquals(List.of(new Seen(0, 2, "[hypervisor]:?", List.of())), seen);
    }

    @Test
    void guestSamplesGoToOneDomainPerQemuProcessWithTheGuestKernelAsPerfKvmNamesIt() throws Exception {
        Path guestSyms = Files.writeString(dir.resolve("guest-kallsyms"),
                "ffffffff81000000 T _text\nffffffff81000400 T guest_idle\nffffffff81000800 T guest_irq\n");
        PerfDataWriter w = withMaps().comm(100, "qemu-system-x86", 0).comm(200, "qemu-system-x86", 0);
        w.sample(new Sample(4, 0xffffffff81000410L, 100, 1)).sample(new Sample(5, 0x401000, 100, 2))
                .sample(new Sample(4, 0xffffffff81000810L, 200, 3));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options.withGuestKallsyms(Map.of(100, guestSyms)), seen);
        assertEquals(new Seen(1, 1, "[guest.kernel.kallsyms.100]:guest_idle", List.of()), seen.get(0));
        assertEquals(new Seen(1, 0, "[unknown]:?", List.of()), seen.get(1), "guest user space has no maps to read");
        assertEquals(new Seen(2, 1, "[guest.kernel.kallsyms.200]:?", List.of()), seen.get(2));
        assertEquals("guest-100 (qemu-system-x86)", r.domains().get(1));
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("--guest-kallsyms 200=")), r.notes().toString());
    }

    @Test
    void oneGuestKallsymsServesEveryGuestWhenGivenWithoutAPid() throws Exception {
        Path guestSyms = Files.writeString(dir.resolve("g"), "ffffffff81000400 T guest_idle\n");
        PerfDataWriter w = withMaps().sample(new Sample(4, 0xffffffff81000410L, 300, 1));
        List<Seen> seen = new ArrayList<>();
        run(w, options.withGuestKallsyms(Map.of(ImportOptions.ANY_GUEST, guestSyms)), seen);
        assertEquals("[guest.kernel.kallsyms.300]:guest_idle", seen.get(0).frame());
    }

    @Test
    void contextMarkersSwitchTheModeOfTheEntriesAfterThemAndAreNotFrames() throws Exception {
        // A kernel sample in a system call: its own address first, the kernel callers, then the user ones.
        long kip = 0xffffffff81000210L;
        PerfDataWriter w = withMaps().sample(new Sample(1, kip, 10, 1, KERNEL_MARK, kip, 0xffffffff81000120L,
                0xffffffff81000310L, USER_MARK, LIB_START + 0x110, LIB_START + 0x210));
        List<Seen> seen = new ArrayList<>();
        run(w, options, seen);
        assertEquals(new Seen(0, 1, "[kernel.kallsyms]:__x64_sys_getppid", List.of("[kernel.kallsyms]:do_syscall_64",
                "[kernel.kallsyms]:entry_SYSCALL_64", lib + ":work", lib + ":main")), seen.get(0));
    }

    @Test
    void aUserAddressAfterAKernelMarkerIsLookedUpInTheKernel() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(2, LIB_START + 0x110, 10, 1, USER_MARK, LIB_START + 0x110,
                KERNEL_MARK, 0xffffffff81000120L));
        List<Seen> seen = new ArrayList<>();
        run(w, options, seen);
        assertEquals(List.of("[kernel.kallsyms]:do_syscall_64"), seen.get(0).callers());
    }

    @Test
    void anUndefinedMarkerDropsTheCallchainAndKeepsTheSample() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(2, LIB_START + 0x110, 10, 1, USER_MARK, LIB_START + 0x110,
                LIB_START + 0x210, -5L, LIB_START + 0x210));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals(List.of(new Seen(0, 0, lib + ":work", List.of())), seen);
        assertEquals(1L, r.counters().get("callchains.invalid-context"));
        assertEquals(1, r.accounting().delivered());
    }

    @Test
    void aGuestKernelMarkerResolvesInTheGuestsKernel() throws Exception {
        Path guestSyms = Files.writeString(dir.resolve("g"), "ffffffff81000400 T guest_idle\n");
        PerfDataWriter w = withMaps().sample(new Sample(4, 0xffffffff81000410L, 100, 1, GUEST_KERNEL_MARK,
                0xffffffff81000410L, 0xffffffff81000420L));
        List<Seen> seen = new ArrayList<>();
        run(w, options.withGuestKallsyms(Map.of(100, guestSyms)), seen);
        assertEquals(List.of("[guest.kernel.kallsyms.100]:guest_idle"), seen.get(0).callers());
    }

    @Test
    void aForkedProcessInheritsItsParentsMaps() throws Exception {
        PerfDataWriter w = withMaps().fork(11, 10, 1).sample(new Sample(2, LIB_START + 0x110, 11, 2));
        List<Seen> seen = new ArrayList<>();
        run(w, options, seen);
        assertEquals(lib + ":work", seen.get(0).frame());
    }

    @Test
    void aNewThreadSharesItsProcesssMaps() throws Exception {
        PerfDataWriter w = withMaps();
        w.fork(10, 10, 1);
        Sample s = new Sample(2, LIB_START + 0x210, 10, 2);
        s.tid = 12;
        w.sample(s);
        List<Seen> seen = new ArrayList<>();
        run(w, options, seen);
        assertEquals(lib + ":main", seen.get(0).frame());
    }

    @Test
    void aMappingOverPartOfAnotherReplacesThatPartAndTheRestKeepsItsFileOffsets() throws Exception {
        Path other = new TinyElf().function("other", 0x401000, 0x100, TinyElf.GLOBAL).write(dir.resolve("other.so"));
        PerfDataWriter w = withMaps().mmap2(2, 10, LIB_START, 0x1000, 0x1000, other.toString(), 1);
        // [LIB_START, +0x1000) is now other.so; [LIB_START+0x1000, +0x2000) still libwork.so at offset 0x2000.
        w.sample(new Sample(2, LIB_START + 0x10, 10, 2)).sample(new Sample(2, LIB_START + 0x1010, 10, 3));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals(other + ":other", seen.get(0).frame());
        assertEquals(lib + ":?", seen.get(1).frame());
        PerfReport.Row rest = r.report().rows().stream().filter(x -> x.symbol().startsWith("0x")).findFirst()
                .orElseThrow();
        assertEquals(Dictionary.addressText(0x2010), rest.symbol(), "the right part keeps pgoff + its distance");
    }

    @Test
    void aProcessMappedAnewResolvesItsAddressesAnewWhileOtherProcessesKeepTheirs() throws Exception {
        Path other = new TinyElf().function("other", 0x401000, 0x100, TinyElf.GLOBAL).write(dir.resolve("other.so"));
        PerfDataWriter w = withMaps().fork(20, 10, 1);
        // Both processes resolve LIB_START + 0x10 in libwork.so (resolutions are cached per process)...
        w.sample(new Sample(2, LIB_START + 0x10, 10, 2)).sample(new Sample(2, LIB_START + 0x10, 20, 3));
        // ...then process 20 maps other.so over it: only its own address changes meaning.
        w.mmap2(2, 20, LIB_START, 0x1000, 0x1000, other.toString(), 4);
        w.sample(new Sample(2, LIB_START + 0x10, 20, 5)).sample(new Sample(2, LIB_START + 0x10, 10, 6));
        List<Seen> seen = new ArrayList<>();
        run(w, options, seen);
        assertEquals(List.of(lib + ":?", lib + ":?", other + ":other", lib + ":?"),
                seen.stream().map(Seen::frame).toList());
    }

    @Test
    void aMissingElfCountsItsSamplesUnderTheImageWithoutSymbolAndSaysWhy() throws Exception {
        PerfDataWriter w = withMaps().mmap2(2, 10, 0x500000, 0x1000, 0, "/nonexistent/prog", 0);
        w.sample(new Sample(2, 0x500010, 10, 1)).sample(new Sample(2, 0x500020, 10, 2));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals(List.of("/nonexistent/prog:?", "/nonexistent/prog:?"), seen.stream().map(Seen::frame).toList());
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("/nonexistent/prog: 2 samples")
                && n.contains("is not on this machine")), r.notes().toString());
        assertEquals(2, r.accounting().delivered());
    }

    @Test
    void aUserAddressNoMappingCoversIsUnknownAndKeyedByItsAddress() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(2, 0x1234, 10, 1));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals("[unknown]:?", seen.get(0).frame());
        assertEquals(Dictionary.addressText(0x1234), r.report().rows().get(0).symbol());
    }

    @Test
    void kernelAddressesMoveByTheRelocationTheReferenceSymbolShows() throws Exception {
        // Recorded at a boot that put _text at 0xffffffff9c000000; the kallsyms file is from another.
        long recorded = 0xffffffff9c000000L;
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.mmap(1, -1, recorded, 0x1000000, recorded, "[kernel.kallsyms]_text", 0);
        w.sample(new Sample(1, recorded + 0x110, 1, 1));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals("[kernel.kallsyms]:do_syscall_64", seen.get(0).frame(), r.notes() + " " + r.counters());
    }

    @Test
    void moduleSymbolsSplitIntoTheirModulesImage() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(1, 0xffffffffc0001010L, 10, 1));
        List<Seen> seen = new ArrayList<>();
        PerfImport.Result r = run(w, options, seen);
        assertEquals("[e1000]:e1000_intr", seen.get(0).frame());
        assertEquals(0, seen.get(0).domain());
        PerfReport.Row row = r.report().rows().get(0);
        assertEquals('k', row.level());
    }

    @Test
    void ofKallsymsAliasesPerfNamesTheAddressAfterTheLastOne() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(1, 0xffffffff81000210L, 10, 1))
                .sample(new Sample(1, 0xffffffff81000010L, 10, 2));
        List<Seen> seen = new ArrayList<>();
        run(w, options, seen);
        assertEquals("[kernel.kallsyms]:__x64_sys_getppid", seen.get(0).frame());
        assertEquals("[kernel.kallsyms]:_text", seen.get(1).frame());
    }

    @Test
    void theDictionaryNamesImagesByDomainAndKind() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(1, 0xffffffff81000110L, 10, 1))
                .sample(new Sample(2, LIB_START + 0x110, 10, 2));
        Path f = w.writeFile(dir, "t.data");
        try (PerfDataReader r = PerfDataReader.open(f)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), options, false);
            imp.run(r, null, "perf.data", null, false);
            SessionDictionary d = imp.dictionary();
            assertEquals(2, d.imageCount());
            assertEquals("[kernel.kallsyms]", d.imageName(0));
            assertEquals(ImageKind.KERNEL, d.imageKind(0));
            assertEquals(ImageKind.USER, d.imageKind(1));
            assertEquals(0, d.imageDomain(1));
            assertEquals(1, d.symbolImage(1));
        }
    }

    // ---------------------------------------------------------------- perf's model where a damaged record makes it matter

    /** The import's flat rows keyed as perf report prints them. */
    private Map<PerfTool.Key, Long> rows(PerfDataWriter w, ImportOptions opt) throws Exception {
        return PerfTool.rows(run(w, opt, new ArrayList<>()));
    }

    private static PerfTool.Key key(String dso, char level, String symbol) {
        return new PerfTool.Key(dso, level, symbol);
    }

    @Test
    void samplesOfACpumodeNoModeHasAreAtLevelHOfNoImageAsInPerfReport() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(0, LIB_START + 0x110, 10, 1))
                .sample(new Sample(7, LIB_START + 0x110, 10, 2)).sample(new Sample(3, LIB_START + 0x110, 10, 3));
        assertEquals(Map.of(key("[unknown]", 'H', Dictionary.addressText(LIB_START + 0x110)), 3L), rows(w, options));
    }

    @Test
    void anEmptyMappingCoversNothingAndDisplacesNothing() throws Exception {
        PerfDataWriter w = withMaps().mmap2(2, 10, LIB_START - 0x1000, 0, 0, "/empty", 0)
                .sample(new Sample(2, LIB_START + 0x110, 10, 1));
        assertEquals(Map.of(key("libwork.so", '.', "work"), 1L), rows(w, options));
    }

    @Test
    void aDataMappingIsInItsProcessesMapsAsPerfHasIt() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr()).comm(10, "work", 0)
                .mmap(2 | (1 << 13), 10, LIB_START, 0x2000, 0x1000, lib.toString(), 0)
                .sample(new Sample(2, LIB_START + 0x110, 10, 1));
        assertEquals(Map.of(key("libwork.so", '.', "work"), 1L), rows(w, options));
    }

    /**
     * perf finds a record's thread by its tid, and a thread keeps the process it was first met in:
     * a mapping and a sample whose pid is corrupt go to their thread's process.
     */
    @Test
    void aRecordWhosePidIsCorruptGoesToItsThreadsProcess() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr()).comm(10, "work", 0)
                .mmap2(2, 9999, 10, LIB_START, 0x2000, 0x1000, 5, 2, lib.toString(), 0);
        Sample s = new Sample(2, LIB_START + 0x110, 7777, 1);
        s.tid = 10;
        w.sample(s);
        assertEquals(Map.of(key("libwork.so", '.', "work"), 1L), rows(w, options));
    }

    /**
     * A FORK whose parent pid is not its parent thread's process makes perf drop that thread and
     * make it anew in the process the record names, which has no maps ("removing erroneous parent
     * thread"): the samples of that thread, a process's main thread too, are found there from then on.
     */
    @Test
    void aForkWhoseParentPidIsCorruptMovesTheParentThreadEvenAProcesssMainThread() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(2, LIB_START + 0x110, 10, 1)).fork(11, 99, 11, 10, 2)
                .sample(new Sample(2, LIB_START + 0x110, 10, 3)).sample(new Sample(2, LIB_START + 0x110, 11, 4));
        assertEquals(Map.of(key("libwork.so", '.', "work"), 1L,
                key("[unknown]", '.', Dictionary.addressText(LIB_START + 0x110)), 2L), rows(w, options));
    }

    /** A thread first met in a COMM that names another process stays in it: its main thread's mappings and samples too. */
    @Test
    void aThreadFirstMetInAnotherProcessKeepsItForItsMappingsAndSamples() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr()).comm(30, 10, "work", 0)
                .mmap2(2, 10, LIB_START, 0x2000, 0x1000, lib.toString(), 0).sample(new Sample(2, LIB_START + 0x110, 10, 1));
        assertEquals(Map.of(key("libwork.so", '.', "work"), 1L), rows(w, options));
    }

    /**
     * A frame's level letter is fixed by its first sight: in the children view a callchain's entry
     * counts, in the flat view (--no-children) only a sample's own address. Address 0 met first in a
     * kernel callchain, then as a user sample's own address, is [k] in the one and [.] in the other.
     */
    @Test
    void theFlatViewsLevelLetterIsTheFirstOwnSightsTheChildrenViewsTheFirstSightsOfAll() throws Exception {
        long kip = 0xffffffff81000210L;
        PerfDataWriter w = withMaps().sample(new Sample(1, kip, 10, 1, KERNEL_MARK, kip, 0))
                .sample(new Sample(2, 0, 10, 2));
        PerfImport.Result r = run(w, options, new ArrayList<>());
        PerfReport.Row zero = r.report().rows().stream().filter(x -> x.symbol().equals(Dictionary.addressText(0)))
                .findFirst().orElseThrow();
        assertEquals('k', zero.level(), "children view");
        assertEquals('.', zero.selfLevel(), "flat view");
        StringBuilder flat = new StringBuilder();
        r.report().printFlat(flat, "cpu-clock", 10);
        assertTrue(flat.toString().contains("[unknown]                 [.] " + Dictionary.addressText(0)), flat.toString());
    }

    /**
     * A sample's own address without a symbol, repeated as its callchain's first entry, is two
     * frames in the children view, as perf keys them: the image-relative address (the sample's own)
     * and the run-time one (the callchain's); the run-time one is the same frame as that address met
     * as a callchain entry in other samples, and a sample counts in a frame once, however often its
     * stack holds it. Here the library is mapped 0x7f0000001000 away from its file offsets.
     */
    @Test
    void aSamplesOwnAddressWithoutSymbolCountsAtItsRunTimeAddressAsItsCallchainsFirstEntry() throws Exception {
        long unnamed = LIB_START + 0x180;
        long main = LIB_START + 0x210;
        long work = LIB_START + 0x120;
        PerfDataWriter w = withMaps().sample(new Sample(2, unnamed, 10, 1, unnamed, main))
                .sample(new Sample(2, work, 10, 2, work, unnamed, main))
                .sample(new Sample(2, unnamed, 10, 3, unnamed, unnamed, main))
                .sample(new Sample(2, unnamed, 10, 4, unnamed, main));
        PerfImport.Result r = run(w, options, new ArrayList<>());
        Map<String, PerfReport.Row> rows = new java.util.HashMap<>();
        r.report().rows().forEach(row -> rows.put(row.symbol(), row));
        PerfReport.Row own = rows.get(Dictionary.addressText(0x1180));
        PerfReport.Row runTime = rows.get(Dictionary.addressText(unnamed));
        assertEquals(3, own.samples(), "the samples at the address, by their own frame");
        assertEquals(3, own.childrenSamples());
        assertEquals(0, runTime.samples(), "no sample's own frame");
        assertEquals(4, runTime.childrenSamples(), "three as their chains' first entry (one of them also its"
                + " second), one as a caller of work");
        assertEquals('.', runTime.level());
        assertEquals(lib.toString(), runTime.image());
        assertEquals(4, rows.get("main").childrenSamples());
    }

    /**
     * A branch of the call graph's tree is the share of every sample whose stack passes through
     * it: the samples that end there and those of every branch below it.
     */
    @Test
    void aStackTreeBranchCountsEverySampleWhoseStackPassesThroughIt() throws Exception {
        long syscall = 0xffffffff81000110L;
        long entry = 0xffffffff81000310L;
        long work = LIB_START + 0x110;
        long main = LIB_START + 0x210;
        PerfDataWriter w = withMaps()
                .sample(new Sample(1, syscall, 10, 1, KERNEL_MARK, syscall, entry, USER_MARK, work, main))
                .sample(new Sample(1, syscall, 10, 2, KERNEL_MARK, syscall, entry, USER_MARK, main))
                .sample(new Sample(1, syscall, 10, 3, KERNEL_MARK, syscall, entry, USER_MARK, work, main))
                .sample(new Sample(1, syscall, 10, 4, KERNEL_MARK, syscall, entry))
                .sample(new Sample(2, work, 10, 5, work, main));
        PerfImport.Result r = run(w, options, new ArrayList<>());
        StringBuilder graph = new StringBuilder();
        r.report().printCallGraph(graph, 1, 1);
        int row = graph.indexOf("\n", graph.indexOf("do_syscall_64")) + 1;
        String tree = graph.substring(row, graph.indexOf("\n\n", row));
        assertEquals(String.join("\n",
                "            |--80.00%--entry_SYSCALL_64 ([kernel.kallsyms])",
                "            |    |--40.00%--work (libwork.so)",
                "            |    |    |--40.00%--main (libwork.so)",
                "            |    |--20.00%--main (libwork.so)"), tree);
    }

    @Test
    void aForkPerfRecordWroteForATaskThatRanBeforeItCopiesNoMaps() throws Exception {
        PerfDataWriter w = withMaps().fork(11, 10, 1 << 13, 1).sample(new Sample(2, LIB_START + 0x110, 11, 2))
                .fork(12, 10, 0, 3).sample(new Sample(2, LIB_START + 0x110, 12, 4));
        assertEquals(Map.of(key("[unknown]", '.', Dictionary.addressText(LIB_START + 0x110)), 1L,
                key("libwork.so", '.', "work"), 1L), rows(w, options));
    }

    @Test
    void aKernelMapNamingAReferenceSymbolTheKernelSymbolsLackLeavesKernelSamplesUnnamed() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.mmap(1, -1, K_TEXT, 0x1000000, K_TEXT, "[kernel.kallsyms]Xtext", 0);
        w.sample(new Sample(1, 0xffffffff81000110L, 10, 1));
        PerfImport.Result r = run(w, options, new ArrayList<>());
        assertEquals(Map.of(key("[kernel.kallsyms]", 'k', Dictionary.addressText(0xffffffff81000110L)), 1L),
                PerfTool.rows(r));
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("reference symbol 'Xtext'")), r.notes().toString());
        // A note on the recording itself: perf report names such a sample where a symbol starts exactly.
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("names its reference symbol 'Xtext', which"
                + " the kernel symbols do not hold")), r.recordingNotes().toString());
    }

    @Test
    void guestSamplesInARecordingAreNotedAsPlainPerfReportLeavesThemOut() throws Exception {
        PerfDataWriter w = withMaps().sample(new Sample(4, 0xffffffff81000410L, 100, 1));
        PerfImport.Result r = run(w, options, new ArrayList<>());
        assertTrue(r.recordingNotes().stream().anyMatch(n -> n.contains("1 samples were taken in a guest")),
                r.notes().toString());
    }

    /**
     * Executable memory without a file (anonymous, or huge pages) is a JIT's: perf names it
     * /tmp/perf-PID.map and prints it "[JIT] tid PID"; without PROT_EXEC it keeps its own name
     * (printed by its base name, as perf prints every file).
     */
    @Test
    void executableMemoryWithoutAFileIsAJitsAsPerfNamesIt() throws Exception {
        PerfDataWriter w = withMaps().mmap2(2, 10, 10, 0x10000000L, 0x1000, 0, 5, 0x22, "//anon", 0)
                .mmap2(2, 10, 10, 0x20000000L, 0x1000, 0, 5, 0x40002, "/huge/file", 0)
                .mmap2(2, 10, 10, 0x30000000L, 0x1000, 0, 3, 0x22, "//anon", 0)
                .sample(new Sample(2, 0x10000010L, 10, 1)).sample(new Sample(2, 0x20000010L, 10, 2))
                .sample(new Sample(2, 0x30000010L, 10, 3));
        Path none = Files.createDirectories(dir.resolve("no-jit-maps"));
        assertEquals(Map.of(key("[JIT] tid 10", '.', Dictionary.addressText(0x10000010L)), 1L,
                key("[JIT] tid 10", '.', Dictionary.addressText(0x20000010L)), 1L,
                key("anon", '.', Dictionary.addressText(0x30000010L)), 1L),
                rows(w, options.withSymbolDirs(none, none, none)));
    }

    @Test
    void aLastSymbolWithoutSizeReachesAPagePastItsOwnAsPerfStretchesIt() throws Exception {
        Path last = new TinyElf().function("work", 0x401100, 0x40, TinyElf.GLOBAL).function("tail", 0x401300, 0,
                TinyElf.GLOBAL).write(dir.resolve("libtail.so"));
        PerfDataWriter w = new PerfDataWriter().attr(new Attr()).comm(10, "work", 0)
                .mmap2(2, 10, LIB_START, 0x4000, 0x1000, last.toString(), 0)
                .sample(new Sample(2, LIB_START + 0x380, 10, 1)).sample(new Sample(2, LIB_START + 0xf00, 10, 2));
        assertEquals(Map.of(key("libtail.so", '.', "tail"), 2L), rows(w, options));
    }

    /**
     * A symbol file that reports size 0 is read whole (procfs files do), but only through the one
     * input check: a device that reports 0 (/dev/zero never ends) is refused, not read for ever.
     */
    @Test
    void aSymbolFileThatIsADeviceIsRefusedNotReadForever() {
        SymbolFileException e = assertThrows(SymbolFileException.class,
                () -> Wiring.resolvers().table(SymbolFiles.source("vmlinux", Symbolizer.KALLSYMS,
                        Path.of("/dev/zero"))));
        assertTrue(e.getMessage().contains("character device"), e.getMessage());
    }

    /**
     * A kallsyms file of another kernel (a small build: its text ends long before the recorded
     * addresses) finds no symbol for them: the import says how many fell outside every symbol of
     * that file and that it is most likely another kernel's; with the right file no such note.
     */
    @Test
    void aKallsymsFileOfAnotherKernelIsNamedInANoteWithTheSamplesOutsideItsSymbols() throws Exception {
        Path other = Files.writeString(dir.resolve("other-kallsyms"), String.join("\n",
                "ffffffff81000000 T _stext", "ffffffff81000000 T _text", "ffffffff81000100 T tiny_start",
                "ffffffff81000200 T tiny_end", ""));
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.mmap(1, -1, K_TEXT, 0x1000000, K_TEXT, "[kernel.kallsyms]_text", 0);
        w.comm(7, "app", 0);
        w.sample(new Sample(1, K_TEXT + 0x800110, 7, 1, KERNEL_MARK, K_TEXT + 0x800110, K_TEXT + 0x800310));
        w.sample(new Sample(1, K_TEXT + 0x800120, 7, 2, KERNEL_MARK, K_TEXT + 0x800120));
        PerfImport.Result wrong = run(w, options.withKallsyms(other), new ArrayList<>());
        assertTrue(wrong.notes().stream().anyMatch(n -> n.startsWith("[kernel.kallsyms]: ")
                && n.contains("fall outside every symbol of " + other) && n.contains("most likely another kernel's")
                && n.contains("--kallsyms")), wrong.notes().toString());
        PerfDataWriter right = new PerfDataWriter().attr(new Attr());
        right.mmap(1, -1, K_TEXT, 0x1000000, K_TEXT, "[kernel.kallsyms]_text", 0);
        right.comm(7, "app", 0);
        right.sample(new Sample(1, K_TEXT + 0x110, 7, 1, KERNEL_MARK, K_TEXT + 0x110, K_TEXT + 0x310));
        PerfImport.Result fine = run(right, options, new ArrayList<>());
        assertTrue(fine.notes().stream().noneMatch(n -> n.contains("outside every symbol")), fine.notes().toString());
    }
}
