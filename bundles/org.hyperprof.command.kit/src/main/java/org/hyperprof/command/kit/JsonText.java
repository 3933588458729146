package org.hyperprof.command.kit;

import java.util.HashMap;
import java.util.Map;

/** Text as a JSON string, for the commands and reports that write their JSON by hand. */
public final class JsonText {

    private JsonText() {
    }

    /** JSON's escapes: quotes, backslashes and control characters. */
    private static final Escaper JSON = Escaper.of(table());

    private static Map<Character, String> table() {
        Map<Character, String> t = new HashMap<>();
        for (char c = 0; c < 0x20; c++) {
            t.put(c, Escaper.unicodeEscape(c));
        }
        t.putAll(Map.of('"', "\\\"", '\\', "\\\\", '\n', "\\n", '\t', "\\t"));
        return t;
    }

    /** {@code text} in double quotes: quotes, backslashes and control characters escaped. */
    public static String quote(String text) {
        return JSON.appendTo(new StringBuilder("\""), text).append('"').toString();
    }
}
