package org.hyperprof.report.flamegraph;

import org.hyperprof.testing.sample.NetworkExperiment;
import org.hyperprof.testing.sample.TestDictionary;
import static org.hyperprof.report.flamegraph.Batches.caller;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The SVG flame graph as a document: structure, geometry, colours, escaping, self-containment. */
class SvgFlameGraphTest {

    @TempDir
    Path dir;

    private Svg network() throws Exception {
        return svgOf(new NetworkStacks(1).completed(), ReportRequest.ALL_DOMAINS);
    }

    private Svg svgOf(FlameGraphConsumer consumer, int domain, String... options) throws Exception {
        Path file = Reports.written(consumer, new ReportRequest(ReportRequest.LATEST, domain, Set.of(options)),
                FlameGraphConsumer.SVG, dir.resolve("flame.svg"));
        return new Svg(Files.readString(file));
    }

    @Test
    void theSvgIsWellFormedXmlWithOneFrameGroupPerFrame() throws Exception {
        Svg svg = network();
        assertEquals(Svg.NS, svg.root.getNamespaceURI());
        assertEquals("svg", svg.root.getLocalName());
        // all, 2 domains, 15 code frames (do_grant_table_op and find_domain_by_id once in each domain).
        assertEquals(18, svg.frames.size(), svg.names().toString());
        assertEquals("18", svg.root.getAttribute("data-frames"));
        assertEquals("150", svg.root.getAttribute("data-total"));
    }

    @Test
    void framesAreAsWideAsTheirSamples() throws Exception {
        Svg svg = network();
        double pxPerSample = (SvgFlameGraph.WIDTH - 2.0 * SvgFlameGraph.PADDING) / 150;
        for (Svg.Frame f : svg.frames) {
            assertEquals(f.samples() * pxPerSample, f.width(), 0.006, f.name());
            assertEquals(SvgFlameGraph.PADDING + f.start() * pxPerSample, f.x(), 0.006, f.name());
        }
        assertEquals(150, svg.frame("all").samples());
        assertEquals(100, svg.frame("Domain-0").samples());
        assertEquals(40, svg.frame("e1000_intr").samples(), "its own 25 and netif_rx's 15 above it");
        assertEquals(25, svg.frame("tcp_v4_rcv").samples());
    }

    @Test
    void calleesSitOneRowAboveTheirCallerWithinItsSpan() throws Exception {
        Svg svg = network();
        Svg.Frame caller = svg.frame("handle_irq_event");
        Svg.Frame callee = svg.frame("e1000_intr");
        assertEquals(caller.y() - SvgFlameGraph.FRAME_HEIGHT, callee.y(), 0.001);
        assertTrue(callee.x() >= caller.x() && callee.x() + callee.width() <= caller.x() + caller.width() + 0.01);
        Svg.Frame all = svg.frame("all");
        for (Svg.Frame f : svg.frames) {
            assertTrue(f.y() <= all.y(), f.name() + " above the whole-session frame at the bottom");
            assertEquals(all.y() - f.depth() * SvgFlameGraph.FRAME_HEIGHT, f.y(), 0.001, f.name());
        }
    }

    @Test
    void framesCarryTheClassAndHueFamilyOfTheirImageKind() throws Exception {
        Svg svg = network();
        assertFamily(svg.frame("find_domain_by_id"), "hyp", 262, 298);
        assertFamily(svg.frame("gnttab_copy"), "hyp", 262, 298);
        assertFamily(svg.frame("tcp_v4_rcv"), "ker", 16, 40);
        assertFamily(svg.frame("e1000_intr"), "ker", 16, 40);
        assertFamily(svg.frame("[vmlinux-xen0]"), "ker", 16, 40);
        assertFamily(svg.frame("main"), "usr", 78, 132);
        assertFamily(svg.frame("__libc_recv"), "usr", 78, 132);
        assertTrue(svg.frame("Domain-0").hasClass("dom"));
        assertTrue(svg.frame("all").hasClass("all"));
    }

