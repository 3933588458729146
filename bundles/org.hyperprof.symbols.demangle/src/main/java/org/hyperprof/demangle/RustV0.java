package org.hyperprof.demangle;

/**
 * Rust's v0 mangling (RFC 2603), {@code _R...}, printed as c++filt prints it: crates with their
 * disambiguator in hex ({@code std[e28293b1aa0f68bd]}), generic arguments of values after {@code ::},
 * closures and shims as {@code {closure#0}}. Parsed and printed in one pass; back references are
 * followed by reading again from the earlier position.
 */
final class RustV0 extends MangledReader {
    private static final String BASIC = "abcdefhijlmnostuvxyz";
    private static final String[] BASIC_NAMES = {
        "i8", "bool", "char", "f64", "str", "f32", "u8", "isize", "usize", "i32", "u32", "i128",
        "u128", "i16", "u16", "()", "...", "i64", "u64", "!",
    };

    private final Printer out;
    private int boundLifetimes;

    private RustV0(String s, int budget) {
        super(s);
        this.out = new Printer(budget);
    }

    /** The demangled path, or null when the name is not one this reader understands. */
    static String demangle(String s, int budget) {
        RustV0 reader = new RustV0(s, budget);
        reader.pos = 2;
        if (reader.pos < s.length() && isDigit(s.charAt(reader.pos))) {
            return null; // encoding versions other than 0 are not defined
        }
        reader.path(true);
        if (reader.pos < s.length() && reader.peek() != '.') {
            // the instantiating crate: read, not printed
            Printer shown = reader.out;
            reader.skipPath();
            if (reader.pos < s.length() && reader.peek() != '.') {
                return null;
            }
            return shown.toString();
        }
        return reader.out.toString();
    }

    private void skipPath() {
        int mark = out.length();
        path(false);
        out.truncate(mark);
    }

    private void path(boolean inValue) {
        enter();
        char tag = next();
        switch (tag) {
            case 'C' -> {
                long disambiguator = disambiguator();
                identifier();
                out.append('[').append(Long.toHexString(disambiguator)).append(']');
            }
            case 'M' -> {
                disambiguator();
                skipPath();
                out.append('<');
                type();
                out.append('>');
            }
            case 'X' -> {
                disambiguator();
                skipPath();
                out.append('<');
                type();
                out.append(" as ");
                path(false);
                out.append('>');
            }
            case 'Y' -> {
                out.append('<');
                type();
                out.append(" as ");
                path(false);
                out.append('>');
            }
            case 'N' -> {
                char namespace = next();
                if (!Character.isLetter(namespace) || namespace > 127) {
                    throw new Unmangleable();
                }
                path(inValue);
                long disambiguator = disambiguator();
                int start = pos;
                String name = rawIdentifier();
                if (Character.isUpperCase(namespace)) {
                    out.append("::{");
                    out.append(namespace == 'C' ? "closure" : namespace == 'S' ? "shim" : String.valueOf(namespace));
                    if (!name.isEmpty()) {
                        out.append(':').append(name);
                    }
                    out.append('#').append(Long.toString(disambiguator)).append('}');
                } else if (!name.isEmpty() || start == pos) {
                    out.append("::").append(name);
                }
            }
            case 'I' -> {
                path(inValue);
                if (inValue) {
                    out.append("::");
                }
                out.append('<');
                genericArgs();
                out.append('>');
            }
            case 'B' -> backref(() -> path(inValue));
            default -> throw new Unmangleable();
        }
        depth--;
    }

    private void genericArgs() {
        listUntilEnd(", ", this::genericArg);
    }

    /** Items up to the closing {@code E}, with a separator between them as printed; the E is read. */
    private void listUntilEnd(String separator, Runnable item) {
        boolean first = true;
        while (peek() != 'E') {
            if (!first) {
                out.append(separator);
            }
            first = false;
            item.run();
        }
        pos++;
    }

    private void genericArg() {
        char c = peek();
        if (c == 'L') {
            pos++;
            lifetime(base62());
        } else if (c == 'K') {
            pos++;
            constant();
        } else {
            type();
        }
    }

