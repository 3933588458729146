package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.ScenarioOrigin;
import org.hyperprof.hypervisor.sim.scenario.ScenarioParser;
import org.hyperprof.hypervisor.sim.scenario.SymbolFile;
import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario images in other symbol formats ({@code format=<name>}): read by the {@link SymbolResolver}
 * installed for the format, exercised here with the real kallsyms resolver registered under a format
 * name of its own, so that the lookup path runs instead of the built-in reader.
 */
class SymbolFormatTest {

    private static final String KERNEL_MAP = "symbols/vmlinux-syms-2.6.16-xen0.map";

    private static String scenario(String kernelAttributes) {
        return Fixtures.minimal("", "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes", "")
                .replace("kernel vmlinux 0xc0100000-0xc0121000 " + KERNEL_MAP,
                        "kernel vmlinux 0xc0100000-0xc0121000 " + kernelAttributes);
    }

    private static Scenario parse(String text, Map<String, SymbolResolver> resolvers) throws ScenarioException {
        return ScenarioParser.parse(ScenarioOrigin.text("test.scenario", text, SymbolFormatTest.class.getClassLoader(),
                HostServiceImpl.SCENARIO_FOLDER), resolvers);
    }

    private static ImageSpec kernel(Scenario s) {
        return s.domains().get(0).images().get(0);
    }

    @Test
    void anImageWithAnotherFormatIsReadByTheResolverInstalledForThatFormat() throws Exception {
        Scenario builtIn = parse(scenario(KERNEL_MAP), Map.of());
        Scenario resolved = parse(scenario(KERNEL_MAP + " format=nm"), Map.of("nm", new KallsymsResolver()));
        SymbolFile a = kernel(builtIn).symbols();
        SymbolFile b = kernel(resolved).symbols();
        assertEquals(a.size(), b.size());
        for (int i = 0; i < a.size() - 1; i++) {
            assertEquals(a.name(i), b.name(i));
            assertEquals(a.start(i), b.start(i), a.name(i));
            assertEquals(a.length(i), b.length(i), a.name(i) + ": the resolver's size rule is the built-in one");
        }
        assertEquals("kallsyms", kernel(resolved).source().format(),
                "the image is handed on in the resolver's own format, so the profiler finds the same resolver");
        assertEquals(kernel(builtIn).source().location(), kernel(resolved).source().location());
    }

    @Test
    void aHostWhoseImageUsesAResolverRunsAndSamplesInsideItsFunctions() throws Exception {
        HostServiceImpl service = Fixtures.service();
        service.addResolver("nm", new KallsymsResolver());
        Scenario parsed = parse(scenario(KERNEL_MAP + " format=nm"), Map.of("nm", new KallsymsResolver()));
        SimHost host = new SimHost(parsed, new org.hyperprof.pmu.p6.P6PmuModel(), Fixtures.P6_BUNDLE,
                new org.hyperprof.vpmu.systemwide.SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
        Fixtures.Sampled sampled = Fixtures.profile(host, 20_000, false, true, 20_000);
        SymbolFile k = kernel(parsed).symbols();
        int tcp = k.indexOf("tcp_v4_rcv");
        assertTrue(sampled.perPc.get(0).keySet().stream()
                .allMatch(pc -> pc >= k.start(tcp) && pc < k.start(tcp) + k.length(tcp)));
        Mapping m = host.domain(0).memoryMap().get(1);
        assertEquals("vmlinux", m.image());
        assertEquals("kallsyms", m.symbols().format());
    }

    @Test
    void aFormatWithoutResolverIsAScenarioErrorNamingItAndTheInstalledFormats() {
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> parse(scenario("/usr/lib/debug/boot/vmlinux-2.6.16-xen format=elf"),
                        Map.of("nm", new KallsymsResolver())));
        assertTrue(e.getMessage().startsWith("test.scenario:9: "), e.getMessage());
        assertTrue(e.getMessage().contains("symbol format 'elf'"), e.getMessage());
        assertTrue(e.getMessage().contains("installed formats: kallsyms (built in), nm"), e.getMessage());
    }

