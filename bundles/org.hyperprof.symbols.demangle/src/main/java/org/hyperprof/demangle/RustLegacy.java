package org.hyperprof.demangle;

/**
 * Rust's legacy mangling: an Itanium nested name of plain identifiers ending in {@code h} and 16
 * hex digits, with {@code $..$} escapes for characters C++ names cannot hold. The hash is dropped.
 */
final class RustLegacy {
    private RustLegacy() {
    }

    /** The demangled path, or null when the name is not a Rust legacy name. */
    static String demangle(String s) {
        if (!s.endsWith("E")) {
            return null;
        }
        int end = s.length() - 1;
        int pos = 3;
        int hashStart = -1;
        int components = 0;
        while (pos < end) {
            if (!isDigit(s.charAt(pos))) {
                return null;
            }
            int length = 0;
            while (pos < end && isDigit(s.charAt(pos))) {
                length = length * 10 + (s.charAt(pos++) - '0');
                if (length > s.length()) {
                    return null;
                }
            }
            if (length == 0 || pos + length > end) {
                return null;
            }
            if (pos + length == end) {
                hashStart = pos;
            }
            pos += length;
            components++;
        }
        if (hashStart < 0 || components < 2 || !isHash(s, hashStart, end)) {
            return null;
        }
        for (int i = 3; i < hashStart; i++) {
            char c = s.charAt(i);
            if (!(isDigit(c) || Character.isLetter(c) && c < 128 || c == '_' || c == '$' || c == '.')) {
                return null;
            }
        }
        StringBuilder out = new StringBuilder(s.length());
        pos = 3;
        boolean first = true;
        while (pos < end) {
            int length = 0;
            while (isDigit(s.charAt(pos))) {
                length = length * 10 + (s.charAt(pos++) - '0');
            }
            if (pos == hashStart) {
                break;
            }
            if (!first) {
                out.append("::");
            }
            first = false;
            if (!component(s, pos, pos + length, out)) {
                return null;
            }
            pos += length;
        }
        return out.toString();
    }

    private static boolean component(String s, int start, int end, StringBuilder out) {
        int i = start;
        if (end - start > 1 && s.charAt(i) == '_' && s.charAt(i + 1) == '$') {
            i++;
        }
        while (i < end) {
            char c = s.charAt(i);
            if (c == '.') {
                if (i + 1 < end && s.charAt(i + 1) == '.') {
                    out.append("::");
                    i += 2;
                } else {
                    out.append('.');
                    i++;
                }
            } else if (c == '$') {
                int close = s.indexOf('$', i + 1);
                if (close < 0 || close >= end) {
                    return false;
                }
                String escape = s.substring(i + 1, close);
                String decoded = escape(escape);
                if (decoded == null) {
                    return false;
                }
                out.append(decoded);
                i = close + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return true;
    }

    private static String escape(String e) {
        switch (e) {
            case "SP": return "@";
            case "BP": return "*";
            case "RF": return "&";
            case "LT": return "<";
            case "GT": return ">";
            case "LP": return "(";
            case "RP": return ")";
            case "C": return ",";
            default:
        }
        if (e.length() < 2 || e.charAt(0) != 'u' || e.length() > 7) {
            return null;
        }
        int code = 0;
        for (int i = 1; i < e.length(); i++) {
            int d = Character.digit(e.charAt(i), 16);
            if (d < 0 || Character.isUpperCase(e.charAt(i))) {
                return null;
            }
            code = code * 16 + d;
        }
        if (code == 0 || code > Character.MAX_CODE_POINT || code >= 0xD800 && code < 0xE000) {
            return null;
        }
        return new String(Character.toChars(code));
    }

    private static boolean isHash(String s, int start, int end) {
        if (end - start != 17 || s.charAt(start) != 'h') {
            return false;
        }
        for (int i = start + 1; i < end; i++) {
            if (Character.digit(s.charAt(i), 16) < 0 || Character.isUpperCase(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
