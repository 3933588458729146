package org.hyperprof.command.kit;

/** Text as a JSON string, for the commands and reports that write their JSON by hand. */
public final class JsonText {

    private JsonText() {
    }

    /** {@code text} in double quotes: quotes, backslashes and control characters escaped. */
    public static String quote(String text) {
        StringBuilder b = new StringBuilder("\"");
        text.chars().forEach(c -> b.append(jsonChar((char) c)));
        return b.append('"').toString();
    }

    /** One character inside a JSON string: quotes, backslashes and control characters escaped. */
    private static String jsonChar(char c) {
        return switch (c) {
            case '"' -> "\\\"";
            case '\\' -> "\\\\";
            case '\n' -> "\\n";
            case '\t' -> "\\t";
            default -> c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c);
        };
    }
}
