package org.hyperprof.api.report;

import java.util.List;

/**
 * One function annotated: where its samples fell, instruction by instruction.
 *
 * @param session        the session
 * @param event          the event counted (the session's first counter)
 * @param symbol         the function's name as asked
 * @param image          the file disassembled
 * @param start          the function's first address in the file
 * @param end            the address past its last
 * @param samples        its samples placed on its instructions
 * @param sessionSamples the session's samples of that event
 * @param outside        its samples that could not be placed on its instructions
 * @param lines          what objdump printed, in order
 * @param notes          why samples were left out, when any were
 * @since 3.2
 */
public record AnnotatedFunction(long session, String event, String symbol, String image, long start, long end,
        long samples, long sessionSamples, long outside, List<Line> lines, List<String> notes) {
    public AnnotatedFunction {
        lines = List.copyOf(lines);
        notes = List.copyOf(notes);
    }

    /**
     * One line: an instruction at {@code address} with its samples, or a source line ({@code address} -1,
     * {@code samples} 0).
     */
    public record Line(long address, String text, long samples) {
        public boolean isInstruction() {
            return address >= 0;
        }
    }
}
