package org.hyperprof.demangle;

/** The builtin types of the Itanium ABI: one letter, or {@code D} and a letter. */
final class Builtins {
    private Builtins() {
    }

    static String of(char c) {
        return switch (c) {
            case 'v' -> "void";
            case 'w' -> "wchar_t";
            case 'b' -> "bool";
            case 'c' -> "char";
            case 'a' -> "signed char";
            case 'h' -> "unsigned char";
            case 's' -> "short";
            case 't' -> "unsigned short";
            case 'i' -> "int";
            case 'j' -> "unsigned int";
            case 'l' -> "long";
            case 'm' -> "unsigned long";
            case 'x' -> "long long";
            case 'y' -> "unsigned long long";
            case 'n' -> "__int128";
            case 'o' -> "unsigned __int128";
            case 'f' -> "float";
            case 'd' -> "double";
            case 'e' -> "long double";
            case 'g' -> "__float128";
            case 'z' -> "...";
            default -> null;
        };
    }

    static String ofD(char c) {
        return switch (c) {
            case 'd' -> "decimal64";
            case 'e' -> "decimal128";
            case 'f' -> "decimal32";
            case 'h' -> "half";
            case 'i' -> "char32_t";
            case 's' -> "char16_t";
            case 'u' -> "char8_t";
            case 'a' -> "auto";
            case 'c' -> "decltype(auto)";
            case 'n' -> "decltype(nullptr)";
            default -> null;
        };
    }
}
