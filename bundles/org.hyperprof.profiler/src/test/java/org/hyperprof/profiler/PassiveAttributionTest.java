package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The primary drains every passive buffer after its own, tagging the samples with the passive
 * domain's id, and attributes them as OProfile's Xen patch did: {@code domain<N>-xen},
 * {@code domain<N>-kernel} (or the kernel image given for it), {@code domain<N>-modules},
 * {@code domain<N>-apps}.
 */
class PassiveAttributionTest {
    private static final long K = FakeHost.KERNEL;
    private static final int USER = 0;
    private static final int KERNEL = 1;
    private static final int XEN = 2;

    @TempDir
    Path dir;

    /** dom0 primary and active with dom1; dom2 (PV) and dom3 (HVM) passive; sampling started. */
    private static Rig passiveRig(String... extra) {
        Rig rig = new Rig(FakeHost.withGuests(), 64);
        List<String> args = new ArrayList<>(List.of("--start-daemon", "--active-domains=0,1", "--passive-domains=2,3"));
        args.addAll(List.of(extra));
        Rig.ok(rig.profiler.opcontrol(0, args));
        Rig.ok(rig.op(1, "--start-daemon"));
        Rig.ok(rig.op(0, "--start"));
        return rig;
    }

    private static List<String> rows(Rig rig) {
        SessionDictionary d = rig.consumer.info.dictionary();
        List<String> out = new ArrayList<>();
        for (SampleBatch b : rig.consumer.batches) {
            for (int i = 0; i < b.size; i++) {
                out.add(b.domain[i] + " " + d.imageName(b.image[i]) + " " + d.symbolName(b.symbol[i]) + " img-dom "
                        + d.imageDomain(b.image[i]));
            }
        }
        return out;
    }

    @Test
    void passiveSamplesGoToTheDomainsPseudoImagesByModeAndAddress() throws Exception {
        try (Rig rig = passiveRig()) {
            FakeSharedBuffer p = rig.xen.buffer(2, 0);
            p.sample(FakeHost.XEN + 0x1010, XEN, 0);
            p.sample(K + 0x10, KERNEL, 0);
            p.sample(FakeHost.MODULE + 0x20, KERNEL, 0);
            p.sample(0xdead0000L, KERNEL, 0);
            p.sample(FakeHost.USER + 0x160, USER, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("2 domain2-xen (no symbols) img-dom 2", "2 domain2-kernel (no symbols) img-dom 2",
                    "2 domain2-modules (no symbols) img-dom 2", "2 domain2-modules (no symbols) img-dom 2",
                    "2 domain2-apps (no symbols) img-dom 2"), rows(rig),
                    "kernel-mode code outside the kernel is module code; passive userland is never symbolised");
            assertEquals(List.of(ImageKind.HYPERVISOR, ImageKind.KERNEL, ImageKind.MODULE, ImageKind.MODULE,
                    ImageKind.USER), rig.imageKinds());
        }
    }

    @Test
    void aPassiveKernelIsResolvedWithTheImageNamedForIt() throws Exception {
        try (Rig rig = passiveRig("--passive-images=vmlinux-2")) {
            rig.xen.buffer(2, 0).sample(K + 0x110, KERNEL, 0);
            rig.xen.buffer(3, 0).sample(K + 0x110, KERNEL, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("2 vmlinux-2 br_handle_frame img-dom 2", "3 domain3-kernel (no symbols) img-dom 3"),
                    rows(rig), "the image list pairs with --passive-domains in order; dom3 got none");
        }
    }

    @Test
    void aPassiveKernelIsResolvedWithASymbolFileGivenByPath() throws Exception {
        Path map = dir.resolve("System.map-guest");
        Files.writeString(map, Long.toHexString(K) + " 80 guest_idle\n" + Long.toHexString(K + 0x80) + " 80 guest_irq\n");
        try (Rig rig = passiveRig("--passive-images=," + map)) {
            rig.xen.buffer(3, 0).sample(K + 0x90, KERNEL, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("3 " + map + " guest_irq img-dom 3"), rows(rig),
                    "an HVM passive kernel resolved with the file given for it");
        }
    }

    @Test
    void theCoordinatorsOwnSamplesComeFirstThenEachPassiveDomainThenTheCoordinatorAgain() throws Exception {
        try (Rig rig = passiveRig()) {
            rig.xen.buffer(0, 0).sample(K, KERNEL, 0);
            rig.xen.buffer(3, 0).sample(K, KERNEL, 0);
            rig.xen.buffer(2, 0).sample(K, KERNEL, 0);
            rig.xen.virq(0, 0);
            rig.xen.buffer(0, 0).sample(K + 0x100, KERNEL, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("0 vmlinux netif_receive_skb img-dom 0", "2 domain2-kernel (no symbols) img-dom 2",
                    "3 domain3-kernel (no symbols) img-dom 3", "0 vmlinux br_handle_frame img-dom 0"), rows(rig));
        }
    }

