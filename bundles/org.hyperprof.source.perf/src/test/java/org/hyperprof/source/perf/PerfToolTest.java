package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** How the agreement tests read perf report's children view. */
class PerfToolTest {

    private static final String TWO_ROWS_FOR_ONE_FRAME = """
                27.43%     0.00%             0  [unknown]             [k] 0000000000000000
                 0.10%     0.00%             0  [unknown]             [.] 0x9000000000000000
                 0.31%     0.00%             0  ls                    [.] 0x0000000000012693
                 0.10%     0.00%             0  [unknown]             [.] 0x9000000000000000
            """;

    @Test
    void aFramePerfPrintsInTwoRowsIsTheirSumWithinTheirRounding() {
        Map<PerfTool.Key, PerfTool.Children> rows = PerfTool.children(TWO_ROWS_FOR_ONE_FRAME);
        assertEquals(3, rows.size());
        PerfTool.Children split = rows.get(new PerfTool.Key("[unknown]", '.', "0x9000000000000000"));
        assertEquals(2, split.rows());
        // Two samples of 955: 0.209 % in all, printed as 0.10 % twice.
        assertTrue(split.agrees(ours("0.21%")));
        assertFalse(split.agrees(ours("0.31%")));
    }

    private static PerfTool.Children ours(String text) {
        return new PerfTool.Children(text, Double.parseDouble(text.substring(0, text.length() - 1)), 1);
    }

    @Test
    void severalSymbolsOfOneNameAreComparedAsTheirSumOnBothSides() {
        PerfTool.Children perf = PerfTool.children("""
                     0.32%     0.00%             0  libc.so.6             [.] @plt
                     0.11%     0.00%             0  libc.so.6             [.] @plt
                """).get(new PerfTool.Key("libc.so.6", '.', "@plt"));
        assertTrue(perf.agrees(new PerfTool.Children(null, 0.43, 2)));
        assertFalse(perf.agrees(ours("0.11%")), "the last row alone is not the sum");
    }

    @Test
    void aFramePerfPrintsOnceMustMatchItsTextExactly() {
        PerfTool.Children once = PerfTool.children(TWO_ROWS_FOR_ONE_FRAME).get(new PerfTool.Key("ls", '.',
                "0x0000000000012693"));
        assertTrue(once.agrees(ours("0.31%")));
        assertFalse(once.agrees(ours("0.32%")));
    }
}
