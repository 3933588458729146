package org.hyperprof.report.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.report.ReportRequest;
import org.junit.jupiter.api.Test;

/** The JSON a viewer draws from says what the folded stacks and the SVG say: the same samples, the same colours. */
class FlameJsonTest {

    private static String json(FlameGraphConsumer consumer) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        consumer.content(ReportRequest.latest(), "json").writeTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theRootHoldsEverySampleOfTheFoldedStacks() throws Exception {
        FlameGraphConsumer consumer = new NetworkStacks(1).completed();
        String json = json(consumer);
        long folded = NetworkStacks.FOLDED.lines().mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
        Matcher total = Pattern.compile("\"total\":(\\d+)").matcher(json);
        assertTrue(total.find(), json);
        assertEquals(folded, Long.parseLong(total.group(1)));
        Matcher nodes = Pattern.compile("\"nodes\":\\[(\\d+),(\\d+),").matcher(json);
        assertTrue(nodes.find(), json);
        assertEquals(folded, Long.parseLong(nodes.group(2)), "the first node (the whole session) has every sample");
    }

    @Test
    void everyFrameHasTheFillTheSvgGivesIt() throws Exception {
        FlameGraphConsumer consumer = new NetworkStacks(1).completed();
        String json = json(consumer);
        ByteArrayOutputStream svg = new ByteArrayOutputStream();
        consumer.content(ReportRequest.latest(), "svg").writeTo(svg);
        String svgText = svg.toString(StandardCharsets.UTF_8);
        Matcher frame = Pattern.compile("\\[\"([^\"]+)\",(\\d+),\"(rgb\\(\\d+,\\d+,\\d+\\))\"").matcher(json);
        int checked = 0;
        while (frame.find()) {
            assertTrue(svgText.contains("fill=\"" + frame.group(3) + "\""), frame.group(1) + " " + frame.group(3));
            checked++;
        }
        assertTrue(checked > 3, "frames were found in " + json);
    }

    @Test
    void namesCannotReadAsMarkup() {
        StringBuilder out = new StringBuilder();
        FlameJson.string(out, "operator<</script>&\"x\"");
        assertEquals("\"operator\\u003c\\u003c/script\\u003e\\u0026\\\"x\\\"\"", out.toString());
    }
}