    @Test
    void onlyThePrimarysVirqDrainsPassiveBuffers() throws Exception {
        try (Rig rig = passiveRig()) {
            FakeSharedBuffer p = rig.xen.buffer(2, 0);
            p.sample(K, KERNEL, 0);
            rig.xen.virq(1, 0);
            assertEquals(0, p.tail(), "an active guest never reads a passive domain's buffer");
            rig.xen.virq(0, 0);
            assertEquals(1, p.tail());
            rig.finish();
        }
    }

    @Test
    void xenModeSamplesOfAPassiveDomainWaitForTheNextPrimaryVirqOrTheStopFlush() throws Exception {
        try (Rig rig = passiveRig()) {
            FakeSharedBuffer p = rig.xen.buffer(3, 0);
            p.sample(FakeHost.XEN + 0x1000, XEN, 0);
            Rig.ok(rig.op(0, "--stop"));
            assertEquals(1, p.tail(), "stop's flush reached the primary, whose drain includes the passive domains");
            rig.op(1, "--shutdown");
            rig.op(0, "--shutdown");
            assertTrue(rig.consumer.awaitEnd());
            assertEquals(List.of("3 domain3-xen (no symbols) img-dom 3"), rows(rig));
        }
    }

    @Test
    void callersOfAPassiveTraceAreAttributedByTheTracesModeAndAddress() throws Exception {
        try (Rig rig = passiveRig("--passive-images=vmlinux-2", "--callgraph=4")) {
            rig.xen.buffer(2, 0).trace(K + 0x10, KERNEL, 0, FakeHost.MODULE + 0x8, K + 0x120);
            rig.xen.buffer(2, 0).trace(FakeHost.USER + 0x100, USER, 0, FakeHost.USER + 0x150);
            rig.xen.virq(0, 0);
            rig.finish();
            SessionDictionary d = rig.consumer.info.dictionary();
            SampleBatch b = rig.consumer.batches.get(0);
            assertEquals(2, b.size);
            assertEquals("netif_receive_skb", d.symbolName(b.symbol[0]));
            assertEquals(List.of("domain2-modules", "vmlinux-2"), List.of(d.imageName(b.chainImage[0]),
                    d.imageName(b.chainImage[1])));
            assertEquals("br_handle_frame", d.symbolName(b.chainSymbol[1]));
            assertEquals("domain2-apps", d.imageName(b.chainImage[b.chainStart[1]]));
        }
    }

    @Test
    void passiveBuffersAreBookedAsPassiveInTheSummary() throws Exception {
        try (Rig rig = passiveRig()) {
            rig.xen.buffer(2, 0).sample(K, KERNEL, 0);
            rig.xen.buffer(2, 0).sample(K, USER, 0);
            rig.xen.virq(0, 0);
            rig.finish();
            BufferAccounting dom2 = rig.consumer.summary.buffers().stream().filter(x -> x.domid() == 2).findFirst()
                    .orElseThrow();
            assertEquals("passive", dom2.role());
            assertEquals(2, dom2.accounting().delivered());
            assertEquals(2, dom2.drained());
            assertEquals(0, dom2.undrained());
        }
    }

    @Test
    void aTraceCutAtTheEndOfAPassiveRingNeverTakesTheCoordinatorsNextEntry() throws Exception {
        try (Rig rig = passiveRig("--callgraph=2")) {
            rig.xen.depth = 2;
            rig.xen.buffer(2, 0).add(SharedBuffer.ESCAPE_CODE, KERNEL, SharedBuffer.TRACE_BEGIN);
            rig.xen.virq(0, 0);
            rig.xen.buffer(0, 0).trace(K + 0x100, KERNEL, 0, K + 0x10);
            rig.xen.virq(0, 0);
            rig.finish();
            assertEquals(List.of("0 vmlinux br_handle_frame img-dom 0"), rows(rig),
                    "the passive escape waits in its own ring's reader; the coordinator's trace stays its own");
            assertTrue(rig.consumer.summary.notes().stream().anyMatch(n -> n.startsWith("domain 2 vcpu 0")
                    && n.contains("1 escape record(s) without a sample")), rig.consumer.summary.notes().toString());
        }
    }
}
