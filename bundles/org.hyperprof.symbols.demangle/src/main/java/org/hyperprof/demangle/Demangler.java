package org.hyperprof.demangle;

/**
 * Demangles symbol names: C++ names of the Itanium ABI ({@code _Z...}) and Rust names, legacy
 * ({@code _ZN...17h<hash>E}) and v0 ({@code _R...}). Stateless and safe to share between threads.
 *
 * <p>A name that is not mangled, or not validly, comes back unchanged, as binutils' c++filt
 * leaves it. Every name is demangled within bounded nesting and output length, so no input can
 * exhaust the stack or run long.
 */
public final class Demangler {
    /** Far longer than any real demangled name; past it the name stays as it was. */
    private static final int MAX_OUTPUT = 1 << 16;

    /**
     * The name as {@code c++filt} prints it: {@code long tw<int>(std::vector<int, std::allocator<int> >&)}.
     * For Rust legacy names, without the {@code ::h<hash>} that c++filt keeps.
     */
    public String full(String mangled) {
        return demangle(mangled, false);
    }

    /**
     * The name as {@code perf report} prints it ({@code c++filt -p}): no return type, no parameters,
     * no clone suffixes: {@code tw<int>}. For Rust, as {@link #full}.
     */
    public String brief(String mangled) {
        return demangle(mangled, true);
    }

    private static String demangle(String mangled, boolean brief) {
        if (mangled == null || mangled.length() < 3) {
            return mangled;
        }
        try {
            if (mangled.startsWith("_R")) {
                String rust = RustV0.demangle(mangled, MAX_OUTPUT);
                return rust == null ? mangled : rust;
            }
            if (mangled.startsWith("_ZN")) {
                String rust = RustLegacy.demangle(mangled);
                if (rust != null) {
                    return rust;
                }
            }
            if (mangled.startsWith("_Z")) {
                return cxx(mangled, brief);
            }
            if (mangled.startsWith("_GLOBAL_") && mangled.length() > 11
                    && "._$".indexOf(mangled.charAt(8)) >= 0 && "ID".indexOf(mangled.charAt(9)) >= 0
                    && mangled.charAt(10) == '_') {
                return globalKeyed(mangled, brief);
            }
        } catch (Unmangleable notMangled) {
            return mangled;
        }
        return mangled;
    }

    /** {@code _GLOBAL__I_<name>}: c++filt's "global constructors keyed to" (destructors for D). */
    private static String globalKeyed(String mangled, boolean brief) {
        String keyed = mangled.substring(11);
        String name = keyed.startsWith("_Z") ? cxx(keyed, false) : keyed;
        return (mangled.charAt(9) == 'I' ? "global constructors keyed to " : "global destructors keyed to ") + name;
    }

    private static String cxx(String mangled, boolean brief) {
        Node symbol = new ItaniumParser(mangled).symbol();
        if (brief) {
            if (symbol instanceof ItaniumParser.Clone clone) {
                symbol = clone.encoding;
            }
            if (symbol instanceof Node.Encoding encoding) {
                symbol = encoding.name;
            }
        }
        Printer p = new Printer(MAX_OUTPUT);
        symbol.print(p);
        return p.toString();
    }
}
