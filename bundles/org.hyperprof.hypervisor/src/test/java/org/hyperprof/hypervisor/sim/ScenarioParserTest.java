package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.minimal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.RegionSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.ScenarioOrigin;
import org.hyperprof.hypervisor.sim.scenario.ScenarioParser;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioParserTest {

    private static final String DOM = "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes";

    // ------------------------------------------------------------------------------------ valid input

    @Test
    void defaultScenarioDescribesTheXenSummitNetworkHost() throws Exception {
        Scenario s = new HostServiceImpl().parse("xen-summit-2006-network");
        assertEquals("xen-summit-2006-network", s.name());
        assertEquals("i386/p6", s.cpuType());
        assertEquals(2800, s.mhz());
        assertEquals(2, s.pcpus());
        assertEquals("systemwide", s.policy());
        assertEquals("false", s.pmuOptions().get("lvtpc.automask"));
        assertEquals("xen-syms", s.hypervisor().name());
        assertEquals(2, s.domains().size());
        DomainSpec dom0 = s.domains().get(0);
        assertEquals("Domain-0", dom0.name());
        assertTrue(dom0.hardwareDomain());
        assertFalse(dom0.hvm());
        assertEquals(List.of("vmlinux-syms-2.6.16-xen0", "e1000", "bridge", "ip_tables", "ip_conntrack", "oprofiled",
                "libc-2.3.6.so"), dom0.images().stream().map(ImageSpec::name).toList());
        DomainSpec domU = s.domains().get(1);
        assertEquals("domU-rcv", domU.name());
        assertEquals(1, domU.domid());
        assertTrue(domU.loadPpm() < 1_000_000, "the domU leaves idle time");
    }

    @Test
    void defaultScenarioDom0RegionsGiveTheSeedTableSplit() throws Exception {
        DomainSpec dom0 = new HostServiceImpl().parse("xen-summit-2006-network").domains().get(0);
        double total = 0;
        double kernel = 0;
        double xen = 0;
        for (RegionSpec r : dom0.regions()) {
            total += r.weight();
            if (r.mode() == CpuMode.KERNEL) {
                kernel += r.weight();
            } else if (r.mode() == CpuMode.HYPERVISOR) {
                xen += r.weight();
            }
        }
        assertEquals(57.28, 100 * kernel / total, 0.01);
        assertEquals(42.47, 100 * xen / total, 0.01);
        assertEquals(11.89, weightOf(dom0, "netback") / 1e6, 1e-9);
        assertEquals(8.69, weightOf(dom0, "grant_table.o") / 1e6, 1e-9);
        assertEquals(4.39, weightOf(dom0, "find_domain_by_id") / 1e6, 1e-9);
    }

    private static long weightOf(DomainSpec d, String region) {
        return d.regions().stream().filter(r -> r.name().equals(region)).findFirst().orElseThrow().weight();
    }

    @Test
    void symbolLinesNameCallersInnermostFirstAndMayQualifyTheirImage() throws Exception {
        DomainSpec dom0 = new HostServiceImpl().parse("xen-summit-2006-network").domains().get(0);
        WeightedSymbol brHandleFrame = dom0.regions().stream().filter(r -> r.name().equals("bridge")).findFirst()
                .orElseThrow().symbols().get(0);
        assertEquals("br_handle_frame", brHandleFrame.symbol().name());
        assertEquals("bridge", brHandleFrame.symbol().image().name());
        assertEquals(List.of("netif_receive_skb", "process_backlog", "net_rx_action"),
                brHandleFrame.callers().stream().map(c -> c.name()).toList());
        assertEquals("vmlinux-syms-2.6.16-xen0", brHandleFrame.callers().get(0).image().name());
    }

    @Test
    void regionRatesComeFromTheProfileAndSymbolAttributesOverrideThem() throws Exception {
        Scenario s = Fixtures.parse(minimal("rates net CYCLES=1000 INSTRUCTIONS=500 L2_MISSES=3\n", DOM, "")
                .replace("region k kernel vmlinux weight=1\nsymbol tcp_v4_rcv 1\n",
                        "region k kernel vmlinux weight=1 L2_MISSES=9 rates=net\nsymbol tcp_v4_rcv 1\n"
                                + "symbol ip_rcv 1 INSTRUCTIONS=200\n"));
        List<WeightedSymbol> symbols = s.domains().get(0).regions().get(0).symbols();
        assertEquals(1000, symbols.get(0).rates()[Signal.CYCLES.ordinal()]);
        assertEquals(500, symbols.get(0).rates()[Signal.INSTRUCTIONS.ordinal()]);
        assertEquals(9, symbols.get(0).rates()[Signal.L2_MISSES.ordinal()], "region attribute beats the profile");
        assertEquals(200, symbols.get(1).rates()[Signal.INSTRUCTIONS.ordinal()], "symbol attribute beats the region");
    }

    @Test
    void commentsBlankLinesAndIndentationAreIgnored() throws Exception {
        Scenario s = Fixtures.parse("# a comment\n\n   " + minimal("", DOM, "   # trailing\n")
                .replace("cpu.count 1\n", "  cpu.count 1   # one CPU\n"));
        assertEquals(1, s.pcpus());
    }

    @Test
    void processBiasShiftsSymbolFileAddressesToTheLoadAddress() throws Exception {
        Scenario s = Fixtures.parse(minimal("", DOM,
                "process libc 0xb7e1e000-0xb7e26000 symbols/libc-2.3.6.so.map bias=0xb7e1e000\n"
                        + "region u user libc weight=1\nsymbol __libc_recv 1\n"));
        WeightedSymbol recv = s.domains().get(0).regions().get(1).symbols().get(0);
        assertEquals(0xb7e1e000L + recv.symbol().image().symbols().start(recv.symbol().index()), recv.symbol().start());
        assertEquals(ImageKind.USER, recv.symbol().image().kind());
    }

    @Test
    void symbolFilesOfAScenarioFileResolveNextToIt(@TempDir Path dir) throws Exception {
        Path symbols = dir.resolve("symbols");
        Files.createDirectories(symbols);
        Files.writeString(symbols.resolve("xen-syms-3.0.map"), "ff100000 T default_idle\nff100040 T do_nmi\n"
                + "ff100100 T _etext\n");
        Files.writeString(symbols.resolve("vmlinux-syms-2.6.16-xen0.map"), "c0100000 T tcp_v4_rcv\n"
                + "c0100200 T ip_rcv\nc0100400 T _etext\n");
        Files.writeString(symbols.resolve("rcv22.map"), "08048000 T main\n08048100 T _etext\n");
        Path file = dir.resolve("mini.scenario");
        Files.writeString(file, minimal("", DOM, ""));
        Scenario s = ScenarioParser.parse(ScenarioOrigin.file(file));
        assertEquals(0xc0100000L, s.domains().get(0).regions().get(0).symbols().get(0).symbol().start());
        assertEquals(0x200, s.domains().get(0).regions().get(0).symbols().get(0).symbol().size(),
                "a function extends to the next symbol");
        assertEquals(symbols.resolve("vmlinux-syms-2.6.16-xen0.map").toString(),
                s.domains().get(0).images().get(0).source().location());
    }

    // ------------------------------------------------------------------------------- malformed input

    @Test
    void theFirstStatementMustNameTheScenario() {
        assertError("cpu.type i386/p6\n", "test.scenario:1:", "must begin with 'scenario <name>'");
    }

    @Test
    void anUnknownKeywordIsRejectedWithTheKeywordsExpected() {
        assertError(minimal("cpu.speed 2800\n", DOM, ""), "test.scenario:6:", "unknown statement 'cpu.speed'",
                "cpu.mhz");
    }

    @Test
    void hostStatementsMayNotFollowADomain() {
        assertError(minimal("", DOM, "seed 9\n"), "test.scenario:13:", "host statement");
    }

    @Test
    void aNumberThatIsNotAnIntegerIsRejected() {
        assertError(minimal("", DOM, "").replace("cpu.mhz 1000", "cpu.mhz fast"), "test.scenario:3:",
                "cpu.mhz 'fast' is not an integer");
    }

    @Test
    void aStatementWithTheWrongNumberOfArgumentsSaysWhatWasExpected() {
        assertError(minimal("", DOM, "").replace("cpu.count 1", "cpu.count 1 2"), "test.scenario:4:",
                "expected 'cpu.count <number of physical CPUs>'");
    }

    @Test
    void anUnknownSignalIsRejectedListingTheSignals() {
        assertError(minimal("rates r CYCLES=1000 CACHE_MISSES=3\n", DOM, ""), "test.scenario:6:",
                "'CACHE_MISSES' is not a signal", "L2_MISSES");
    }

    @Test
    void runningCodeEmitsExactlyOneThousandCyclesPerThousandCycles() {
        assertError(minimal("rates r CYCLES=900\n", DOM, ""), "test.scenario:6:", "CYCLES=900");
    }

    @Test
    void anUndefinedRateProfileIsRejected() {
        assertError(minimal("", DOM, "region r kernel vmlinux weight=1 rates=fast\nsymbol ip_rcv 1\n"),
                "test.scenario:13:", "rate profile 'fast' is not defined");
    }

    @Test
    void aRegionMustUseAnImageOfItsDomain() {
        assertError(minimal("", DOM, "region r kernel e1000 weight=1\nsymbol e1000_intr 1\n"), "test.scenario:13:",
                "image 'e1000' is not loaded in domain 0");
    }

    @Test
    void aRegionModeMustFitItsImage() {
        assertError(minimal("", DOM, "region r user vmlinux weight=1\nsymbol ip_rcv 1\n"), "test.scenario:13:",
                "user code runs in a process image");
        assertError(minimal("", DOM, "region r kernel xen-syms weight=1\nsymbol do_nmi 1\n"), "test.scenario:13:",
                "kernel code runs in the kernel or a module");
    }

    @Test
    void aSymbolMustBeAFunctionOfItsImage() {
        assertError(minimal("", DOM, "region r kernel vmlinux weight=1\nsymbol tcp_v4_recv 1\n"),
                "test.scenario:14:", "no function 'tcp_v4_recv'", "similar: [tcp_v4_rcv");
    }

    @Test
    void aCallerInAnUnknownImageIsRejected() {
        assertError(minimal("", DOM, "region r kernel vmlinux weight=1\nsymbol ip_rcv<e1000:e1000_intr 1\n"),
                "test.scenario:14:", "image 'e1000' is not loaded");
    }

    @Test
    void aCallerChainStaysOnTheStackOfTheCodeItCalls() {
        assertError(minimal("", DOM, "region r kernel vmlinux weight=1\nsymbol ip_rcv<rcv22:main 1\n"),
                "test.scenario:14:", "caller 'rcv22:main' of kernel code 'ip_rcv' is user code",
                "functions of its kernel or modules");
        assertError(minimal("", DOM, "region r user rcv22 weight=1\nsymbol main<vmlinux:ip_rcv 1\n"),
                "test.scenario:14:", "is kernel code", "functions of the domain's processes");
        assertError(minimal("", DOM, "region x hypervisor xen-syms weight=1\nsymbol do_nmi<vmlinux:ip_rcv 1\n"),
                "test.scenario:14:", "functions of the hypervisor image");
    }

    @Test
    void xenFramePointersAreOffUnlessTheScenarioSaysYes() throws Exception {
        assertFalse(Fixtures.parse(minimal("", DOM, "")).xenFramePointers(), "release builds of Xen have no frame pointers");
        assertTrue(Fixtures.parse(minimal("xen.frame-pointers yes\n", DOM, "")).xenFramePointers());
        assertFalse(Fixtures.parse(minimal("xen.frame-pointers no\n", DOM, "")).xenFramePointers());
        assertError(minimal("xen.frame-pointers maybe\n", DOM, ""), "test.scenario:6:",
                "xen.frame-pointers maybe is neither yes nor no");
    }

    @Test
    void theHostOptionXenFramePointersOverridesTheScenariosLine() throws Exception {
        assertTrue(Fixtures.parse(minimal("host.option xen.frame-pointers=yes\n", DOM, "")).xenFramePointers());
        Scenario withLine = Fixtures.parse(minimal("xen.frame-pointers yes\n", DOM, ""));
        assertFalse(withLine.withOptions(java.util.Map.of("xen.frame-pointers", "no"), null).xenFramePointers());
        assertTrue(org.hyperprof.hypervisor.sim.scenario.HostOptions.describe().contains("xen.frame-pointers (yes|no"),
                "the known host options list it");
    }

    @Test
    void aRegionWithoutSymbolsIsRejectedAtItsLine() {
        assertError(minimal("", DOM, "region empty kernel vmlinux weight=1\n"), "test.scenario:13:",
                "region 'empty' has no symbols");
    }

    @Test
    void aSymbolOutsideARegionIsRejected() {
        assertError(minimal("", DOM, "").replace("region k kernel vmlinux weight=1\n", ""), "test.scenario:11:",
                "'symbol' belongs to a region");
    }

    @Test
    void weightsMustBePositive() {
        assertError(minimal("", DOM, "region r kernel vmlinux weight=0\nsymbol ip_rcv 1\n"), "test.scenario:13:",
                "must be above 0");
        assertError(minimal("", DOM, "region r kernel vmlinux weight=1\nsymbol ip_rcv -2\n"), "test.scenario:14:",
                "must be above 0");
    }

    @Test
    void loadIsAFractionOfOne() {
        assertError(minimal("", DOM.replace("load=0.5", "load=1.5"), ""), "test.scenario:8:",
                "load 1.5 must be a fraction from 0 to 1");
    }

    @Test
    void aDomainNeedsTypeVcpusAndLoad() {
        assertError(minimal("", "domain 0 d0 type=pv load=0.5", ""), "test.scenario:8:", "missing vcpus=");
        assertError(minimal("", "domain 0 d0 type=xen vcpus=1 load=0.5", ""), "test.scenario:8:",
                "type=xen is neither pv nor hvm");
        assertError(minimal("", "domain 0 d0 type=pv vcpus=1 load=0.5 colour=blue", ""), "test.scenario:8:",
                "unknown attribute 'colour'");
    }

    @Test
    void domainIdsAreUnique() {
        assertError(minimal("", DOM, "domain 0 other type=pv vcpus=1 load=0\n"
                + "kernel vmlinux 0xc0100000-0xc0121000 symbols/vmlinux-syms-2.6.16-xenU.map\n"), "test.scenario:13:",
                "domain 0 is declared twice (first on line 8)");
    }

    @Test
    void aHostHasOneHardwareDomain() {
        assertError(minimal("", DOM, "domain 1 other type=pv vcpus=1 load=0 hardware=yes\n"), "test.scenario:13:",
                "already the hardware domain");
    }

    @Test
    void imagesOfADomainDoNotOverlap() {
        assertError(minimal("", DOM, "module e1000 0xc0110000-0xc0130000 symbols/e1000.kallsyms\n"),
                "test.scenario:13:", "overlaps 'vmlinux'");
    }

    @Test
    void theKernelIsADomainsFirstImage() {
        assertError(minimal("", DOM, "").replace("kernel vmlinux", "module vmlinux"), "test.scenario:9:",
                "first image must be its 'kernel'");
    }

    @Test
    void anAddressNeeds0x() {
        assertError(minimal("", DOM, "").replace("0xc0100000-0xc0121000", "c0100000-c0121000"), "test.scenario:9:",
                "must be hexadecimal with 0x");
    }

    @Test
    void aMissingSymbolFileNamesTheFile() {
        assertError(minimal("", DOM, "").replace("symbols/rcv22.map", "symbols/nope.map"), "test.scenario:10:",
                "cannot read symbol file", "symbols/nope.map", "image 'rcv22'");
    }

    @Test
    void aMalformedSymbolFileLineNamesTheSymbolFileAndLine(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("xen.map"), "ff100000 T default_idle\nff100040 T\n");
        Files.writeString(dir.resolve("s.scenario"), "scenario s\ncpu.type i386/p6\ncpu.mhz 1\ncpu.count 1\n"
                + "cost.halt default_idle\nhypervisor xen 0xff100000-0xff200000 xen.map\n");
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse(ScenarioOrigin.file(dir.resolve("s.scenario"))));
        assertTrue(e.getMessage().startsWith(dir.resolve("xen.map") + ":2:"), e.getMessage());
        assertTrue(e.getMessage().contains("expected '<hex address> <type> <name>'"), e.getMessage());
    }

    @Test
    void aMissingRequiredHostStatementIsNamedAtTheEnd() {
        assertError(minimal("", DOM, "").replace("cost.halt default_idle\n", ""), "test.scenario:12:",
                "ends without 'cost.halt <function>'");
        assertError("scenario s\ncpu.type i386/p6\n", "test.scenario:3:", "ends without 'cpu.mhz <MHz>'");
    }

    @Test
    void aDomainThatIsBusyNeedsAWorkload() {
        assertError(minimal("", DOM, "").replace("region k kernel vmlinux weight=1\nsymbol tcp_v4_rcv 1\n", ""),
                "test.scenario:8:", "busy (load > 0) but has no workload");
    }

    @Test
    void anAmbiguousFunctionNameIsRejected(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("xen.map"), "ff100000 t f\nff100040 t f\nff100080 T default_idle\n");
        Files.writeString(dir.resolve("s.scenario"), "scenario s\ncpu.type i386/p6\ncpu.mhz 1\ncpu.count 1\n"
                + "cost.halt default_idle\ncost.nmi 10 f=1\nhypervisor xen 0xff100000-0xff200000 xen.map\n"
                + "domain 0 d type=pv vcpus=1 load=0\nkernel k 0xc0000000-0xc0001000 xen.map\n");
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse(ScenarioOrigin.file(dir.resolve("s.scenario"))));
        assertTrue(e.getMessage().contains(":6: function 'f' is defined more than once"), e.getMessage());
    }

    @Test
    void costFunctionsMustBeHypervisorFunctions() {
        assertError(minimal("cost.nmi 1500 do_nmi=1 tcp_v4_rcv=1\n", DOM, ""), "test.scenario:6:",
                "image 'xen-syms' has no function 'tcp_v4_rcv'");
    }

    private static void assertError(String text, String... fragments) {
        ScenarioException e = assertThrows(ScenarioException.class, () -> Fixtures.parse(text));
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "expected '" + f + "' in: " + e.getMessage());
        }
    }
}
