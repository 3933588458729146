package org.hyperprof.report.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.report.pprof.ChainBatches.Frame;
import org.hyperprof.report.pprof.proto.Location;
import org.hyperprof.report.pprof.proto.Profile;
import org.hyperprof.report.pprof.proto.Sample;
import org.hyperprof.testing.alloc.Allocations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How samples become pprof Samples and Locations: what merges, what stays apart, what is cut, what is rejected. */
class AggregationRulesTest {

    @TempDir
    Path dir;

    private final NetworkProfile net = new NetworkProfile(5);

    private Profile profileOf(PprofConsumer pprof) throws Exception {
        return Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("p.pb.gz")));
    }

    private Profile profileOf(SampleBatch... batches) throws Exception {
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(net.info);
        for (SampleBatch b : batches) {
            pprof.samples(b);
        }
        return profileOf(pprof);
    }

    @Test
    void identicalSamplesAcrossBatchesShareOneSample() throws Exception {
        SampleBatch batch = new ChainBatches(5).add(3, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt, net.doIrqAt).build();
        Profile p = profileOf(batch, batch, batch);
        assertEquals(1, p.getSampleCount());
        assertEquals(9, p.getSample(0).getValue(0));
    }

    @Test
    void samplesDifferingInDomainVcpuOrModeStayApart() throws Exception {
        Profile p = profileOf(new ChainBatches(5).add(1, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt)
                .add(1, 1, 0, CpuMode.KERNEL, 0, net.netifRxAt).add(1, 0, 1, CpuMode.KERNEL, 0, net.netifRxAt)
                .add(1, 0, 0, CpuMode.USER, 0, net.netifRxAt).build());
        assertEquals(4, p.getSampleCount());
        assertEquals(1, p.getLocationCount(), "one PC, one location, whoever sampled it");
    }

    @Test
    void samplesDifferingOnlyInACallerStayApart() throws Exception {
        Profile p = profileOf(new ChainBatches(5).add(2, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt, net.doIrqAt)
                .add(3, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt, net.e1000IntrCallsNetifRx, net.doIrqAt).build());
        assertEquals(2, p.getSampleCount());
        assertEquals(Map.of("netif_rx", 5L), Profiles.flat(p, "samples"));
    }

    @Test
    void twoPcsOfOneFunctionAreTwoLocationsOfOneFunction() throws Exception {
        Profile p = profileOf(new ChainBatches(5).add(1, 0, 0, CpuMode.KERNEL, 0, net.e1000IntrAt)
                .add(1, 0, 0, CpuMode.KERNEL, 0, net.e1000IntrCallsNetifRx).build());
        assertEquals(2, p.getLocationCount());
        assertEquals(1, p.getFunctionCount());
        assertEquals(Map.of("e1000_intr", 2L), Profiles.flat(p, "samples"));
    }

    @Test
    void modesAboveTwoAreLabelledXenAsXenCountsThem() throws Exception {
        Profile p = profileOf(new ChainBatches(5).addRaw(4, 0, 0, (byte) 3, 0, net.findDomain0At).build());
        assertEquals(Map.of("xen", 4L), Profiles.byLabel(p, "samples", "mode"));
    }

    @Test
    void aSampleWithIdsOutsideTheDictionaryIsRejectedAndTheRestOfTheBatchCounts() throws Exception {
        Profile p = profileOf(new ChainBatches(5).add(5, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt)
                .add(1, 0, 0, CpuMode.KERNEL, 0, new Frame(0xC0000000L, 99, -1))
                .add(1, 0, 0, CpuMode.KERNEL, 0, new Frame(0xC0000000L, net.rcv22, net.netifRx))
                .add(1, 0, 0, CpuMode.KERNEL, 7, net.netifRxAt).build());
        assertEquals(5, Profiles.total(p, "samples"));
        assertTrue(Profiles.comments(p).contains("rejected 3 samples in 1 batches; first: batch 1 sample 5:"
                + " image id 99 is outside the dictionary's 6 images"), () -> Profiles.comments(p).toString());
    }

    @Test
    void aNegativeDomainOrVcpuIsRejectedWithItsReason() throws Exception {
        Profile p = profileOf(new ChainBatches(5).add(1, 0, -1, CpuMode.KERNEL, 0, net.netifRxAt).build(),
                new ChainBatches(5).add(1, -3, 0, CpuMode.KERNEL, 0, net.netifRxAt).build());
        assertEquals(0, p.getSampleCount());
        assertTrue(Profiles.comments(p).contains("rejected 2 samples in 2 batches; first: batch 1 sample 0:"
                + " vcpu -1 is negative (vCPU ids count from 0)"), () -> Profiles.comments(p).toString());
    }

    @Test
    void anInvalidCallerCutsTheChainThereAndTheSampleStillCounts() throws Exception {
        Profile p = profileOf(new ChainBatches(5).add(2, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt,
                net.e1000IntrCallsNetifRx, new Frame(0x1234L, 42, 7), net.doIrqAt).build());
        assertEquals(List.of("netif_rx", "e1000_intr"), Profiles.stack(p, p.getSample(0)));
        assertEquals(2, Profiles.total(p, "samples"));
        assertTrue(Profiles.comments(p).contains("call chains cut short: 2; first: batch 1 sample 0: caller 1 names"
                + " image 42 and symbol 7, which the session's dictionary does not hold together"),
                () -> Profiles.comments(p).toString());
    }

    @Test
    void chainsDeeperThanTheLimitKeepTheirInnermostCallers() throws Exception {
        Frame[] callers = new Frame[SessionStacks.MAX_CALLERS + 10];
        for (int i = 0; i < callers.length; i++) {
            callers[i] = new Frame(0xC0100000L + i, net.dom0Kernel, net.doIrq);
        }
        Profile p = profileOf(new ChainBatches(5).add(1, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt, callers).build());
        Sample s = p.getSample(0);
        assertEquals(1 + SessionStacks.MAX_CALLERS, s.getLocationIdCount());
        Location innermostCaller = p.getLocationList().stream().filter(l -> l.getId() == s.getLocationId(1))
                .findFirst().orElseThrow();
        assertEquals(0xC0100000L, innermostCaller.getAddress());
    }

    @Test
    void pastTheLocationLimitNewPcsFoldIntoTheirFunctionAndFlatTotalsStayExact() throws Exception {
        PprofConsumer pprof = new PprofConsumer(1, 3, 1000, () -> 0L);
        pprof.sessionStarted(net.info);
        ChainBatches b = new ChainBatches(5);
        for (int i = 0; i < 10; i++) {
            b.add(1, 0, 0, CpuMode.KERNEL, 0, new Frame(0xC0200000L + i, net.dom0Kernel, net.netifRx));
        }
        b.add(2, 0, 0, CpuMode.KERNEL, 0, new Frame(0xC0200000L, net.dom0Kernel, net.netifRx));
        pprof.samples(b.build());
        Profile p = profileOf(pprof);
        assertEquals(4, p.getLocationCount(), "3 exact PCs and the function's folded location");
        assertTrue(p.getLocationList().stream().anyMatch(l -> l.getAddress() == 0));
        assertEquals(Map.of("netif_rx", 12L), Profiles.flat(p, "samples"));
        assertTrue(Profiles.comments(p).contains(
                "PCs counted at their function's location (address 0) after 3 distinct PCs: 7"),
                () -> Profiles.comments(p).toString());
    }

    @Test
    void pastTheStackLimitNewStacksLoseTheirCallersAndFlatTotalsStayExact() throws Exception {
        PprofConsumer pprof = new PprofConsumer(1, 1000, 2, () -> 0L);
        pprof.sessionStarted(net.info);
        pprof.samples(new ChainBatches(5).add(1, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt, net.doIrqAt)
                .add(1, 0, 0, CpuMode.KERNEL, 0, net.e1000IntrAt, net.doIrqAt)
                .add(4, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt, net.e1000IntrCallsNetifRx, net.doIrqAt)
                .add(1, 0, 0, CpuMode.KERNEL, 0, net.netifRxAt, net.doIrqAt).build());
        Profile p = profileOf(pprof);
        assertEquals(3, p.getSampleCount(), "the two stacks it had room for, and netif_rx alone");
        assertEquals(Map.of("netif_rx", 6L, "e1000_intr", 1L), Profiles.flat(p, "samples"));
        assertTrue(Profiles.comments(p).contains("samples counted under their leaf alone after 2 distinct stacks: 4"),
                () -> Profiles.comments(p).toString());
    }

    @Test
    void countingKnownStacksAllocatesNothing() {
        SessionStacks session = new SessionStacks(net.info, 0, 1000, 1000);
        SampleBatch batch = net.batch(0);
        session.accept(batch);
        long allocated = Allocations.leastBytes(() -> {
            for (int i = 0; i < 100; i++) {
                session.accept(batch);
            }
        });
        assertTrue(allocated < 1024, "counting 100 batches of known stacks allocated " + allocated + " bytes");
        assertEquals((1 + Allocations.WINDOWS * 100) * 150, session.snapshot().samples());
    }

    @Test
    void tablesRefuseLimitsBelowOne() {
        assertThrows(IllegalArgumentException.class, () -> new PprofConsumer(1, 0, 10, () -> 0L));
        assertThrows(IllegalArgumentException.class, () -> new PprofConsumer(1, 10, 0, () -> 0L));
        assertThrows(IllegalArgumentException.class, () -> new PprofConsumer(0, 10, 10, () -> 0L));
    }

    @Test
    void locationTableFindsEveryEntryAfterGrowing() {
        LocationTable table = new LocationTable(100_000);
        for (int i = 0; i < 5000; i++) {
            assertEquals(i, table.intern(i % 7, i % 13, 0xC0000000L + i * 4L));
        }
        for (int i = 0; i < 5000; i++) {
            assertEquals(i, table.find(i % 7, i % 13, 0xC0000000L + i * 4L));
        }
        assertEquals(-1, table.find(0, 0, 0x1L));
    }

    @Test
    void stackTableCountsEachStackAndCounterApart() {
        StackTable table = new StackTable(2, 100_000);
        int[] key = new int[StackTable.HEADER + 2];
        for (int i = 0; i < 3000; i++) {
            key[0] = i % 3;
            key[1] = 0;
            key[2] = 1;
            // no thread (pid, tid, comm unknown)
            key[3] = -1;
            key[4] = -1;
            key[5] = -1;
            key[StackTable.HEADER] = i;
            key[StackTable.HEADER + 1] = i + 1;
            table.count(key, StackTable.HEADER + 2, i % 2, 1);
            table.count(key, StackTable.HEADER + 2, i % 2, 1);
        }
        assertEquals(3000, table.size());
        for (int s = 0; s < table.size(); s++) {
            assertEquals(2, table.count(s, s % 2));
            assertEquals(0, table.count(s, 1 - s % 2));
            assertEquals(s, table.location(s, 0));
            assertEquals(s + 1, table.location(s, 1));
            assertEquals(s % 3, table.domain(s));
        }
    }
}