    @Test
    void theServiceOffersTheResolversOfTheSharedSymbolTables() throws Exception {
        SymbolTables shared = new SymbolTables();
        HostServiceImpl service = new HostServiceImpl(shared);
        SymbolResolver elf = new FixedResolver("elf", null);
        shared.addResolver("elf", elf);
        assertEquals(List.of("kallsyms (built in)", "elf (fixed elf)"), service.installedSymbolFormats());
        shared.removeResolver("elf", elf);
        assertEquals(List.of("kallsyms (built in)"), service.installedSymbolFormats());
        assertThrows(IllegalArgumentException.class, () -> service.addResolver(" ", elf));
    }

    @Test
    void aLoadThroughTheServiceUsesItsResolversAndNamesTheMissingOne(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("symbols"));
        for (String f : List.of("xen-syms-3.0.map", "vmlinux-syms-2.6.16-xen0.map", "rcv22.map")) {
            try (InputStream in = getClass().getClassLoader()
                    .getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER + "/symbols/" + f)) {
                Files.copy(in, dir.resolve("symbols").resolve(f));
            }
        }
        Path file = dir.resolve("nm.scenario");
        Files.writeString(file, scenario(KERNEL_MAP + " format=nm"));
        HostServiceImpl service = Fixtures.service();
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(file.toString(), null));
        assertTrue(e.getMessage().contains("no symbol resolver for 'nm' is installed"), e.getMessage());
        service.addResolver("nm", new KallsymsResolver());
        SimHost host = (SimHost) service.load(file.toString(), null);
        assertEquals("kallsyms", kernel(host.scenario()).source().format());
    }

    @Test
    void aResolversErrorBecomesAScenarioErrorAtTheImageLine() {
        SymbolResolver broken = new FixedResolver("elf",
                new SymbolFileException("/boot/vmlinux", 52, "is not an ELF file (no 0x7f 'ELF' magic)"));
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> parse(scenario("/boot/vmlinux format=elf"), Map.of("elf", broken)));
        assertTrue(e.getMessage().startsWith("test.scenario:9: the elf symbols of image 'vmlinux'"), e.getMessage());
        assertTrue(e.getMessage().contains("/boot/vmlinux:52: is not an ELF file"), e.getMessage());
    }

    @Test
    void aResolverThatFindsNoFunctionIsRefused() {
        SymbolResolver empty = new FixedResolver("elf", null);
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> parse(scenario("/boot/vmlinux format=elf"), Map.of("elf", empty)));
        assertTrue(e.getMessage().contains("hold no function"), e.getMessage());
    }

    @Test
    void aSymbolFileNamedByAnAbsolutePathIsReadFromTheFileSystem(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("System.map-2.6.16-xen");
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER + "/" + KERNEL_MAP)) {
            Files.copy(in, copy);
        }
        Scenario s = parse(scenario(copy.toAbsolutePath().toString()), Map.of());
        assertEquals(copy.toAbsolutePath().toString(), kernel(s).source().location());
        assertTrue(kernel(s).symbols().indexOf("tcp_v4_rcv") >= 0);
        Scenario viaResolver = parse(scenario(copy.toAbsolutePath() + " format=nm"),
                Map.of("nm", new KallsymsResolver()));
        assertEquals(kernel(s).symbols().size(), kernel(viaResolver).symbols().size());
    }

    @Test
    void anUnknownImageAttributeIsRefusedNamingTheExpectedOnes() {
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> parse(scenario(KERNEL_MAP + " fmt=elf"), Map.of()));
        assertTrue(e.getMessage().contains("unknown attribute 'fmt'"), e.getMessage());
        assertTrue(e.getMessage().contains("[format=<symbol format>]"), e.getMessage());
        assertFalse(e.getMessage().contains("Exception"));
    }

    /** A resolver with a canned answer: an error, or an empty table. */
    private static final class FixedResolver implements SymbolResolver {
        private final String format;
        private final SymbolFileException error;

        FixedResolver(String format, SymbolFileException error) {
            this.format = format;
            this.error = error;
        }

        @Override
        public String format() {
            return format;
        }

        @Override
        public SymbolTable load(ImageSource source) throws SymbolFileException {
            if (error != null) {
                throw error;
            }
            return new SymbolTable(source.imageName(), new long[0], new long[0], new String[0], new String[0]);
        }

        @Override
        public String toString() {
            return "fixed " + format;
        }
    }
}
