package org.hyperprof.web.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The one parser of the view's request parameters: it reads the raw query string itself (so that what
 * it accepts is this class's rule, not the container's), and every getter returns a typed value in its
 * bounds or throws {@link BadParameter} naming the parameter, what was wrong and what it takes. No value
 * ever reaches SQL or a file name as text: ids are numbers, choices come from a fixed set.
 */
public final class Params {
    /** The longest query string read. */
    public static final int MAX_QUERY = 8192;
    /** The most parameters a query may have. */
    public static final int MAX_PARAMETERS = 64;
    /** The longest text value (a symbol, a filter). */
    public static final int MAX_TEXT = 1024;

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,39}");

    private final Map<String, List<String>> values;

    private Params(Map<String, List<String>> values) {
        this.values = values;
    }

    /** An empty set of parameters. */
    public static Params none() {
        return new Params(Map.of());
    }

    /**
     * Parses a raw query string ({@code a=1&b=x%20y}; null or empty for none).
     *
     * @throws BadParameter when it is too long, has too many parameters, a bad name or bad percent-encoding
     */
    public static Params parse(String query) throws BadParameter {
        if (query == null || query.isEmpty()) {
            return none();
        }
        if (query.length() > MAX_QUERY) {
            throw new BadParameter("the query string has " + query.length() + " characters; at most " + MAX_QUERY
                    + " are read");
        }
        Map<String, List<String>> map = new LinkedHashMap<>();
        int count = 0;
        for (String pair : query.split("&", -1)) {
            if (pair.isEmpty()) {
                continue;
            }
            if (++count > MAX_PARAMETERS) {
                throw new BadParameter("the query has more than " + MAX_PARAMETERS + " parameters");
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), "a parameter name");
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1), "parameter '" + name + "'");
            if (!NAME.matcher(name).matches()) {
                throw new BadParameter("'" + shown(name) + "' is not a parameter name: names are a letter then up to"
                        + " 39 letters, digits, '_', '.' or '-'");
            }
            map.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        map.replaceAll((k, v) -> Collections.unmodifiableList(v));
        return new Params(Collections.unmodifiableMap(map));
    }

    /** Whether the parameter is given (even empty). */
    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** Every parameter's name. */
    public Set<String> names() {
        return values.keySet();
    }

    /** The parameter's one value, or null when it is absent; given twice, it is refused. */
    public String raw(String name) throws BadParameter {
        List<String> v = values.get(name);
        if (v == null) {
            return null;
        }
        if (v.size() > 1) {
            throw new BadParameter("parameter '" + name + "' is given " + v.size() + " times; give it once");
        }
        return v.get(0);
    }

    /** A required non-negative id (a session's). */
    public long id(String name) throws BadParameter {
        String v = raw(name);
        if (v == null || v.isEmpty()) {
            throw new BadParameter("parameter '" + name + "' is missing: it takes a session id (a whole number,"
                    + " as hp:sessions lists them)");
        }
        return number(name, v, 0, Long.MAX_VALUE);
    }

    /** An optional whole number in [min, max], or the default when absent or empty. */
    public long number(String name, long min, long max, long fallback) throws BadParameter {
        String v = raw(name);
        return v == null || v.isEmpty() ? fallback : number(name, v, min, max);
    }

    /** An optional int in [min, max] (limits, offsets), or the default. */
    public int integer(String name, int min, int max, int fallback) throws BadParameter {
        return (int) number(name, min, max, fallback);
    }

    /** Optional text of at most {@link #MAX_TEXT} characters, without control characters; or the default. */
    public String text(String name, String fallback) throws BadParameter {
        String v = raw(name);
        if (v == null) {
            return fallback;
        }
        if (v.length() > MAX_TEXT) {
            throw new BadParameter("parameter '" + name + "' has " + v.length() + " characters; at most " + MAX_TEXT);
        }
        for (int i = 0; i < v.length(); i++) {
            if (Character.isISOControl(v.charAt(i))) {
                throw new BadParameter("parameter '" + name + "' holds a control character (code "
                        + (int) v.charAt(i) + "); give plain text");
            }
        }
        return v;
    }

    /** One of a fixed set of words, or the default. */
    public String choice(String name, List<String> choices, String fallback) throws BadParameter {
        String v = raw(name);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        if (!choices.contains(v)) {
            throw new BadParameter("parameter '" + name + "' is '" + shown(v) + "'; it takes one of " + choices);
        }
        return v;
    }

    /** Optional yes/no: {@code 1}/{@code true} or {@code 0}/{@code false}. */
    public boolean flag(String name, boolean fallback) throws BadParameter {
        String v = choice(name, List.of("1", "0", "true", "false"), null);
        return v == null ? fallback : v.equals("1") || v.equals("true");
    }

    /** An optional regular expression (a filter), compiled; null when absent or empty. */
    public Pattern pattern(String name) throws BadParameter {
        String v = text(name, null);
        if (v == null || v.isEmpty()) {
            return null;
        }
        try {
            return Pattern.compile(v);
        } catch (PatternSyntaxException e) {
            throw new BadParameter("parameter '" + name + "' is not a regular expression: " + e.getDescription()
                    + " near index " + e.getIndex());
        }
    }

    private static long number(String name, String v, long min, long max) throws BadParameter {
        if (v.length() > 19 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new BadParameter("parameter '" + name + "' is '" + shown(v) + "'; it takes a whole number from "
                    + min + " to " + max);
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            n = Long.MAX_VALUE;
        }
        if (n < min || n > max) {
            throw new BadParameter("parameter '" + name + "' is " + v + "; it takes a whole number from " + min
                    + " to " + max);
        }
        return n;
    }

    /** Percent-decoding, '+' as space, strict UTF-8. */
    static String decode(String s, String what) throws BadParameter {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length() || hex(s.charAt(i + 1)) < 0 || hex(s.charAt(i + 2)) < 0) {
                    throw new BadParameter(what + " has a '%' not followed by two hex digits");
                }
                bytes.write(hex(s.charAt(i + 1)) * 16 + hex(s.charAt(i + 2)));
                i += 2;
            } else if (c == '+') {
                bytes.write(' ');
            } else if (c > 0x7e || c < 0x20) {
                throw new BadParameter(what + " holds a character that must be percent-encoded (code " + (int) c + ")");
            } else {
                bytes.write(c);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new BadParameter(what + " is not UTF-8 once percent-decoded");
        }
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /** A value as shown in a message: at most 40 characters, controls escaped. */
    static String shown(String v) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < v.length() && b.length() < 40; i++) {
            char c = v.charAt(i);
            b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return v.length() > 40 ? b + "..." : b.toString();
    }
}