    private static void assertFamily(Svg.Frame f, String cssClass, double hueFrom, double hueTo) {
        assertTrue(f.hasClass(cssClass), f.name() + " has class " + f.cssClass());
        double hue = Svg.hue(f.fill());
        // 8-bit rounding moves the hue by a degree or two.
        assertTrue(hue >= hueFrom - 2 && hue <= hueTo + 2, f.name() + " hue " + hue + " of " + f.fill());
    }

    @Test
    void theSameFunctionHasTheSameColourWherEverItIsDrawn() throws Exception {
        Svg svg = network();
        List<Svg.Frame> finds = svg.frames.stream().filter(f -> f.name().equals("find_domain_by_id")).toList();
        assertEquals(2, finds.size());
        assertEquals(finds.get(0).fill(), finds.get(1).fill());
    }

    @Test
    void unknownCodeIsGreyAndTheLegendThenNamesIt() throws Exception {
        TestDictionary d = new TestDictionary();
        int unknown = d.image(0, "(unknown)", ImageKind.UNKNOWN);
        int app = d.image(0, "app", ImageKind.USER);
        Svg svg = svgOf(FoldedStacksTest.consumerFor(d, new Batches(3).add(5, 0, CpuMode.USER, unknown, -1)
                .add(5, 0, CpuMode.USER, app, d.symbol(app, "main")).build()), ReportRequest.ALL_DOMAINS);
        Svg.Frame f = svg.frame("[unknown]");
        assertTrue(f.hasClass("unk"));
        int[] rgb = Svg.rgb(f.fill());
        assertTrue(rgb[0] == rgb[1] && rgb[1] == rgb[2], "grey: " + f.fill());
        assertTrue(svg.byId("legend").getTextContent().contains("unknown image 50.00%"),
                svg.byId("legend").getTextContent());
    }

    @Test
    void theTitleTheCounterAndTheAccountingLineAreOnTop() throws Exception {
        Svg svg = network();
        assertEquals("Flame graph of session 1: xen-summit-2006, PIII 2800 MHz (simulator)",
                svg.byId("title").getTextContent());
        assertEquals("CPU_CLK_UNHALTED every 100000 events (counter 0), all domains: 150 samples",
                svg.byId("subtitle").getTextContent());
        assertEquals("samples taken 157 = delivered 150 + lost 2 + dropped 5 + invalid 0",
                svg.byId("accounting").getTextContent());
        String legend = svg.byId("legend").getTextContent();
        assertTrue(legend.contains("hypervisor 40.00%") && legend.contains("kernel 50.00%")
                && legend.contains("user 10.00%"), legend);
    }

    @Test
    void aRecordingWithNoClockRateNoPeriodAndNoHypervisorSaysNoneOfThemAndWhatItFolded() throws Exception {
        // perf.data gives no MHz, samples by frequency (no period) and has no hypervisor image.
        TestDictionary d = new TestDictionary();
        int kernel = d.image(0, "[kernel.kallsyms]", ImageKind.KERNEL);
        int unknown = d.image(0, "(unknown)", ImageKind.UNKNOWN);
        int app = d.image(0, "app", ImageKind.USER);
        SampleBatch batch = new Batches(9).add(4, 0, CpuMode.USER, app, d.symbol(app, "main"),
                caller(unknown, -1), caller(unknown, -1), caller(unknown, -1))
                .add(1, 0, CpuMode.KERNEL, kernel, d.symbol(kernel, "schedule")).build();
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(new SessionInfo(9, "perf.data", "vm", "x86_64", "Intel(R) Xeon(R)", 0,
                List.of(new CounterConfig(0, NetworkExperiment.CPU_CLK_UNHALTED, 0, 0, true, true)),
                Map.of(0, "host"), false, d));
        consumer.samples(batch);
        Svg svg = svgOf(consumer, ReportRequest.ALL_DOMAINS);
        assertEquals("Flame graph of session 9: vm, Intel(R) Xeon(R) (perf.data)", svg.byId("title").getTextContent());
        assertEquals("CPU_CLK_UNHALTED (counter 0), all domains: 5 samples; 2 repeated frames without a symbol"
                + " folded into one", svg.byId("subtitle").getTextContent());
        String legend = svg.byId("legend").getTextContent();
        assertFalse(legend.contains("hypervisor"), legend);
        assertTrue(legend.contains("kernel 20.00%") && legend.contains("user 80.00%"), legend);
    }

