package org.hyperprof.report.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.report.pprof.proto.Function;
import org.hyperprof.report.pprof.proto.Location;
import org.hyperprof.report.pprof.proto.Mapping;
import org.hyperprof.report.pprof.proto.Profile;
import org.hyperprof.report.pprof.proto.Sample;
import org.hyperprof.testing.sample.TestBatches;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a written profile holds, read back with protobuf-java itself. */
class ProfileContentTest {

    static final long STARTED_MILLIS = 1_700_000_000_123L;

    @TempDir
    Path dir;

    private Profile writeNetworkSession(boolean ended) throws Exception {
        NetworkProfile net = new NetworkProfile(7);
        PprofConsumer pprof = new PprofConsumer(4, 1000, 1000, () -> STARTED_MILLIS);
        pprof.sessionStarted(net.info);
        pprof.samples(net.batch(0));
        if (ended) {
            pprof.sessionEnded(net.summary());
        }
        return Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("net.pb.gz")));
    }

    @Test
    void stringTableStartsWithTheEmptyString() throws Exception {
        Profile p = writeNetworkSession(true);
        assertEquals("", p.getStringTable(0));
    }

    @Test
    void sampleTypesAreSamplesAndEventsCountedInCountAndTheEventsAreTheDefault() throws Exception {
        Profile p = writeNetworkSession(true);
        assertEquals(2, p.getSampleTypeCount());
        assertEquals("samples", Profiles.string(p, p.getSampleType(0).getType()));
        assertEquals("count", Profiles.string(p, p.getSampleType(0).getUnit()));
        assertEquals("events", Profiles.string(p, p.getSampleType(1).getType()));
        assertEquals("count", Profiles.string(p, p.getSampleType(1).getUnit()));
        assertEquals("events", Profiles.string(p, p.getDefaultSampleType()));
    }

    @Test
    void periodTypeIsEventsAndPeriodTheCountersCount() throws Exception {
        Profile p = writeNetworkSession(true);
        assertEquals("events", Profiles.string(p, p.getPeriodType().getType()));
        assertEquals("count", Profiles.string(p, p.getPeriodType().getUnit()));
        assertEquals(100000, p.getPeriod());
    }

    @Test
    void aClockEventsWeightsAreCpuNanosecondsAndARecordingByFrequencyGetsItsMeanPeriod() throws Exception {
        // perf's cpu-clock sampled at a frequency: no fixed period, each sample's period in nanoseconds.
        CounterConfig clock = new CounterConfig(0, new EventDescriptor("cpu-clock", 0, 1, 1,
                NetworkProfile.CYCLES_100000.event().unitMask(), null, "perf's cpu-clock"), 0, 0, true, true);
        NetworkProfile net = new NetworkProfile(21, clock);
        TestBatches b = new TestBatches(21);
        b.sample(0, 0, (byte) 1, 0, net.netifRxAt.pc(), net.netifRxAt.image(), net.netifRxAt.symbol(), 250_000,
                5_000_000_000L, 0, 7, 7);
        b.sample(0, 0, (byte) 1, 0, net.netifRxAt.pc(), net.netifRxAt.image(), net.netifRxAt.symbol(), 350_000,
                5_400_000_000L, 0, 7, 7);
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(net.info);
        pprof.samples(b.build());
        Profile p = Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("clock.pb.gz")));
        assertEquals("cpu", Profiles.string(p, p.getSampleType(1).getType()));
        assertEquals("nanoseconds", Profiles.string(p, p.getSampleType(1).getUnit()));
        assertEquals("cpu", Profiles.string(p, p.getPeriodType().getType()));
        assertEquals("nanoseconds", Profiles.string(p, p.getPeriodType().getUnit()));
        assertEquals(300_000, p.getPeriod(), "the mean of the samples' periods");
        assertEquals(600_000, Profiles.total(p, "cpu"), "the summed periods");
        assertEquals(400_000_000L, p.getDurationNanos(), "from the first sample's time to the last's");
    }

    @Test
    void eventsAreTheSummedWeightsOfTheSamples() throws Exception {
        Profile p = writeNetworkSession(true);
        for (Sample s : p.getSampleList()) {
            assertEquals(s.getValue(0) * 100000, s.getValue(1));
        }
        assertEquals(150, Profiles.total(p, "samples"));
        assertEquals(15_000_000, Profiles.total(p, "events"));
    }

    @Test
    void oneSamplePerDistinctDomainVcpuModeAndStack() throws Exception {
        Profile p = writeNetworkSession(true);
        assertEquals(8, p.getSampleCount());
        assertEquals(Map.of("Domain-0", 100L, "domU-rcv", 50L), Profiles.byLabel(p, "samples", "domain"));
        assertEquals(Map.of("0", 100L, "1", 50L), Profiles.byLabel(p, "samples", "domain_id"));
        assertEquals(Map.of("0", 130L, "1", 20L), Profiles.byLabel(p, "samples", "vcpu"));
        assertEquals(Map.of("xen", 60L, "kernel", 75L, "user", 15L), Profiles.byLabel(p, "samples", "mode"));
    }

    @Test
    void callChainsAreLeafFirstThenCallers() throws Exception {
        Profile p = writeNetworkSession(true);
        Sample netif = p.getSampleList().stream()
                .filter(s -> Profiles.stack(p, s).get(0).equals("netif_rx")).findFirst().orElseThrow();
        assertEquals(List.of("netif_rx", "e1000_intr", "do_IRQ"), Profiles.stack(p, netif));
        assertEquals(15, netif.getValue(0));
    }

    @Test
    void flatSamplesPerFunctionMatchTheBatch() throws Exception {
        Profile p = writeNetworkSession(true);
        assertEquals(Map.of("find_domain_by_id", 40L, "gnttab_copy", 20L, "e1000_intr", 25L, "netif_rx", 15L,
                "vmlinux-xen0 (no symbols)", 10L, "tcp_v4_rcv", 25L, "main", 15L), Profiles.flat(p, "samples"));
    }

    @Test
    void eachDistinctPcIsOneLocationWithItsAddressAndFunction() throws Exception {
        Profile p = writeNetworkSession(true);
        // 12 distinct (image, symbol, pc): e1000_intr is sampled at one PC and calls netif_rx from another.
        assertEquals(12, p.getLocationCount());
        Location netifRx = p.getLocationList().stream().filter(l -> l.getAddress() == 0xC0200040L).findFirst()
                .orElseThrow();
        Function f = p.getFunctionList().stream().filter(fn -> fn.getId() == netifRx.getLine(0).getFunctionId())
                .findFirst().orElseThrow();
        assertEquals("netif_rx", Profiles.string(p, f.getName()));
        Mapping m = p.getMappingList().stream().filter(mp -> mp.getId() == netifRx.getMappingId()).findFirst()
                .orElseThrow();
        assertEquals("vmlinux-xen0", Profiles.string(p, m.getFilename()));
    }

    @Test
    void everyImageIsAMappingSpanningItsSampledAddresses() throws Exception {
        Profile p = writeNetworkSession(true);
        assertEquals(6, p.getMappingCount());
        Mapping kernel = p.getMappingList().stream()
                .filter(m -> Profiles.string(p, m.getFilename()).equals("vmlinux-xen0")).findFirst().orElseThrow();
        // do_IRQ at 0xC0100200 is the lowest PC of dom0's kernel, the unsymbolized 0xC0300000 the highest.
        assertEquals(0xC0100200L, kernel.getMemoryStart());
        assertEquals(0xC0300001L, kernel.getMemoryLimit());
        assertTrue(p.getMappingList().stream().allMatch(Mapping::getHasFunctions),
                "functions are named, so readers must not symbolize");
        assertEquals(2, p.getMappingList().stream()
                .filter(m -> Profiles.string(p, m.getFilename()).equals("xen-syms")).count(),
                "each domain's hypervisor image is its own mapping");
    }

    @Test
    void unsymbolizedPcsGetOneFunctionPerImageNamedAfterIt() throws Exception {
        Profile p = writeNetworkSession(true);
        assertTrue(p.getFunctionList().stream()
                .anyMatch(f -> Profiles.string(p, f.getName()).equals("vmlinux-xen0 (no symbols)")));
    }

    @Test
    void idsAreNonZeroAndSamplesReferToExistingLocations() throws Exception {
        Profile p = writeNetworkSession(true);
        Set<Long> locationIds = p.getLocationList().stream().map(Location::getId).collect(java.util.stream.Collectors.toSet());
        Set<Long> functionIds = p.getFunctionList().stream().map(Function::getId).collect(java.util.stream.Collectors.toSet());
        Set<Long> mappingIds = p.getMappingList().stream().map(Mapping::getId).collect(java.util.stream.Collectors.toSet());
        assertFalse(locationIds.contains(0L) || functionIds.contains(0L) || mappingIds.contains(0L));
        for (Sample s : p.getSampleList()) {
            assertTrue(locationIds.containsAll(s.getLocationIdList()));
            assertEquals(p.getSampleTypeCount(), s.getValueCount());
        }
        for (Location l : p.getLocationList()) {
            assertTrue(mappingIds.contains(l.getMappingId()));
            assertTrue(functionIds.contains(l.getLine(0).getFunctionId()));
        }
    }

    @Test
    void durationIsTheSimulatedTimeAndTimeTheSessionStart() throws Exception {
        Profile p = writeNetworkSession(true);
        assertEquals(1_000_000_000L, p.getDurationNanos(), "2.8e9 cycles at 2800 MHz are one second");
        assertEquals(STARTED_MILLIS * 1_000_000L, p.getTimeNanos());
    }

    @Test
    void aRunningSessionHasNoDurationYetAndSaysSo() throws Exception {
        Profile p = writeNetworkSession(false);
        assertEquals(0, p.getDurationNanos());
        assertTrue(Profiles.comments(p).contains("session still running when written"));
        assertEquals(150, Profiles.total(p, "samples"));
    }

    @Test
    void commentsCarryTheCountersTheImagesAndTheAccounting() throws Exception {
        List<String> comments = Profiles.comments(writeNetworkSession(true));
        assertTrue(comments.contains("counter 0: Counted CPU_CLK_UNHALTED events (clocks processor is not halted)"
                + " with a unit mask of 0x00 (No unit mask) count 100000"), comments::toString);
        assertTrue(comments.contains("image e1000: kernel image of domain 0"), comments::toString);
        assertTrue(comments.contains("session ended: completed; samples taken 150 = delivered 150 + lost 0"
                + " + dropped 0 + invalid 0"), comments::toString);
        assertTrue(comments.contains("pprof consumer received 150, missed 0"), comments::toString);
    }

    @Test
    void severalCountersGetSampleTypesNamedAfterTheirEvents() throws Exception {
        NetworkProfile net = new NetworkProfile(3, NetworkProfile.CYCLES_100000, NetworkProfile.INSTRUCTIONS_50000);
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(net.info);
        pprof.samples(net.batch(0));
        pprof.samples(net.batch(1));
        pprof.samples(net.batch(1));
        Profile p = Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("two.pb.gz")));
        assertEquals(List.of("samples:CPU_CLK_UNHALTED", "events:CPU_CLK_UNHALTED", "samples:INST_RETIRED",
                "events:INST_RETIRED"),
                p.getSampleTypeList().stream().map(t -> Profiles.string(p, t.getType())).toList());
        assertEquals(150, Profiles.total(p, "samples:CPU_CLK_UNHALTED"));
        assertEquals(300, Profiles.total(p, "samples:INST_RETIRED"));
        assertEquals(300 * 50000L, Profiles.total(p, "events:INST_RETIRED"));
        assertEquals(8, p.getSampleCount(), "the counters share each stack's Sample");
        assertEquals("events:CPU_CLK_UNHALTED", Profiles.string(p, p.getDefaultSampleType()));
        assertEquals("events", Profiles.string(p, p.getPeriodType().getType()));
    }

    @Test
    void twoCountersOnTheSameEventAreToldApartByCounterIndex() {
        var other = new org.hyperprof.api.pmu.CounterConfig(1, NetworkProfile.CPU_CLK_UNHALTED, 200000, 0, true, false);
        List<org.hyperprof.api.pmu.CounterConfig> counters = List.of(NetworkProfile.CYCLES_100000, other);
        assertEquals(List.of("samples:CPU_CLK_UNHALTED#0", "events:CPU_CLK_UNHALTED#0"),
                List.of(ProfileBuilder.sampleTypeNames(counters, 0)));
        assertEquals(List.of("samples:CPU_CLK_UNHALTED#1", "events:CPU_CLK_UNHALTED#1"),
                List.of(ProfileBuilder.sampleTypeNames(counters, 1)));
    }

    @Test
    void oneDomainsProfileHoldsOnlyItsSamplesImagesAndFunctions() throws Exception {
        NetworkProfile net = new NetworkProfile(9);
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(net.info);
        pprof.samples(net.batch(0));
        Profile p = Profiles.read(Profiles.write(pprof, new ReportRequest(9, NetworkProfile.DOMU, Set.of()), "pprof",
                dir.resolve("domU.pb.gz")));
        assertEquals(Map.of("domU-rcv", 50L), Profiles.byLabel(p, "samples", "domain"));
        assertEquals(Set.of("xen-syms", "vmlinux-xenU", "rcv22"), p.getMappingList().stream()
                .map(m -> Profiles.string(p, m.getFilename())).collect(java.util.stream.Collectors.toSet()));
        assertEquals(Map.of("find_domain_by_id", 10L, "tcp_v4_rcv", 25L, "main", 15L), Profiles.flat(p, "samples"));
        assertTrue(Profiles.comments(p).contains("domain 1 (domU-rcv) only"));
    }

    @Test
    void durationNanosDoNotOverflowForLongSessions() {
        assertEquals(3_600_000_000_000L * 24 * 365, ProfileBuilder.nanos(2800L * 1_000_000 * 3600 * 24 * 365, 2800));
        assertEquals(357, ProfileBuilder.nanos(1000, 2800), "1000 cycles at 2800 MHz are 357 ns (rounded down)");
    }
}
