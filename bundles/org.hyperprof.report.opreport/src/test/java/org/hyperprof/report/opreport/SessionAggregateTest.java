package org.hyperprof.report.opreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;
import org.junit.jupiter.api.Test;

class SessionAggregateTest {

    private final NetworkSession net = new NetworkSession(7);
    private final SessionAggregate aggregate = new SessionAggregate(net.info);

    @Test
    void countsSamplesPerDomainCounterAndImage() {
        aggregate.accept(net.batch(0));
        assertEquals(50, aggregate.imageSamples(NetworkSession.DOM0, 0, net.dom0Xen));
        assertEquals(25, aggregate.imageSamples(NetworkSession.DOM0, 0, net.e1000));
        assertEquals(25, aggregate.imageSamples(NetworkSession.DOM0, 0, net.dom0Kernel));
        assertEquals(10, aggregate.imageSamples(NetworkSession.DOMU, 0, net.domUXen));
        assertEquals(0, aggregate.imageSamples(NetworkSession.DOMU, 0, net.dom0Xen), "dom0's image in domU");
        assertEquals(150, aggregate.snapshot().samples());
    }

    @Test
    void countsSamplesPerDomainCounterAndSymbolWithOneNoSymbolsRowPerImage() {
        aggregate.accept(net.batch(0));
        aggregate.accept(new Batches(7).add(4, NetworkSession.DOM0, CpuMode.HYPERVISOR, 0, net.dom0Xen, -1).build());
        assertEquals(30, aggregate.symbolSamples(NetworkSession.DOM0, 0, net.findDomain0, net.dom0Xen));
        assertEquals(10, aggregate.symbolSamples(NetworkSession.DOMU, 0, net.findDomainU, net.domUXen));
        assertEquals(10, aggregate.symbolSamples(NetworkSession.DOM0, 0, -1, net.dom0Kernel));
        assertEquals(4, aggregate.symbolSamples(NetworkSession.DOM0, 0, -1, net.dom0Xen));
    }

    @Test
    void samplesOfAnotherCounterAreCountedApart() {
        NetworkSession two = new NetworkSession(8, NetworkSession.CYCLES_100000, NetworkSession.INSTRUCTIONS_50000);
        SessionAggregate a = new SessionAggregate(two.info);
        a.accept(new Batches(8).add(3, NetworkSession.DOM0, CpuMode.USER, 1, two.e1000, two.e1000Intr)
                .add(1, NetworkSession.DOM0, CpuMode.USER, 0, two.e1000, two.e1000Intr).build());
        assertEquals(1, a.imageSamples(NetworkSession.DOM0, 0, two.e1000));
        assertEquals(3, a.imageSamples(NetworkSession.DOM0, 1, two.e1000));
        assertEquals(3, a.symbolSamples(NetworkSession.DOM0, 1, two.e1000Intr, two.e1000));
    }

    @Test
    void aSessionWhoseOnlyCounterIsNumberOneCountsItsSamples() {
        // A PowerPC 970 event sits on the counter its group names: the session's only counter may be
        // number 1, and samples carry that number, not a position in the counter list.
        NetworkSession ppc = new NetworkSession(9, NetworkSession.INSTRUCTIONS_50000);
        SessionAggregate a = new SessionAggregate(ppc.info);
        a.accept(new Batches(9).add(6, NetworkSession.DOM0, CpuMode.KERNEL, 1, ppc.e1000, ppc.e1000Intr)
                .add(2, NetworkSession.DOM0, CpuMode.KERNEL, 0, ppc.e1000, ppc.e1000Intr).build());
        assertEquals(6, a.imageSamples(NetworkSession.DOM0, 0, ppc.e1000), "counter 1 is the session's first");
        assertEquals(2, a.snapshot().rejectedSamples(), "counter 0 was not configured");
        assertTrue(a.snapshot().firstRejection().contains("counter 0 is not one of the session's 1 counters [1]"),
                a.snapshot().firstRejection());
    }

