package org.hyperprof.api.internal;

/**
 * Text from an input, made safe to print: every character that would print as nothing or move the
 * text around (controls, format characters such as the byte-order mark U+FEFF and the zero-width
 * space, separators other than the plain space, unassigned and private-use code points, lone
 * surrogates) is written as an escape ({@code \t}, {@code \n}, {@code \r}, {@code \uFEFF},
 * {@code \U0001F3F4}), so that a message shows what the file really holds.
 */
public final class VisibleText {

    private VisibleText() {
    }

    /** {@code text} with every invisible character escaped; the same string when there is none. */
    public static String of(String text) {
        if (text == null) {
            return null;
        }
        int n = text.length();
        int i = 0;
        while (i < n) {
            int cp = text.codePointAt(i);
            if (invisible(cp)) {
                break;
            }
            i += Character.charCount(cp);
        }
        if (i == n) {
            return text;
        }
        StringBuilder out = new StringBuilder(n + 16).append(text, 0, i);
        while (i < n) {
            int cp = text.codePointAt(i);
            if (!invisible(cp)) {
                out.appendCodePoint(cp);
            } else if (cp == '\t') {
                out.append("\\t");
            } else if (cp == '\n') {
                out.append("\\n");
            } else if (cp == '\r') {
                out.append("\\r");
            } else if (cp <= 0xFFFF) {
                out.append(String.format("\\u%04X", cp));
            } else {
                out.append(String.format("\\U%08X", cp));
            }
            i += Character.charCount(cp);
        }
        return out.toString();
    }

    /** Whether a code point prints as nothing, or as something other than itself. */
    public static boolean invisible(int cp) {
        if (cp == ' ') {
            return false;
        }
        return switch (Character.getType(cp)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                    Character.SPACE_SEPARATOR, Character.UNASSIGNED, Character.PRIVATE_USE, Character.SURROGATE -> true;
            default -> false;
        };
    }
}
