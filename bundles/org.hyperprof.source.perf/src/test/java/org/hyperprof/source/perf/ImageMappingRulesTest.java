package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.source.perf.PerfDataWriter.Attr;
import org.hyperprof.source.perf.PerfDataWriter.Sample;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which mappings a recording written here gives the session: the kernel's and a module's for every
 * process (pid -1, their addresses as file offsets), each executable map record of a library for
 * its process, in the order met, also those met before the library's first sample; none for an
 * image no sample names, which stays unnamed.
 */
class ImageMappingRulesTest {

    static final long K_TEXT = 0xffffffff81000000L;
    static final long MODULES = 0xffffffffc0000000L;
    static final long LIB_START = 0x7f0000002000L;
    static final long LIB_AGAIN = 0x7f0000102000L;

    @TempDir
    Path dir;
    Path lib;
    ImportOptions options;

    @BeforeEach
    void files() throws Exception {
        Path kallsyms = Files.writeString(dir.resolve("kallsyms"), String.join("\n",
                "ffffffff81000000 T _text",
                "ffffffff81000100 T do_syscall_64",
                "ffffffff81001000 D _etext",
                "ffffffffc0001000 t e1000_intr\t[e1000]", ""));
        lib = new TinyElf().function("work", 0x401100, 0x40, TinyElf.GLOBAL).write(dir.resolve("libwork.so"));
        Path empty = Files.createDirectories(dir.resolve("empty"));
        options = ImportOptions.defaults().withKallsyms(kallsyms).withSymbolDirs(empty, empty, empty);
    }

    private SessionDictionary importOf(PerfDataWriter w) throws Exception {
        Path f = w.writeFile(dir, "t.data");
        try (PerfDataReader r = PerfDataReader.open(f)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), options, false);
            PerfImport.Result result = imp.run(r, null, "perf.data", null, false);
            assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
            return imp.dictionary();
        }
    }

    private static List<String> mappings(SessionDictionary d) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < d.mappingCount(); i++) {
            ImageMapping m = d.mapping(i);
            out.add(d.imageName(m.image()) + " pid " + m.pid() + " [0x" + Long.toHexString(m.start()) + ", 0x"
                    + Long.toHexString(m.limit()) + ") @ 0x" + Long.toHexString(m.fileOffset()));
        }
        return out;
    }

    @Test
    void theKernelModulesAndLibrariesSamplesNameAreMappedAsTheirRecordsSay() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.mmap(1, -1, K_TEXT, 0x1000000, K_TEXT, "[kernel.kallsyms]_text", 0);
        w.mmap(1, -1, MODULES, 0x10000, 0, "/lib/modules/6.1.0/kernel/drivers/net/e1000.ko.xz", 0);
        w.mmap(1, -1, MODULES + 0x10000, 0x10000, 0, "/lib/modules/6.1.0/kernel/sound/snd-hda.ko", 0);
        w.comm(10, "work", 0).mmap2(2, 10, LIB_START, 0x2000, 0x1000, lib.toString(), 0);
        w.mmap2(2, 10, 0x7f0000200000L, 0x1000, 0, "/usr/lib/never-sampled.so", 0);
        w.sample(new Sample(1, K_TEXT + 0x110, 10, 1));
        w.sample(new Sample(1, MODULES + 0x1010, 10, 2));
        w.sample(new Sample(2, LIB_START + 0x100, 10, 3));
        w.mmap2(2, 10, LIB_AGAIN, 0x1000, 0x1000, lib.toString(), 4);
        w.sample(new Sample(2, LIB_AGAIN + 0x100, 10, 5));
        SessionDictionary d = importOf(w);

        assertEquals(List.of(
                "[kernel.kallsyms] pid -1 [0xffffffff81000000, 0xffffffff82000000) @ 0xffffffff81000000",
                "[e1000] pid -1 [0xffffffffc0000000, 0xffffffffc0010000) @ 0xffffffffc0000000",
                lib + " pid 10 [0x7f0000002000, 0x7f0000004000) @ 0x1000",
                lib + " pid 10 [0x7f0000102000, 0x7f0000103000) @ 0x1000"), mappings(d));
        for (int i = 0; i < d.imageCount(); i++) {
            assertTrue(!d.imageName(i).contains("never-sampled") && !d.imageName(i).contains("snd_hda"),
                    "an image no sample names stays unnamed: " + d.imageName(i));
        }
    }

    @Test
    void aMappingToldLateIsFollowedAgainByTheLaterOnesLyingOverIt() throws Exception {
        // libother's record came first, libwork's over its second half later; libwork's sample
        // names it first, libother's first half then names libother.
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.comm(10, "work", 0).mmap2(2, 10, LIB_START, 0x2000, 0, "/nonexistent/libother.so", 0);
        w.mmap2(2, 10, LIB_START + 0x1000, 0x2000, 0x1000, lib.toString(), 1);
        w.sample(new Sample(2, LIB_START + 0x1100, 10, 2));
        w.sample(new Sample(2, LIB_START + 0x100, 10, 3));
        SessionDictionary d = importOf(w);

        String work = lib + " pid 10 [0x7f0000003000, 0x7f0000005000) @ 0x1000";
        assertEquals(List.of(work, "/nonexistent/libother.so pid 10 [0x7f0000002000, 0x7f0000004000) @ 0x0", work),
                mappings(d), "the process's list ends as its records left it: libwork over libother's second half");
    }

    @Test
    void aKernelMapReachingTheTopOfTheAddressSpaceEndsThere() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.mmap(1, -1, K_TEXT, -K_TEXT, K_TEXT, "[kernel.kallsyms]_text", 0);
        w.comm(10, "work", 0);
        w.sample(new Sample(1, K_TEXT + 0x110, 10, 1));
        SessionDictionary d = importOf(w);
        assertEquals(List.of("[kernel.kallsyms] pid -1 [0xffffffff81000000, 0xffffffffffffffff) @ 0xffffffff81000000"),
                mappings(d));
    }

    @Test
    void aModuleMapIsNamedAsKallsymsNamesTheModule() {
        assertEquals("e1000", Machines.moduleName("/lib/modules/6.1.0/kernel/drivers/net/e1000.ko.xz"));
        assertEquals("snd_hda", Machines.moduleName("snd-hda.ko"));
        assertEquals("kvm_intel", Machines.moduleName("[kvm_intel]"));
        assertNull(Machines.moduleName("/usr/lib/libc.so.6"));
        assertNull(Machines.moduleName("/lib/modules/x.kobject"));
    }
}