    private void lifetime(long index) {
        if (index == 0) {
            out.append("'_");
            return;
        }
        long depthFromBinder = boundLifetimes - index;
        if (depthFromBinder < 0) {
            throw new Unmangleable();
        }
        lifetimeName(depthFromBinder);
    }

    private void lifetimeName(long n) {
        out.append('\'');
        if (n < 26) {
            out.append((char) ('a' + n));
        } else {
            out.append('_').append(Long.toString(n));
        }
    }

    private void type() {
        enter();
        char c = next();
        int basic = BASIC.indexOf(c);
        if (basic >= 0) {
            out.append(BASIC_NAMES[basic]);
            depth--;
            return;
        }
        if (c == 'p') {
            out.append('_');
            depth--;
            return;
        }
        switch (c) {
            case 'R', 'Q' -> {
                out.append('&');
                if (peek() == 'L') {
                    pos++;
                    long lifetime = base62();
                    if (lifetime != 0) {
                        lifetime(lifetime);
                        out.append(' ');
                    }
                }
                if (c == 'Q') {
                    out.append("mut ");
                }
                type();
            }
            case 'P' -> {
                out.append("*const ");
                type();
            }
            case 'O' -> {
                out.append("*mut ");
                type();
            }
            case 'A' -> {
                out.append('[');
                type();
                out.append("; ");
                constant();
                out.append(']');
            }
            case 'S' -> {
                out.append('[');
                type();
                out.append(']');
            }
            case 'T' -> {
                out.append('(');
                int count = 0;
                while (peek() != 'E') {
                    if (count++ > 0) {
                        out.append(", ");
                    }
                    type();
                }
                pos++;
                if (count == 1) {
                    out.append(',');
                }
                out.append(')');
            }
            case 'F' -> fnSig();
            case 'D' -> dynBounds();
            case 'B' -> backref(this::type);
            default -> {
                pos--;
                path(false);
            }
        }
        depth--;
    }

    private void fnSig() {
        int bound = binder();
        if (peek() == 'U') {
            pos++;
            out.append("unsafe ");
        }
        if (peek() == 'K') {
            pos++;
            out.append("extern \"");
            if (peek() == 'C') {
                pos++;
                out.append('C');
            } else {
                out.append(rawIdentifier().replace('_', '-'));
            }
            out.append("\" ");
        }
        out.append("fn(");
        listUntilEnd(", ", this::type);
        out.append(')');
        if (peek() == 'u') {
            pos++;
        } else {
            out.append(" -> ");
            type();
        }
        boundLifetimes -= bound;
    }

    private void dynBounds() {
        out.append("dyn ");
        int bound = binder();
        listUntilEnd(" + ", this::dynTrait);
        boundLifetimes -= bound;
        expect('L');
        long lifetime = base62();
        if (lifetime != 0) {
            out.append(" + ");
            lifetime(lifetime);
        }
    }

    /** A trait of a dyn type, with its associated type bindings inside its generic arguments. */
    private void dynTrait() {
        boolean open = pathMaybeOpen();
        while (peek() == 'p') {
            pos++;
            out.append(open ? ", " : "<");
            open = true;
            out.append(rawIdentifier()).append(" = ");
            type();
        }
        if (open) {
            out.append('>');
        }
    }

    /** A trait path whose generic-argument list is left open so bindings can join it. */
    private boolean pathMaybeOpen() {
        if (peek() == 'B') {
            pos++;
            int target = backrefTarget();
            int saved = pos;
            pos = target;
            boolean open = pathMaybeOpen();
            pos = saved;
            return open;
        }
        if (peek() == 'I') {
            pos++;
            path(false);
            out.append('<');
            genericArgs();
            return true;
        }
        path(false);
        return false;
    }

