package org.hyperprof.web.http;

import java.util.HashMap;
import java.util.Map;
import org.hyperprof.command.kit.Escaper;

/**
 * A small JSON writer: objects and arrays with commas placed by the writer. Strings are escaped so
 * that a symbol name can never close a script or a string ({@code <}, {@code >}, {@code &} escaped too).
 */
public final class Json {
    private final StringBuilder out;
    /** Whether the next value in the current container needs a comma before it. */
    private boolean comma;

    public Json() {
        this(new StringBuilder());
    }

    public Json(StringBuilder out) {
        this.out = out;
    }

    public Json beginObject() {
        return open('{');
    }

    public Json endObject() {
        return close('}');
    }

    public Json beginArray() {
        return open('[');
    }

    public Json endArray() {
        return close(']');
    }

    private Json open(char bracket) {
        separate();
        out.append(bracket);
        comma = false;
        return this;
    }

    private Json close(char bracket) {
        out.append(bracket);
        comma = true;
        return this;
    }

    /** A member's name; its value follows. */
    public Json name(String name) {
        separate();
        string(out, name);
        out.append(':');
        comma = false;
        return this;
    }

    public Json value(String s) {
        if (s == null) {
            return put("null");
        }
        separate();
        string(out, s);
        comma = true;
        return this;
    }

    public Json value(long n) {
        return put(Long.toString(n));
    }

    public Json value(double d) {
        return put(Double.isFinite(d) ? Double.toString(d) : "null");
    }

    public Json value(boolean b) {
        return put(Boolean.toString(b));
    }

    /** A value already in JSON (a renderer's own JSON output), copied as it is. */
    public Json raw(String json) {
        return put(json);
    }

    /** One value, written as it is, after the comma the one before it needs. */
    private Json put(String json) {
        separate();
        out.append(json);
        comma = true;
        return this;
    }

    public Json member(String name, String v) {
        return name(name).value(v);
    }

    public Json member(String name, long v) {
        return name(name).value(v);
    }

    public Json member(String name, double v) {
        return name(name).value(v);
    }

    public Json member(String name, boolean v) {
        return name(name).value(v);
    }

    private void separate() {
        if (comma) {
            out.append(',');
            comma = false;
        }
    }

    @Override
    public String toString() {
        return out.toString();
    }

    /** JSON's escapes; also {@code < > &} and U+2028/U+2029, so the text is safe inside an HTML script. */
    private static final Escaper STRING = Escaper.of(stringTable());

    private static Map<Character, String> stringTable() {
        Map<Character, String> t = new HashMap<>();
        for (char c : "<>&\u2028\u2029".toCharArray()) {
            t.put(c, Escaper.unicodeEscape(c));
        }
        for (char c = 0; c < 0x20; c++) {
            t.put(c, Escaper.unicodeEscape(c));
        }
        t.putAll(Map.of('"', "\\\"", '\\', "\\\\", '\n', "\\n", '\r', "\\r", '\t', "\\t"));
        return t;
    }

    static void string(StringBuilder out, String s) {
        STRING.appendTo(out.append('"'), s).append('"');
    }
}
