package org.hyperprof.demangle;

/**
 * The cursor both grammars' readers (Itanium C++, Rust v0) walk a mangled name with: the name, the
 * position in it and the nesting depth, refused past {@link #MAX_DEPTH} so a hostile name ends in
 * {@link Unmangleable}, never a StackOverflowError; running off the end is refused the same way.
 */
abstract class MangledReader {
    /** Deeper nesting than any real name: past it the name is refused. */
    static final int MAX_DEPTH = 200;

    final String s;
    int pos;
    int depth;

    MangledReader(String s) {
        this.s = s;
    }

    final void enter() {
        if (++depth > MAX_DEPTH) {
            throw new Unmangleable();
        }
    }

    final char peek() {
        if (pos >= s.length()) {
            throw new Unmangleable();
        }
        return s.charAt(pos);
    }

    final char next() {
        char c = peek();
        pos++;
        return c;
    }

    final void expect(char c) {
        if (next() != c) {
            throw new Unmangleable();
        }
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