    @Test
    void idsOutsideTheDictionaryAreRejectedAndCountedWhileTheRestOfTheBatchCounts() {
        aggregate.accept(new Batches(7).add(5, NetworkSession.DOM0, CpuMode.KERNEL, 0, net.e1000, net.e1000Intr)
                .add(2, NetworkSession.DOM0, CpuMode.KERNEL, 0, 999, -1)
                .add(1, NetworkSession.DOM0, CpuMode.KERNEL, 0, net.e1000, 999).build());
        SessionAggregate.Snapshot s = aggregate.snapshot();
        assertEquals(5, s.samples());
        assertEquals(3, s.rejectedSamples());
        assertEquals(1, s.rejectedBatches());
        assertTrue(s.firstRejection().contains("image id 999 is outside the dictionary's 6 images"),
                s.firstRejection());
        assertEquals(5, aggregate.imageSamples(NetworkSession.DOM0, 0, net.e1000));
    }

    @Test
    void aCounterTheSessionDidNotConfigureIsRejected() {
        aggregate.accept(new Batches(7).add(1, NetworkSession.DOM0, CpuMode.KERNEL, 1, net.e1000, -1).build());
        SessionAggregate.Snapshot s = aggregate.snapshot();
        assertEquals(0, s.samples());
        assertTrue(s.firstRejection().contains("counter 1 is not one of the session's 1 counters"),
                s.firstRejection());
    }

    @Test
    void aSymbolOfAnotherImageIsRejected() {
        aggregate.accept(new Batches(7).add(1, NetworkSession.DOM0, CpuMode.KERNEL, 0, net.e1000, net.netifRx).build());
        SessionAggregate.Snapshot s = aggregate.snapshot();
        assertEquals(1, s.rejectedSamples());
        assertTrue(s.firstRejection().contains("belongs to image " + net.dom0Kernel), s.firstRejection());
    }

    @Test
    void aDomainIdBeyondSixteenBitsIsRejected() {
        aggregate.accept(new Batches(7).add(1, 0x10000, CpuMode.KERNEL, 0, net.e1000, -1).build());
        assertTrue(aggregate.snapshot().firstRejection().contains("not a 16-bit domain id"));
    }

    @Test
    void aNegativeVcpuIsRejected() {
        SampleBatchesForVcpu.accept(aggregate, net, -1);
        assertEquals(0, aggregate.snapshot().samples());
        assertTrue(aggregate.snapshot().firstRejection().contains("vcpu -1 is negative (vCPU ids count from 0)"),
                aggregate.snapshot().firstRejection());
    }

    @Test
    void countsAreKeptPerVcpuAndAddedUpPerDomain() {
        SampleBatchesForVcpu.accept(aggregate, net, 0);
        SampleBatchesForVcpu.accept(aggregate, net, 3);
        SampleBatchesForVcpu.accept(aggregate, net, 3);
        assertEquals(1, aggregate.symbolSamples(NetworkSession.DOM0, 0, 0, net.e1000Intr, net.e1000));
        assertEquals(2, aggregate.symbolSamples(NetworkSession.DOM0, 3, 0, net.e1000Intr, net.e1000));
        assertEquals(3, aggregate.symbolSamples(NetworkSession.DOM0, 0, net.e1000Intr, net.e1000));
        assertEquals(3, aggregate.imageSamples(NetworkSession.DOM0, 0, net.e1000));
    }

    /** One e1000_intr sample of dom0 on the given vCPU. */
    private static final class SampleBatchesForVcpu {
        static void accept(SessionAggregate aggregate, NetworkSession net, int vcpu) {
            aggregate.accept(new Batches(7).stack(1, NetworkSession.DOM0, vcpu, CpuMode.KERNEL, 0, 0xC0100000L,
                    net.e1000, net.e1000Intr).build());
        }
    }

    @Test
    void symbolsTheDictionaryLearnsMidSessionAreAccepted() {
        aggregate.accept(net.batch(0));
        int late = net.dictionary.image(NetworkSession.DOMU, "libc.so", ImageKind.USER);
        int memcpy = net.dictionary.symbol(late, "memcpy");
        aggregate.accept(new Batches(7).add(2, NetworkSession.DOMU, CpuMode.USER, 0, late, memcpy).build());
        assertEquals(2, aggregate.symbolSamples(NetworkSession.DOMU, 0, memcpy, late));
        assertNull(aggregate.snapshot().firstRejection());
    }
}