    @Test
    void aRunningSessionSaysSoInsteadOfTheAccountingLine() throws Exception {
        NetworkStacks n = new NetworkStacks(1);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        consumer.samples(n.batch());
        assertEquals("session still running: 150 samples so far",
                svgOf(consumer, ReportRequest.ALL_DOMAINS).byId("accounting").getTextContent());
    }

    @Test
    void oneDomainsGraphHasOnlyItsFramesAndSaysWhichDomain() throws Exception {
        Svg svg = svgOf(new NetworkStacks(1).completed(), NetworkStacks.DOMU);
        assertTrue(svg.find("Domain-0").isEmpty());
        assertEquals(50, svg.frame("all").samples());
        assertTrue(svg.byId("subtitle").getTextContent().contains("domain 1 (domU-rcv): 50 samples"));
    }

    @Test
    void theHoverTextOfAFrameHasItsKindImageSamplesAndShare() throws Exception {
        Svg svg = network();
        assertEquals("tcp_v4_rcv (kernel, vmlinux-xenU): 25 samples, 16.67%", svg.frame("tcp_v4_rcv").title());
        assertEquals("main (user, rcv22): 15 samples, 10.00% (10 in the function itself)", svg.frame("main").title());
        assertEquals("Domain-0 (domain): 100 samples, 66.67%", svg.frame("Domain-0").title());
    }

    @Test
    void labelsAreCutToFitTheirFrame() {
        assertEquals("tcp_v4_rcv", SvgFlameGraph.label("tcp_v4_rcv", 200));
        // (80 - 6) / 7.3 = 10 characters: 8 of the name and "..".
        assertEquals("netif_re..", SvgFlameGraph.label("netif_receive_skb", 80));
        assertEquals("", SvgFlameGraph.label("netif_receive_skb", 20), "under 3 characters: no label");
        // A cut never splits a surrogate pair (an astral character stays whole or goes).
        assertEquals("ab..", SvgFlameGraph.label("ab\ud83d\udd25xyzuvw", 6 + 5 * SvgFlameGraph.CHAR_WIDTH));
    }

    @Test
    void narrowFramesInTheSvgShowCutLabels() throws Exception {
        Svg svg = network();
        for (Svg.Frame f : svg.frames) {
            int fits = (int) Math.floor((f.width() - 6) / SvgFlameGraph.CHAR_WIDTH);
            assertTrue(f.label().length() <= fits, f.name() + ": '" + f.label() + "' in " + f.width() + " px");
            assertTrue(f.label().isEmpty() || f.label().equals(f.name())
                    || f.name().startsWith(f.label().substring(0, f.label().length() - 2)), f.label());
        }
        assertEquals("find_do..", svg.frames.stream().filter(f -> f.name().equals("find_domain_by_id"))
                .filter(f -> f.samples() == 10).findFirst().orElseThrow().label());
    }

    @Test
    void markupCharactersInSymbolNamesAreEscapedAndComeBackUnchanged() throws Exception {
        TestDictionary d = new TestDictionary();
        int app = d.image(0, "lib<&>\"'.so", ImageKind.USER);
        String cpp = "operator<<(std::ostream&, char const*)";
        String quoted = "say \"hi\" & 'bye'";
        String cdata = "]]></script><script>alert(1)</script>";
        Svg svg = svgOf(FoldedStacksTest.consumerFor(d, new Batches(3)
                .add(5, 0, CpuMode.USER, app, d.symbol(app, cpp))
                .add(5, 0, CpuMode.USER, app, d.symbol(app, quoted))
                .add(5, 0, CpuMode.USER, app, d.symbol(app, cdata))
                .add(5, 0, CpuMode.USER, app, d.symbol(app, "bell\u0007\ud800")).build()), ReportRequest.ALL_DOMAINS);
        assertEquals(cpp, svg.frame(cpp).name());
        assertEquals(quoted, svg.frame(quoted).name());
        assertEquals(cdata, svg.frame(cdata).name());
        assertTrue(svg.frame(cpp).title().contains("lib<&>\"'.so"), svg.frame(cpp).title());
        // A control character cannot be in a frame (folded lines); a lone surrogate cannot be in XML.
        assertTrue(svg.find("bell?\ufffd").isPresent(), svg.names().toString());
        assertEquals(1, svg.document.getElementsByTagNameNS(Svg.NS, "script").getLength(),
                "no script element smuggled in by a name");
    }

