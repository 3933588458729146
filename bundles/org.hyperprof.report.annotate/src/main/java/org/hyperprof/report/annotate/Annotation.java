package org.hyperprof.report.annotate;

import java.util.List;

/**
 * One function annotated: where its samples fell, instruction by instruction.
 *
 * @param sessionId      the session
 * @param event          the event counted (the session's first counter)
 * @param symbol         the function's name as asked
 * @param image          the file disassembled
 * @param function       its bounds in the file
 * @param sessionSamples the session's samples of that event
 * @param lines          what objdump printed, each instruction with its samples
 * @param outside        the function's samples that no mapping placed in the file, or that lay
 *                       outside the function's bounds there (a file that is not the one recorded)
 * @param notes          why samples were left out, when any were
 */
record Annotation(long sessionId, String event, String symbol, String image, Binutils.Function function,
        long sessionSamples, List<Row> lines, long outside, List<String> notes) {

    /** One line: an instruction with its samples, or (samples -1) a source line. */
    record Row(long address, String text, long samples) {
        boolean isInstruction() {
            return address >= 0;
        }
    }

    /** The function's samples placed on its instructions. */
    long samples() {
        long n = 0;
        for (Row r : lines) {
            if (r.isInstruction()) {
                n += r.samples();
            }
        }
        return n;
    }
}
