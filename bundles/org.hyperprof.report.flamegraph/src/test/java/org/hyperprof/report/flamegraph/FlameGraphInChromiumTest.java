package org.hyperprof.report.flamegraph;

import org.hyperprof.testing.sample.TestDictionary;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.imageio.ImageIO;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.testing.browser.Chromium;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SVG flame graph in a real browser: headless Chromium draws it (the screenshots stay in
 * {@code target/chromium/} for a person to look at) and runs its script, whose effects
 * {@code --dump-dom} shows. Skipped when no {@code chromium} is on the PATH ({@code .ci/run}
 * installs Debian's).
 */
class FlameGraphInChromiumTest {
    private static final Path OUT = Path.of("target", "chromium").toAbsolutePath();
    private static final int WINDOW_WIDTH = 1200;
    private static final int WINDOW_HEIGHT = 800;
    /** The search highlight of flamegraph.css. */
    private static final int[] MATCH = { 0, 190, 235 };

    private static Chromium chromium;
    private static Path svgFile;
    private static Svg svg;

    @BeforeAll
    static void writeTheFlameGraph() throws Exception {
        Files.createDirectories(OUT);
        chromium = Chromium.find(OUT).orElse(null);
        Assumptions.assumeTrue(chromium != null, "no chromium on the PATH; .ci/run installs Debian's chromium");
        FlameGraphConsumer consumer = new NetworkStacks(1).completed();
        svgFile = Reports.written(consumer, ReportRequest.latest(), FlameGraphConsumer.SVG, OUT.resolve("network.svg"));
        svg = new Svg(Files.readString(svgFile));
    }

    @Test
    void theScreenshotShowsEachFrameInItsOwnColourWhereTheLayoutPutIt() throws Exception {
        Path png = OUT.resolve("network.png");
        chromium.screenshot(svgFile.toUri().toString(), png, WINDOW_WIDTH, WINDOW_HEIGHT);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(WINDOW_WIDTH, image.getWidth());
        for (String name : new String[] { "find_domain_by_id", "gnttab_copy", "tcp_v4_rcv", "e1000_intr", "main",
                "__libc_recv", "Domain-0", "domU-rcv", "all" }) {
            Svg.Frame f = svg.frame(name);
            assertPixel(image, f, Svg.rgb(f.fill()));
        }
        // Three hue families are on the screen: violet hypervisor, orange kernel, green user.
        assertTrue(pixelsWithHue(image, 255, 305) > 2000, "violet hypervisor frames drawn");
        assertTrue(pixelsWithHue(image, 10, 45) > 2000, "orange kernel frames drawn");
        assertTrue(pixelsWithHue(image, 70, 140) > 1000, "green user frames drawn");
    }

    @Test
    void theScriptRunsOnLoadAndEveryExpectedFrameIsInTheDom() throws Exception {
        Svg dom = new Svg(chromium.dumpDom(svgFile.toUri().toString()));
        assertEquals("true", dom.root.getAttribute("data-ready"), "the load handler ran to its end");
        for (String name : new String[] { "all", "Domain-0", "domU-rcv", "do_grant_table_op", "find_domain_by_id",
                "gnttab_copy", "do_IRQ", "handle_irq_event", "e1000_intr", "netif_rx", "[vmlinux-xen0]",
                "netif_receive_skb", "ip_rcv", "tcp_v4_rcv", "main", "__libc_recv" }) {
            assertTrue(dom.find(name).isPresent(), name + " drawn: " + dom.names());
        }
        assertTrue(dom.frame("tcp_v4_rcv").title().contains("25 samples, 16.67%"), dom.frame("tcp_v4_rcv").title());
    }

    @Test
    void aSearchInTheFragmentMarksTheMatchingFramesAndShowsTheirShare() throws Exception {
        Svg dom = new Svg(chromium.dumpDom(svgFile.toUri() + "#search=tcp_v4_rcv"));
        assertEquals("16.67", dom.root.getAttribute("data-matched"));
        assertEquals("25", dom.root.getAttribute("data-matched-samples"));
        assertTrue(dom.byId("matched").getTextContent().startsWith("Matched: 16.67%"),
                dom.byId("matched").getTextContent());
        for (Svg.Frame f : dom.frames) {
            assertEquals(f.name().equals("tcp_v4_rcv"), f.hasClass("m"), f.name() + " marked: " + f.cssClass());
        }
    }

    @Test
    void aRegularExpressionSearchCountsNestedMatchesOnce() throws Exception {
        // do_grant_table_op (60) holds find_domain_by_id (40): the share is 60 of 150, not 100.
        Svg dom = new Svg(chromium.dumpDom(svgFile.toUri() + "#search=" + "grant%7Cfind_domain"));
        assertEquals("60", dom.root.getAttribute("data-matched-samples"));
        assertEquals("40.00", dom.root.getAttribute("data-matched"));
    }

    @Test
    void zoomingIntoAFrameGivesItTheWholeWidthAndHidesWhatIsNotAboveOrBelowIt() throws Exception {
        Svg dom = new Svg(chromium.dumpDom(svgFile.toUri() + "#zoom=Domain-0"));
        assertEquals("Domain-0", dom.root.getAttribute("data-zoom"));
        Svg.Frame domain = dom.frame("Domain-0");
        assertEquals(SvgFlameGraph.PADDING, domain.x(), 0.01);
        assertEquals(SvgFlameGraph.WIDTH - 2 * SvgFlameGraph.PADDING, domain.width(), 0.01);
        // do_grant_table_op has 50 of Domain-0's 100 samples: half the width.
        assertEquals(590, dom.frame("do_grant_table_op").width(), 0.01);
        assertTrue(dom.frame("all").hasClass("anc"), "the caller below stays, dimmed");
        assertTrue(dom.frame("domU-rcv").hasClass("hidden"), "the other domain is hidden");
        assertTrue(dom.frame("tcp_v4_rcv").hasClass("hidden"), "the other domain's frames are hidden");
        assertFalse(dom.byId("reset").getAttribute("class").contains("hidden"), "reset zoom shows");
        // Labels are cut again for the new widths: the widened frame now shows its whole name.
        assertEquals("handle_irq_event", dom.frame("handle_irq_event").label());
    }

    @Test
    void hoverDetailsNameTheFrameItsKindImageSamplesAndShare() throws Exception {
        Svg dom = new Svg(chromium.dumpDom(svgFile.toUri() + "#hover=tcp_v4_rcv"));
        assertEquals("tcp_v4_rcv (kernel, vmlinux-xenU): 25 samples, 16.67%", dom.byId("details").getTextContent());
        Svg callers = new Svg(chromium.dumpDom(svgFile.toUri() + "#hover=e1000_intr"));
        assertEquals("e1000_intr (kernel, e1000): 40 samples, 26.67% (25 in the function itself)",
                callers.byId("details").getTextContent());
    }

    @Test
    void symbolNamesWithMarkupCharactersLoadAndSearchAsWritten() throws Exception {
        TestDictionary d = new TestDictionary();
        int app = d.image(0, "app<&>", ImageKind.USER);
        String[] names = { "operator<<(std::ostream&, char const*)", "say \"hi\" & 'bye'", "]]></script><x>",
                "caf\u00e9_\ud83d\udd25" };
        Batches b = new Batches(9);
        for (int i = 0; i < names.length; i++) {
            b.add(10 * (i + 1), 0, CpuMode.USER, app, d.symbol(app, names[i]));
        }
        FlameGraphConsumer consumer = FoldedStacksTest.consumerFor(d, b.build());
        Path file = Reports.written(consumer, ReportRequest.latest(), FlameGraphConsumer.SVG, OUT.resolve("markup.svg"));
        Svg dom = new Svg(chromium.dumpDom(file.toUri() + "#search=" + "%3C%3C"));
        assertEquals("true", dom.root.getAttribute("data-ready"), "the browser parsed the file and ran its script");
        for (String name : names) {
            assertTrue(dom.find(name).isPresent(), name + " in " + dom.names());
        }
        assertEquals("10", dom.root.getAttribute("data-matched-samples"), "the search for << found operator<<");
    }

    @Test
    void theSearchHighlightIsOnTheScreenWhereTheMatchingFrameIs() throws Exception {
        Path png = OUT.resolve("network-search.png");
        chromium.screenshot(svgFile.toUri() + "#search=tcp_v4_rcv", png, WINDOW_WIDTH, WINDOW_HEIGHT);
        BufferedImage image = ImageIO.read(png.toFile());
        assertPixel(image, svg.frame("tcp_v4_rcv"), MATCH);
        Svg.Frame other = svg.frame("main");
        assertPixel(image, other, Svg.rgb(other.fill()));
    }

    @Test
    void theZoomedScreenshotShowsTheZoomedFrameAcrossTheWidth() throws Exception {
        Path png = OUT.resolve("network-zoom.png");
        chromium.screenshot(svgFile.toUri() + "#zoom=domU-rcv", png, WINDOW_WIDTH, WINDOW_HEIGHT);
        BufferedImage image = ImageIO.read(png.toFile());
        Svg.Frame domU = svg.frame("domU-rcv");
        int y = (int) Math.round(domU.y() + 7);
        int[] expected = Svg.rgb(domU.fill());
        for (int x : new int[] { 20, 600, 1180 }) {
            assertColour(image, x, y, expected, "domU-rcv zoomed at x=" + x);
        }
    }

    /** The pixel at the middle of the frame's rectangle (the label sits on its left, the middle of a wide frame is free). */
    private static void assertPixel(BufferedImage image, Svg.Frame f, int[] expected) {
        int x = (int) Math.round(f.x() + f.width() - 3);
        int y = (int) Math.round(f.y() + 13);
        assertColour(image, x, y, expected, f.name());
    }

    private static void assertColour(BufferedImage image, int x, int y, int[] expected, String what) {
        int rgb = image.getRGB(x, y);
        int r = (rgb >> 16) & 0xFF;
        int g = (rgb >> 8) & 0xFF;
        int b = rgb & 0xFF;
        assertTrue(Math.abs(r - expected[0]) <= 4 && Math.abs(g - expected[1]) <= 4 && Math.abs(b - expected[2]) <= 4,
                what + " at (" + x + "," + y + ") is rgb(" + r + "," + g + "," + b + "), expected rgb(" + expected[0]
                        + "," + expected[1] + "," + expected[2] + ")");
    }

    private static int pixelsWithHue(BufferedImage image, double from, double to) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y);
                int r = (rgb >> 16) & 0xFF;
                int g = (rgb >> 8) & 0xFF;
                int b = rgb & 0xFF;
                int spread = Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b));
                double h = Svg.hue(r, g, b);
                if (spread > 40 && h >= from && h <= to) {
                    n++;
                }
            }
        }
        return n;
    }
}