    @Test
    void theScriptAndStyleAreEmbeddedAndNothingOutsideTheFileIsReferenced() throws Exception {
        Path file = Reports.written(new NetworkStacks(1).completed(), ReportRequest.latest(), FlameGraphConsumer.SVG,
                dir.resolve("flame.svg"));
        String text = Files.readString(file);
        Svg svg = new Svg(text);
        NodeList scripts = svg.document.getElementsByTagNameNS(Svg.NS, "script");
        assertEquals(1, scripts.getLength());
        Element script = (Element) scripts.item(0);
        assertFalse(script.hasAttribute("href") || script.hasAttributeNS("http://www.w3.org/1999/xlink", "href"));
        String code = script.getTextContent();
        for (String function : new String[] { "function hyperprofFlameGraph", "function hyperprofZoom",
                "function hyperprofUnzoom", "function hyperprofSearch", "function hyperprofShowDetails",
                "function hyperprofApplyFragment" }) {
            assertTrue(code.contains(function), function);
        }
        assertEquals("hyperprofFlameGraph()", svg.root.getAttribute("onload"));
        assertTrue(svg.document.getElementsByTagNameNS(Svg.NS, "style").item(0).getTextContent()
                .contains(".f.m rect"), "search highlight style");
        assertFalse(Pattern.compile("href|url\\(|@import|src=|https?://(?!www\\.w3\\.org/2000/svg)").matcher(text)
                .find(), "no link to anything outside the file");
        assertTrue(svg.byId("search").getAttribute("class").contains("button"));
        assertTrue(svg.byId("reset").getAttribute("class").contains("hidden"), "reset shows only when zoomed");
    }

    @Test
    void framesNarrowerThanATenthOfAPixelAreLeftOutAndCounted() throws Exception {
        TestDictionary d = new TestDictionary();
        int app = d.image(0, "app", ImageKind.USER);
        // 1 sample in 20 000 is 0.059 px of 1180.
        Svg svg = svgOf(FoldedStacksTest.consumerFor(d, new Batches(3)
                .add(19_999, 0, CpuMode.USER, app, d.symbol(app, "busy"))
                .add(1, 0, CpuMode.USER, app, d.symbol(app, "rare")).build()), ReportRequest.ALL_DOMAINS);
        assertTrue(svg.find("rare").isEmpty());
        assertTrue(svg.byId("subtitle").getTextContent().endsWith("; 1 frames narrower than 0.1 px left out"),
                svg.byId("subtitle").getTextContent());
    }

    @Test
    void anEmptySessionIsAClearErrorBeforeAnyContentIsMade() {
        NetworkStacks n = new NetworkStacks(4);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        ReportException e = assertThrows(ReportException.class,
                () -> consumer.content(ReportRequest.latest(), FlameGraphConsumer.SVG));
        assertTrue(e.getMessage().contains("no samples of session 4"), e.getMessage());
        assertTrue(e.getMessage().contains("still running"), e.getMessage());
    }

    @Test
    void escapeReplacesWhatXmlCannotCarry() {
        assertEquals("a&lt;b&gt;c&amp;d&quot;e&apos;f", SvgFlameGraph.escape("a<b>c&d\"e'f"));
        assertEquals("\ufffd\ufffd\ufffd", SvgFlameGraph.escape("\u0001\udc00\uffff"));
        assertEquals("\ud83d\udd25\t", SvgFlameGraph.escape("\ud83d\udd25\t"));
    }

    @Test
    void numbersHaveTwoDecimalsAtMostWhateverTheLocale() {
        assertEquals("7.87", SvgFlameGraph.number(7.866666));
        assertEquals("10", SvgFlameGraph.number(10.0));
        assertEquals("0.1", SvgFlameGraph.number(0.1));
    }
}
