package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.pmu.kit.EventTableReader;
import org.junit.jupiter.api.Test;

class PluginCommandsTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Fakes.FakeHostService hosts = new Fakes.FakeHostService();
    private final Plugins<PmuModel> models = new Plugins<>();
    private final Plugins<CounterVirtualizationPolicy> policies = new Plugins<>();
    private final Plugins<SampleConsumer> consumers = new Plugins<>();
    private final Plugins<SymbolResolver> resolvers = new Plugins<>();
    private final Plugins<ReportRenderer> renderers = new Plugins<>();
    private final PluginCommands commands = new PluginCommands(hosts, io.console, models, policies, consumers, resolvers,
            renderers);

    @Test
    void modelsListsCpuTypeNameCountersBundleAndEventCount() {
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add(p6, p6, "i386/p6", "org.hyperprof.pmu.p6 0.1.0.SNAPSHOT");
        commands.models();
        String[] lines = io.out().split("\n");
        assertEquals("CPU.TYPE  NAME  COUNTERS     EVENTS  BUNDLE", lines[0]);
        assertEquals("i386/p6   PIII  2 x 40 bits  3       org.hyperprof.pmu.p6 0.1.0.SNAPSHOT", lines[1]);
        assertEquals("", io.err());
    }

    @Test
    void modelsAsJsonAreOneObjectPerModelKeyedByTheColumnNames() {
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add(p6, p6, "i386/p6", "org.hyperprof.pmu.p6 0.1.0.SNAPSHOT");
        commands.models("--format", "json");
        assertEquals("[\n  {\"cpu.type\": \"i386/p6\", \"name\": \"PIII\", \"counters\": \"2 x 40 bits\", \"events\": \"3\","
                + " \"bundle\": \"org.hyperprof.pmu.p6 0.1.0.SNAPSHOT\"}\n]\n", io.out());
    }

    @Test
    void modelsAsCsvHaveTheColumnNamesFirstAndQuoteCellsWithCommas() {
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add(p6, p6, "i386/p6", "org.hyperprof.pmu.p6, patched");
        commands.models("--format=csv");
        assertEquals("cpu.type,name,counters,events,bundle\ni386/p6,PIII,2 x 40 bits,3,\"org.hyperprof.pmu.p6, patched\"\n",
                io.out());
    }

    @Test
    void noModelsAsJsonIsAnEmptyArrayAndAnUnknownFormatIsAUsageError() {
        commands.models("--format", "json");
        assertEquals("[]\n", io.out());
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> commands.models("--format", "xml")));
        assertTrue(io.err().startsWith("hp:models: --format takes text, json or csv, not 'xml'\n"), io.err());
    }

    @Test
    void modelsWithNoneInstalledSaysHowToGetOne() {
        commands.models();
        assertEquals("no CPU models installed: start a model bundle, e.g. org.hyperprof.pmu.p6\n", io.out());
    }

    @Test
    void aModelThatLeftIsNoLongerListed() {
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add("ref-1", p6, "i386/p6", "org.hyperprof.pmu.p6 0.1.0");
        models.remove("ref-1");
        commands.models();
        assertTrue(io.out().startsWith("no CPU models installed"), io.out());
    }

    @Test
    void eventsDefaultsToTheCurrentHostsModelAndShowsTheTable() throws Exception {
        hosts.load("default", null);
        commands.events();
        // A unit mask with a choice of values lists each value under it.
        assertEquals(String.join("\n",
                "i386/p6 (PIII): 2 counters x 40 bits, 3 events; default event CPU_CLK_UNHALTED:100000:0:1:1",
                "EVENT             CODE  COUNTERS  MINIMUM  UNIT MASK                     DESCRIPTION",
                "CPU_CLK_UNHALTED  0x79  0,1       6000     zero (0x00)                   clocks processor is not halted",
                "L2_LD             0x29  0,1       500      mesi (bitmask, default 0x0f)  number of L2 data loads",
                "                                             0x08                        (M)odified cache state",
                "                                             0x04                        (E)xclusive cache state",
                "                                             0x02                        (S)hared cache state",
                "                                             0x01                        (I)nvalid cache state",
                "FLOPS             0xc1  0         3000     zero (0x00)                   number of computational FP"
                        + " operations",
                ""), io.out());
    }

    @Test
    void eventsOfANamedModelNamesItsBundle() {
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add(p6, p6, "i386/p6", "org.hyperprof.pmu.p6 0.1.0");
        commands.events("i386/p6");
        assertTrue(io.out().startsWith("i386/p6 (PIII): 2 counters x 40 bits, 3 events, from org.hyperprof.pmu.p6 0.1.0;"),
                io.out());
    }

    @Test
    void eventsOfAnUninstalledModelListsTheInstalledOnes() {
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add(p6, p6, "i386/p6", "org.hyperprof.pmu.p6 0.1.0");
        Fakes.fails(() -> commands.events("ppc64/970"));
        assertEquals("", io.out());
        assertEquals("hp:events: no CPU model 'ppc64/970' is installed; installed are i386/p6 (hp:models)\n", io.err());
    }

    @Test
    void eventsWithoutAHostOrANameSaysWhatToDo() {
        Fakes.fails(() -> commands.events());
        assertEquals("hp:events: no host is loaded, so there is no current model: name one (installed are none)"
                + " or hp:load first\n", io.err());
    }

    @Test
    void listingsWorkWithoutTheHostServiceAndEventsThenAsksForAName() {
        PluginCommands coreAway = new PluginCommands(null, io.console, models, policies, consumers, resolvers,
                renderers);
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add(p6, p6, "i386/p6", "org.hyperprof.pmu.p6 0.1.0");
        coreAway.models();
        assertTrue(io.out().contains("i386/p6   PIII"), io.out());
        Fakes.fails(() -> coreAway.events());
        assertEquals("hp:events: the host service (bundle org.hyperprof.hypervisor) is not running, so there is no"
                + " current model: name one (installed are i386/p6)\n", io.err());
    }

    @Test
    void policiesListNameBundleAndDescription() {
        CounterVirtualizationPolicy p = new CounterVirtualizationPolicy() {
            @Override
            public String name() {
                return "systemwide";
            }

            @Override
            public String description() {
                return "Xenoprof: the hypervisor owns the counters";
            }

            @Override
            public PolicySession open(PolicyHost host) {
                throw new UnsupportedOperationException();
            }
        };
        policies.add(p, p, "systemwide", "org.hyperprof.vpmu.systemwide 0.1.0");
        commands.policies();
        assertTrue(io.out().contains("systemwide   org.hyperprof.vpmu.systemwide 0.1.0  Xenoprof: the hypervisor owns"
                + " the counters"), io.out());
    }

    /** A consumer that also renders, as the opreport bundle registers one object under both. */
    static final class RenderingConsumer implements SampleConsumer, ReportRenderer {
        @Override
        public void sessionStarted(SessionInfo session) {
        }

        @Override
        public void samples(SampleBatch batch) {
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
        }

        @Override
        public List<Long> sessions() {
            return List.of();
        }

        @Override
        public List<String> options() {
            return List.of();
        }

        @Override
        public void render(ReportRequest request, Appendable out) {
        }
    }

    @Test
    void consumersShowTheirBundleAndWhichAlsoRender() {
        RenderingConsumer opreport = new RenderingConsumer();
        SampleConsumer counts = new RenderingConsumer();
        consumers.add("c1", counts, "domain-counts", "com.example.counts 1.0.0");
        consumers.add("c2", opreport, "opreport", "org.hyperprof.report.opreport 0.1.0");
        renderers.add("r2", opreport, "opreport", "org.hyperprof.report.opreport 0.1.0");
        commands.consumers();
        String out = io.out();
        assertTrue(out.contains("domain-counts  com.example.counts 1.0.0             -\n"), out);
        assertTrue(out.contains("opreport       org.hyperprof.report.opreport 0.1.0  hp:report --renderer opreport"), out);
    }

    @Test
    void resolversListFormatAndBundle() {
        SymbolResolver r = new SymbolResolver() {
            @Override
            public String format() {
                return "kallsyms";
            }

            @Override
            public SymbolTable load(ImageSource source) {
                throw new UnsupportedOperationException();
            }
        };
        resolvers.add(r, r, "kallsyms", "org.hyperprof.symbols.kallsyms 0.1.0");
        commands.resolvers();
        assertEquals("SYMBOLS.FORMAT  BUNDLE\nkallsyms        org.hyperprof.symbols.kallsyms 0.1.0\n", io.out());
    }

    @Test
    void reportsListSessionsAndOptions() {
        Fakes.FakeRenderer r = new Fakes.FakeRenderer();
        renderers.add(r, r, "opreport", "org.hyperprof.report.opreport 0.1.0");
        commands.reports();
        String out = io.out();
        assertTrue(out.contains("opreport     org.hyperprof.report.opreport 0.1.0  [6, 7]"), out);
        assertTrue(out.contains("opreport options (hp:report --renderer opreport <option>...):\n"
                + "  symbols - one row per symbol\n  top=N - the N largest rows\n"), out);
    }

    @Test
    void eventsAsCsvGiveOneRowPerEventAndOnePerUnitMaskValueForScripts() {
        Fakes.Model p6 = new Fakes.Model("i386/p6");
        models.add(p6, p6, "i386/p6", "org.hyperprof.pmu.p6 0.1.0");
        commands.events("i386/p6", "--format", "csv");
        List<String> lines = io.out().lines().toList();
        assertEquals("event,code,counters,minimum,unit_mask,unit_mask_value,description", lines.get(0));
        assertTrue(lines.contains("FLOPS,0xc1,0,3000,zero (0x00),,number of computational FP operations"), io.out());
        assertTrue(lines.contains("L2_LD,0x29,\"0,1\",500,\"mesi (bitmask, default 0x0f)\",,number of L2 data loads"),
                io.out());
        assertTrue(lines.contains("L2_LD,,,,mesi,0x01,(I)nvalid cache state"), io.out());
    }

    @Test
    void reportsAsJsonGiveEachRendererAndWriterWithItsSessionsAndOptions() {
        Fakes.FakeRenderer r = new Fakes.FakeRenderer();
        renderers.add(r, r, "opreport", "org.hyperprof.report.opreport 0.1.0");
        commands.reports("--format", "json");
        assertEquals("[\n  {\"report.name\": \"opreport\", \"kind\": \"renderer\", \"bundle\":"
                + " \"org.hyperprof.report.opreport 0.1.0\", \"sessions\": \"6 7\", \"options\": \"symbols - one row"
                + " per symbol\\ntop=N - the N largest rows\", \"formats\": \"\"}\n]\n", io.out());
    }

    @Test
    void listingCommandsRefuseArgumentsWithTheirUsage() {
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> commands.policies("all")));
        assertEquals("hp:policies: too many arguments: all (expected only --format text|json|csv)\n"
                + "usage: hp:policies [--format text|json|csv]\n(hp:policies --help explains the arguments)\n",
                io.err());
    }

    @Test
    void listingIsSortedByName() {
        Fakes.Model b = new Fakes.Model("x86-64/hammer");
        Fakes.Model a = new Fakes.Model("i386/p6");
        models.add(b, b, "x86-64/hammer", "org.hyperprof.pmu.amd 0.1.0");
        models.add(a, a, "i386/p6", "org.hyperprof.pmu.p6 0.1.0");
        assertEquals(List.of("i386/p6", "x86-64/hammer"), models.list().stream().map(Plugins.Entry::name).toList());
        assertEquals("i386/p6, x86-64/hammer", models.names());
    }

    /** An event no counter counts (AMD IBS) shows "-" under COUNTERS, and a line says what samples it. */
    @Test
    void anEventASamplerTakesShowsADashAndWhatSamplesIt() throws Exception {
        EventTable table = EventTableReader.parse("t",
                new StringReader("event:0x76 counters:0 um:zero minimum:1 name:CLK signal:CYCLES : clocks\n"
                        + "event:0xf000 ext:ibs_fetch um:zero minimum:50000 name:IBS_FETCH_ALL signal:INSTRUCTIONS"
                        + " : All IBS fetch samples\n"),
                new StringReader("name:zero type:mandatory default:0x0\n\t0x0 No unit mask\n"));
        PmuModel model = new Fakes.Model("x86-64/family10", "F10", 4, 48, table, "CLK:1:0:1:1");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PluginCommands.printEvents(model, null, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals("IBS_FETCH_ALL  0xf000  -         50000    zero (0x00)  All IBS fetch samples", lines[3]);
        assertTrue(lines[4].startsWith("COUNTERS -: no counter counts the event, AMD's instruction-based sampling"),
                lines[4]);
    }
}
