package org.hyperprof.demangle;

/** Rust's v0 mangling (RFC 2603), {@code _R...}. */
final class RustV0 {
    private RustV0() {
    }

    /** The demangled path, or null when the name is not one this reader understands. */
    static String demangle(String s, int budget) {
        return null;
    }
}
