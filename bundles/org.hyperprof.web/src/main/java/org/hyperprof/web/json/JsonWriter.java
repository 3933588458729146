package org.hyperprof.web.json;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * JSON text written as it goes, objects and arrays nested, commas placed by the writer: what the pages'
 * endpoints answer. Strings are escaped for JSON and for a page that might put them in HTML ({@code <}, {@code >},
 * {@code &} as {@code \}u escapes), numbers that JSON cannot hold (NaN, infinities) are written {@code null}.
 */
public final class JsonWriter {
    private final StringBuilder b = new StringBuilder();
    /** Per open object or array: whether a value was written in it yet. */
    private final Deque<boolean[]> open = new ArrayDeque<>();
    private boolean afterName;

    public JsonWriter beginObject() {
        value();
        b.append('{');
        open.push(new boolean[1]);
        return this;
    }

    public JsonWriter endObject() {
        open.pop();
        b.append('}');
        return this;
    }

    public JsonWriter beginArray() {
        value();
        b.append('[');
        open.push(new boolean[1]);
        return this;
    }

    public JsonWriter endArray() {
        open.pop();
        b.append(']');
        return this;
    }

    /** The name of the object's next member. */
    public JsonWriter name(String name) {
        separate();
        quote(name);
        b.append(':');
        afterName = true;
        return this;
    }

    public JsonWriter value(String s) {
        value();
        if (s == null) {
            b.append("null");
        } else {
            quote(s);
        }
        return this;
    }

    public JsonWriter value(long n) {
        value();
        b.append(n);
        return this;
    }

    public JsonWriter value(double d) {
        value();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            b.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            b.append((long) d);
        } else {
            b.append(d);
        }
        return this;
    }

    public JsonWriter value(boolean v) {
        value();
        b.append(v);
        return this;
    }

    public JsonWriter nullValue() {
        value();
        b.append("null");
        return this;
    }

    public JsonWriter member(String name, String v) {
        return name(name).value(v);
    }

    public JsonWriter member(String name, long v) {
        return name(name).value(v);
    }

    public JsonWriter member(String name, double v) {
        return name(name).value(v);
    }

    public JsonWriter member(String name, boolean v) {
        return name(name).value(v);
    }

    private void value() {
        if (afterName) {
            afterName = false;
            return;
        }
        separate();
    }

    private void separate() {
        boolean[] o = open.peek();
        if (o != null) {
            if (o[0]) {
                b.append(',');
            }
            o[0] = true;
        }
    }

    private void quote(String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '<', '>', '&', '\u2028', '\u2029' -> b.append(String.format("\\u%04x", (int) c));
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    /** The text written; every object and array must be closed. */
    @Override
    public String toString() {
        if (!open.isEmpty()) {
            throw new IllegalStateException(open.size() + " objects or arrays left open");
        }
        return b.toString();
    }
}
