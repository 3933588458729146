package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.Test;

/** Each PC goes to an image of the domain's memory map, then to a symbol of that image's table. */
class ResolutionTest {

    @Test
    void pcsMapToHypervisorKernelModuleAndUserImagesAndTheirSymbols() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            b.sample(FakeHost.XEN + 0x1010, 2, 0);
            b.sample(FakeHost.KERNEL + 0x120, 1, 0);
            b.sample(FakeHost.MODULE + 0x1ff, 1, 0);
            b.sample(FakeHost.USER + 0x160, 0, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("0 xen-syms do_grant_table_op", "0 vmlinux br_handle_frame",
                    "0 netback.ko net_tx_action", "0 tcp_receiver recv_loop"), rig.resolved());
            assertEquals(List.of(ImageKind.HYPERVISOR, ImageKind.KERNEL, ImageKind.MODULE, ImageKind.USER),
                    rig.imageKinds());
            SampleBatch batch = rig.consumer.batches.get(0);
            assertEquals(batch.image[3], rig.consumer.info.dictionary().symbolImage(batch.symbol[3]));
        }
    }

    @Test
    void anElfFileOfThisMachineIsPlacedInTheDictionaryForAnnotationAndASymbolListIsNot() {
        long start = 0x7f3c_5a00_0000L;
        long end = 0x7f3c_5b36_c000L;
        ImageSource elf = new ImageSource("libjvm.so", "elf", "/opt/jdk/lib/server/libjvm.so",
                java.io.InputStream::nullInputStream);
        ImageSource text = new ImageSource("vmlinux", "kallsyms", "symbols/vmlinux.map",
                java.io.InputStream::nullInputStream);
        Dictionary d = new Dictionary();
        DomainView view = new DomainView(1, List.of(new Mapping(start, end, "libjvm.so", ImageKind.USER, elf, start),
                new Mapping(0xffff_ffff_8020_0000L, 0xffff_ffff_8040_0000L, "vmlinux", ImageKind.KERNEL, text, 0)), d,
                new SymbolTables(), (location, message) -> { });
        int jvm = DomainView.image(view.resolve(start + 0x1234, 0));
        int kernel = DomainView.image(view.resolve(0xffff_ffff_8020_0100L, 1));
        assertEquals("libjvm.so", d.imageName(jvm), "the reports' name stays");
        assertEquals("/opt/jdk/lib/server/libjvm.so", d.imageFile(jvm));
        assertEquals(1, d.mappingCount());
        // pc - start + file offset is the link-time address pc - bias: the file offset of code there.
        assertEquals(new ImageMapping(1, SampleBatch.UNKNOWN, jvm, start, end, 0), d.mapping(0));
        assertEquals(null, d.imageFile(kernel));
    }

    @Test
    void aPcNoMappingCoversGoesToTheDomainsUnknownImage() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(1, 0).sample(0x10, 0, 0);
            rig.xen.buffer(1, 0).sample(FakeHost.USER + 0x100000, 0, 0);
            rig.xen.virq(1, 0);
            rig.finish();
            SampleBatch batch = rig.consumer.batches.get(0);
            SessionDictionary d = rig.consumer.info.dictionary();
            assertEquals(ImageKind.UNKNOWN, d.imageKind(batch.image[0]));
            assertEquals(1, d.imageDomain(batch.image[0]));
            assertEquals(SessionDictionary.NO_SYMBOL, batch.symbol[0]);
            assertEquals(batch.image[0], batch.image[1], "a range's end is outside it");
        }
    }

    @Test
    void aPcIsLookedUpOnlyInTheSpaceOfItsModeAsOprofileDid() throws Exception {
        // A hypervisor PC logged in user mode (a PowerPC MMCRA bit misread) is unknown in the
        // process's space, not charged to xen-syms; a user PC logged in kernel mode likewise.
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            b.sample(FakeHost.XEN + 0x1010, 0, 0);
            b.sample(FakeHost.USER + 0x160, 1, 0);
            b.sample(FakeHost.XEN + 0x1010, 2, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of(ImageKind.UNKNOWN, ImageKind.UNKNOWN, ImageKind.HYPERVISOR), rig.imageKinds());
        }
    }

    @Test
    void aPcInsideAnImageButOutsideEverySymbolHasNoSymbol() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(0, 0).sample(FakeHost.KERNEL + 0x300000, 1, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("0 vmlinux (no symbols)"), rig.resolved());
        }
    }

    @Test
    void imagesArePerDomainButASymbolFileIsLoadedOnce() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(0, 0).sample(FakeHost.KERNEL + 0x10, 1, 0);
            rig.xen.buffer(1, 0).sample(FakeHost.KERNEL + 0x10, 1, 0);
            rig.xen.buffer(1, 1).sample(FakeHost.KERNEL + 0x11, 1, 0);
            rig.xen.flush();
            rig.finish();
            assertEquals(1, rig.resolver.loads.get(), "vmlinux's table is read once and shared");
            SampleBatch batch = rig.consumer.batches.get(0);
            assertNotEquals(batch.image[0], batch.image[1], "dom0's and dom1's vmlinux are different images");
            assertEquals(batch.symbol[1], batch.symbol[2], "the same symbol of the same domain has one id");
            assertEquals(2, rig.consumer.info.dictionary().symbolCount(), "netif_receive_skb of dom0 and of dom1");
        }
    }

    @Test
    void aSymbolFileErrorLeavesTheSamplesUnderTheImageAndIsReportedOnce() throws Exception {
        FakeHost host = new FakeHost("BAD LINE", "kallsyms");
        try (Rig rig = new Rig(host, 64).profiling()) {
            rig.xen.buffer(0, 0).sample(FakeHost.XEN + 0x1010, 2, 0);
            rig.xen.buffer(1, 0).sample(FakeHost.XEN + 0x1010, 2, 0);
            rig.xen.buffer(1, 0).sample(FakeHost.KERNEL + 0x10, 1, 0);
            rig.xen.flush();
            String status = rig.op(0, "--status").output();
            assertTrue(status.contains("mem:xen-syms:1: expected '<start> <size> <name>'"), status);
            String end = rig.finish().output();
            assertEquals(List.of("0 xen-syms (no symbols)", "1 xen-syms (no symbols)", "1 vmlinux netif_receive_skb"),
                    rig.resolved());
            assertEquals(1, end.split("mem:xen-syms:1", -1).length - 1, "one report per file and session: " + end);
            assertEquals(3, rig.consumer.samples());
        }
    }

    @Test
    void anImageWithoutAResolverIsResolvedOnceOneArrives() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.profiler.removeResolver("kallsyms", rig.resolver);
            rig.xen.buffer(0, 0).sample(FakeHost.KERNEL + 0x10, 1, 0);
            rig.xen.virq(0, 0);
            assertTrue(rig.op(0, "--status").output().contains("no symbol resolver for format 'kallsyms'"));
            rig.profiler.addResolver("kallsyms", rig.resolver);
            rig.xen.buffer(0, 0).sample(FakeHost.KERNEL + 0x10, 1, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("0 vmlinux (no symbols)", "0 vmlinux netif_receive_skb"), rig.resolved());
        }
    }

    @Test
    void theDictionaryRefusesIdsItDoesNotHave() {
        Dictionary d = new Dictionary();
        int img = d.addImage("vmlinux", ImageKind.KERNEL, 0);
        int sym = d.addSymbol("schedule", img);
        assertEquals("schedule", d.symbolName(sym));
        assertEquals("(no symbols)", d.symbolName(SessionDictionary.NO_SYMBOL));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.imageName(5));
        assertTrue(e.getMessage().contains("has 1 images"), e.getMessage());
    }

    @Test
    void theDictionaryGrowsWhileReadersKeepSeeingEveryPublishedEntry() throws Exception {
        Dictionary d = new Dictionary();
        int img = d.addImage("vmlinux", ImageKind.KERNEL, 0);
        Thread reader = new Thread(() -> {
            for (int round = 0; round < 2000; round++) {
                int n = d.symbolCount();
                for (int i = Math.max(0, n - 4); i < n; i++) {
                    if (!d.symbolName(i).equals("s" + i)) {
                        throw new AssertionError("symbol " + i + " read as " + d.symbolName(i));
                    }
                }
            }
        });
        reader.start();
        for (int i = 0; i < 5000; i++) {
            d.addSymbol("s" + i, img);
        }
        reader.join();
        assertEquals(5000, d.symbolCount());
    }

    @Test
    void theMemoryMapIsSearchedWithUnsignedAddresses() {
        FakeHost host = new FakeHost();
        DomainView v = new DomainView(0, host.domains.get(0).memoryMap(), new Dictionary(),
                new SymbolTables(), (loc, msg) -> { });
        assertEquals(-1, v.mappingIndex(0x3fffffL));
        assertEquals(0, v.mappingIndex(FakeHost.USER), "the user range has the lowest unsigned start");
        assertEquals(1, v.mappingIndex(FakeHost.XEN + 5));
        assertEquals(2, v.mappingIndex(FakeHost.KERNEL + 0x3fffff));
        assertEquals(-1, v.mappingIndex(FakeHost.KERNEL + 0x400000));
        assertEquals(3, v.mappingIndex(FakeHost.MODULE));
        assertEquals(-1, v.mappingIndex(-1L));
    }
}
