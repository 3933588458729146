package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.testing.browser.Chromium;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The study's chart in a real browser: headless Chromium lays it out, a page script measures every
 * text's box, and no two boxes overlap and none leaves the chart; every series is drawn. The
 * screenshot stays in {@code target/chromium/} for a person to look at. Skipped when no
 * {@code chromium} is on the PATH ({@code .ci/run} installs Debian's).
 */
class ChartInChromiumTest {
    private static final Path OUT = Path.of("target", "chromium").toAbsolutePath();
    private static final Pattern RESULT = Pattern.compile("data-texts=\"(\\d+)\" data-overlaps=\"([^\"]*)\""
            + " data-outside=\"([^\"]*)\" data-series=\"([^\"]*)\"");

    /** Six variants with long labels, ten guests, five seeds: the crowded case the old chart garbled. */
    private static StudySummary crowded() {
        List<Variant> variants = Variant.STANDARD;
        List<Results.Study> studies = new ArrayList<>();
        for (int s = 0; s < 5; s++) {
            List<Results.Run> runs = new ArrayList<>();
            for (int v = 0; v < variants.size(); v++) {
                List<Results.Guest> guests = new ArrayList<>();
                for (int g = 0; g < 10; g++) {
                    double a = 2 + g * 0.7 + v * 1.3 + (s * 7 + g) % 3 * 0.4;
                    guests.add(new Results.Guest(g, "guest-" + g + (g % 3 == 0 ? "-with-a-long-name" : ""), "own",
                            900 + 10 * g, "CYCLES", new ProfileError(a, a / 3, "k:f"),
                            new ProfileError(a * 1.4, a / 2, "k:f")));
                }
                Overhead o = new Overhead(1_000_000, 0L, 340_000 + 1000L * v + 500L * s, 1_000L * v + 100L * s,
                        1000L, 1000L * v + 10L * s);
                runs.add(new Results.Run(variants.get(v), null, o, v * 3L + s, guests, List.of()));
            }
            studies.add(new Results.Study("consolidation", 20060117L, 500, runs));
        }
        return new StudySummary(studies);
    }

    @Test
    void noTextOverlapsAnotherOrLeavesTheChartAndEverySeriesIsDrawn() throws Exception {
        Files.createDirectories(OUT);
        Chromium chromium = Chromium.find(OUT).orElse(null);
        Assumptions.assumeTrue(chromium != null, "no chromium on the PATH; .ci/run installs Debian's chromium");
        String svg = StudyChart.render(crowded());
        Path svgFile = Files.writeString(OUT.resolve("study-chart.svg"), svg);
        Path page = Files.writeString(OUT.resolve("study-chart.html"), "<!DOCTYPE html><html><body style=\"margin:0\">"
                + svg.substring(svg.indexOf("<svg")) + "<script>" + MEASURE + "</script></body></html>");
        String dom = chromium.dumpDom(page.toUri().toString());
        Matcher m = RESULT.matcher(dom);
        assertTrue(m.find(), "the page script reported: " + dom.substring(0, Math.min(500, dom.length())));
        assertTrue(Integer.parseInt(m.group(1)) > 100, "texts measured: " + m.group(1));
        assertEquals("", m.group(2), "overlapping texts");
        assertEquals("", m.group(3), "texts outside the chart");
        assertEquals("acc,errA,errB,hyp,lost,policy", m.group(4), "every series drawn");
        int width = Integer.parseInt(svg.replaceAll("(?s).*?<svg[^>]* width=\"(\\d+)\".*", "$1"));
        int height = Integer.parseInt(svg.replaceAll("(?s).*?<svg[^>]* height=\"(\\d+)\".*", "$1"));
        chromium.screenshot(svgFile.toUri().toString(), OUT.resolve("study-chart.png"), width, height);
    }

    /** Measures every text element's box and the chart's, and writes what it found on the body. */
    private static final String MEASURE = """
            const svg = document.querySelector('svg');
            const frame = svg.getBoundingClientRect();
            const texts = [...svg.querySelectorAll('text')];
            const boxes = texts.map(t => t.getBoundingClientRect());
            const overlaps = [];
            const outside = [];
            for (let i = 0; i < boxes.length; i++) {
              const a = boxes[i];
              if (a.left < frame.left || a.top < frame.top || a.right > frame.right || a.bottom > frame.bottom) {
                outside.push(texts[i].textContent);
              }
              for (let j = i + 1; j < boxes.length; j++) {
                const b = boxes[j];
                if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
                  overlaps.push(texts[i].textContent + ' | ' + texts[j].textContent);
                }
              }
            }
            const series = [...new Set([...svg.querySelectorAll('rect.bar')].map(r => r.dataset.series))].sort();
            const out = document.createElement('div');
            out.setAttribute('data-texts', String(texts.length));
            out.setAttribute('data-overlaps', overlaps.join(' ; '));
            out.setAttribute('data-outside', outside.join(' ; '));
            out.setAttribute('data-series', series.join(','));
            document.body.appendChild(out);
            """;
}
