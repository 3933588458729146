package org.hyperprof.demangle;

/** The two-letter operator codes of the Itanium ABI and how C++ spells them. */
final class Operators {
    private static final String[] CODES = {
        "nw", "new", "na", "new[]", "dl", "delete", "da", "delete[]", "aw", "co_await",
        "ps", "+", "ng", "-", "ad", "&", "de", "*", "co", "~", "pl", "+", "mi", "-", "ml", "*",
        "dv", "/", "rm", "%", "an", "&", "or", "|", "eo", "^", "aS", "=", "pL", "+=", "mI", "-=",
        "mL", "*=", "dV", "/=", "rM", "%=", "aN", "&=", "oR", "|=", "eO", "^=", "ls", "<<", "rs", ">>",
        "lS", "<<=", "rS", ">>=", "eq", "==", "ne", "!=", "lt", "<", "gt", ">", "le", "<=", "ge", ">=",
        "ss", "<=>", "nt", "!", "aa", "&&", "oo", "||", "pp", "++", "mm", "--", "cm", ",", "pm", "->*",
        "pt", "->", "cl", "()", "ix", "[]", "qu", "?", "st", "sizeof ", "sz", "sizeof ", "at", "alignof ",
        "az", "alignof ",
    };

    private Operators() {
    }

    /** The operator's spelling, or null for a code that names none. */
    static String symbol(char a, char b) {
        for (int i = 0; i < CODES.length; i += 2) {
            String code = CODES[i];
            if (code.charAt(0) == a && code.charAt(1) == b) {
                return CODES[i + 1];
            }
        }
        return null;
    }
}
