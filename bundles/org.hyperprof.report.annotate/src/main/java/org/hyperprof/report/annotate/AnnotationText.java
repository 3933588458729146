package org.hyperprof.report.annotate;

import static org.hyperprof.command.kit.JsonText.quote;

import java.util.Locale;

/**
 * An annotation as text (perf annotate's {@code --stdio -n} columns: samples, then the share of the
 * function's samples, then objdump's line) or as JSON for scripts.
 */
final class AnnotationText {

    private AnnotationText() {
    }

    static String text(Annotation a) {
        StringBuilder b = new StringBuilder();
        long total = a.samples();
        b.append("Annotation of ").append(a.symbol()).append(" in ").append(a.image()).append(" (0x")
                .append(Long.toHexString(a.function().start())).append("-0x")
                .append(Long.toHexString(a.function().end())).append("), session ").append(a.sessionId())
                .append(": ").append(total).append(" of the session's ").append(a.sessionSamples()).append(' ')
                .append(a.event()).append(" samples (").append(percent(total, a.sessionSamples())).append(")\n");
        b.append(" Samples  Percent : Address: Instruction\n");
        for (Annotation.Row r : a.lines()) {
            if (r.isInstruction()) {
                b.append(String.format(Locale.ROOT, "%8d %8s : %6x:  %s%n", r.samples(), percent(r.samples(), total),
                        r.address(), r.text()));
            } else {
                b.append("                  : ").append(r.text()).append('\n');
            }
        }
        for (String note : a.notes()) {
            b.append("Note: ").append(note).append('\n');
        }
        return b.toString();
    }

    static String json(Annotation a) {
        StringBuilder b = new StringBuilder("{");
        b.append("\"session\":").append(a.sessionId());
        b.append(",\"event\":").append(quote(a.event()));
        b.append(",\"symbol\":").append(quote(a.symbol()));
        b.append(",\"image\":").append(quote(a.image()));
        b.append(",\"start\":").append(quote("0x" + Long.toHexString(a.function().start())));
        b.append(",\"end\":").append(quote("0x" + Long.toHexString(a.function().end())));
        b.append(",\"samples\":").append(a.samples());
        b.append(",\"sessionSamples\":").append(a.sessionSamples());
        b.append(",\"outside\":").append(a.outside());
        b.append(",\"lines\":[");
        String sep = "";
        for (Annotation.Row r : a.lines()) {
            b.append(sep);
            sep = ",";
            if (r.isInstruction()) {
                b.append("{\"address\":").append(quote("0x" + Long.toHexString(r.address()))).append(",\"samples\":")
                        .append(r.samples()).append(",\"instruction\":").append(quote(r.text())).append('}');
            } else {
                b.append("{\"source\":").append(quote(r.text())).append('}');
            }
        }
        b.append("],\"notes\":[");
        sep = "";
        for (String n : a.notes()) {
            b.append(sep).append(quote(n));
            sep = ",";
        }
        return b.append("]}\n").toString();
    }

    private static String percent(long part, long whole) {
        return String.format(Locale.ROOT, "%.2f%%", whole == 0 ? 0.0 : 100.0 * part / whole);
    }
}