    private void constant() {
        enter();
        char c = peek();
        if (c == 'B') {
            pos++;
            backref(this::constant);
            depth--;
            return;
        }
        if (c == 'p') {
            pos++;
            out.append('_');
            depth--;
            return;
        }
        pos++;
        boolean negative = false;
        if (peek() == 'n') {
            negative = true;
            pos++;
        }
        int start = pos;
        while (peek() != '_') {
            if (Character.digit(peek(), 16) < 0 || Character.isUpperCase(peek())) {
                throw new Unmangleable();
            }
            pos++;
        }
        String hex = s.substring(start, pos);
        pos++;
        constantValue(c, negative, hex);
        out.append(": ").append(BASIC_NAMES[BASIC.indexOf(c)]);
        depth--;
    }

    private void constantValue(char c, boolean negative, String hex) {
        switch (c) {
            case 'b' -> out.append(hex.equals("0") ? "false" : hex.equals("1") ? "true" : fail());
            case 'c' -> {
                int code = hex.isEmpty() || hex.length() > 6 ? -1 : Integer.parseInt(hex, 16);
                if (code < 0 || code > Character.MAX_CODE_POINT || code >= 0xD800 && code < 0xE000) {
                    throw new Unmangleable();
                }
                out.append('\'').append(new String(Character.toChars(code))).append('\'');
            }
            case 'a', 'h', 'i', 'j', 'l', 'm', 'n', 'o', 's', 't', 'x', 'y' -> {
                if (hex.length() > 16) {
                    out.append((negative ? "-0x" : "0x") + hex);
                } else {
                    out.append((negative ? "-" : "") + Long.toUnsignedString(hex.isEmpty() ? 0 : Long.parseUnsignedLong(hex, 16)));
                }
            }
            default -> throw new Unmangleable();
        }
    }

    private static String fail() {
        throw new Unmangleable();
    }

    private int binder() {
        if (peek() != 'G') {
            return 0;
        }
        pos++;
        long count = base62() + 1;
        if (count > 1000) {
            throw new Unmangleable();
        }
        out.append("for<");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                out.append(", ");
            }
            lifetimeName(boundLifetimes + i);
        }
        out.append("> ");
        boundLifetimes += (int) count;
        return (int) count;
    }

    private void backref(Runnable read) {
        int target = backrefTarget();
        int saved = pos;
        pos = target;
        read.run();
        pos = saved;
    }

    private int backrefTarget() {
        int at = pos - 1;
        long offset = base62();
        long target = offset + 2;
        if (target >= at) {
            throw new Unmangleable(); // only backwards: no loops
        }
        return (int) target;
    }

    private long disambiguator() {
        if (peek() != 's') {
            return 0;
        }
        pos++;
        return base62() + 1;
    }

    private void identifier() {
        disambiguator();
        out.append(rawIdentifier());
    }

    private String rawIdentifier() {
        if (peek() == 'u') {
            throw new Unmangleable(); // punycode: not read here
        }
        if (!isDigit(peek())) {
            throw new Unmangleable();
        }
        int length = 0;
        if (peek() == '0') {
            pos++;
        } else {
            while (isDigit(peek())) {
                length = length * 10 + (next() - '0');
                if (length > s.length()) {
                    throw new Unmangleable();
                }
            }
        }
        if (pos < s.length() && peek() == '_') {
            pos++;
        }
        if (pos + length > s.length()) {
            throw new Unmangleable();
        }
        String id = s.substring(pos, pos + length);
        pos += length;
        return id;
    }

    private long base62() {
        if (peek() == '_') {
            pos++;
            return 0;
        }
        long n = 0;
        while (peek() != '_') {
            char c = next();
            int d;
            if (isDigit(c)) {
                d = c - '0';
            } else if (c >= 'a' && c <= 'z') {
                d = c - 'a' + 10;
            } else if (c >= 'A' && c <= 'Z') {
                d = c - 'A' + 36;
            } else {
                throw new Unmangleable();
            }
            if (Long.compareUnsigned(n, Long.divideUnsigned(-1L - d, 62)) > 0) { // past u64
                throw new Unmangleable();
            }
            n = n * 62 + d;
        }
        pos++;
        return n + 1;
    }
}
