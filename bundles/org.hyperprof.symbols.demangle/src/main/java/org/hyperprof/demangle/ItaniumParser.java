package org.hyperprof.demangle;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads one name of the Itanium C++ ABI's mangling grammar into {@link Node}s. One parser per name:
 * it holds the name's substitution table and template arguments. Any departure from the grammar,
 * too deep a nesting or too long a result throws {@link Unmangleable}.
 */
final class ItaniumParser extends MangledReader {
    private final List<Node> substitutions = new ArrayList<>();
    private List<Node> templateArgs;
    private List<Node.ForwardReference> forwardReferences;
    private boolean inLambdaSignature;
    /** Qualifiers of {@code this} read with the last nested name (N K ... E), for its encoding. */
    private String thisQualifiers = "";

    ItaniumParser(String mangled) {
        super(mangled);
    }

    /** The whole symbol: {@code _Z <encoding> [clone suffixes]}. */
    Node symbol() {
        pos = 2;
        Node encoding = encoding(true);
        if (pos == s.length()) {
            return encoding;
        }
        StringBuilder clones = new StringBuilder();
        while (pos < s.length()) {
            clones.append(" [clone ").append(cloneSuffix()).append(']');
        }
        return new Clone(encoding, clones.toString());
    }

    /** What follows the encoding: {@code .cold}, {@code .isra.0}, {@code .constprop.0.isra.1}. */
    private String cloneSuffix() {
        int start = pos;
        expect('.');
        if (pos < s.length() && (isLower(s.charAt(pos)) || s.charAt(pos) == '_')) {
            while (pos < s.length() && (isLower(s.charAt(pos)) || s.charAt(pos) == '_')) {
                pos++;
            }
        } else if (!(pos < s.length() && isDigit(s.charAt(pos)))) {
            throw new Unmangleable();
        }
        while (pos + 1 < s.length() && s.charAt(pos) == '.' && isDigit(s.charAt(pos + 1))) {
            pos++;
            while (pos < s.length() && isDigit(s.charAt(pos))) {
                pos++;
            }
        }
        if (pos < s.length() && isDigit(s.charAt(pos))) {
            while (pos < s.length() && isDigit(s.charAt(pos))) {
                pos++;
            }
        }
        return s.substring(start, pos);
    }

    private Node encoding(boolean topLevel) {
        enter();
        try {
            char c = peek();
            if (c == 'T' || c == 'G') {
                return specialName();
            }
            Node name = name(true);
            String qualifiers = thisQualifiers;
            thisQualifiers = "";
            if (pos == s.length() || peek() == 'E' || peek() == '.') {
                // a data name; qualifiers of this without a function type are still shown
                return qualifiers.isEmpty() ? name : new Node.Encoding(name, null, null, qualifiers);
            }
            Node result = null;
            if (name.isTemplate() && !name.isCtorDtorOrConversion()) {
                result = type();
            }
            List<Node> parameters = parameterTypes();
            return new Node.Encoding(name, result, parameters, qualifiers);
        } finally {
            depth--;
        }
    }

    private List<Node> parameterTypes() {
        List<Node> parameters = new ArrayList<>(4);
        do {
            parameters.add(type());
        } while (pos < s.length() && peek() != 'E' && peek() != '.');
        return parameters;
    }

    private Node specialName() {
        char c = next();
        char d = next();
        if (c == 'T') {
            switch (d) {
                case 'V': return new Node.Prefixed("vtable for ", type());
                case 'T': return new Node.Prefixed("VTT for ", type());
                case 'I': return new Node.Prefixed("typeinfo for ", type());
                case 'S': return new Node.Prefixed("typeinfo name for ", type());
                case 'H': return new Node.Prefixed("TLS init function for ", name(false));
                case 'W': return new Node.Prefixed("TLS wrapper function for ", name(false));
                case 'h':
                    callOffsetNumber();
                    return new Node.Prefixed("non-virtual thunk to ", encoding(false));
                case 'v':
                    callOffsetNumber();
                    callOffsetNumber();
                    return new Node.Prefixed("virtual thunk to ", encoding(false));
                case 'c':
                    callOffset();
                    callOffset();
                    return new Node.Prefixed("covariant return thunk to ", encoding(false));
                case 'C': {
                    Node whole = type();
                    number();
                    expect('_');
                    return new Node.ConstructionVtable(whole, type());
                }
                default: throw new Unmangleable();
            }
        }
        switch (d) {
            case 'V': return new Node.Prefixed("guard variable for ", name(false));
            case 'R': {
                // as c++filt reads it: the name, then a decimal number (none is 0)
                Node name = name(false);
                int n = pos < s.length() && isDigit(peek()) ? number() : 0;
                return new Node.Prefixed("reference temporary #" + n + " for ", name);
            }
            case 'A': return new Node.Prefixed("hidden alias for ", encoding(false));
            case 'T': {
                char k = next();
                if (k == 't') {
                    return new Node.Prefixed("transaction clone for ", encoding(false));
                }
                if (k == 'n') {
                    return new Node.Prefixed("non-transaction clone for ", encoding(false));
                }
                throw new Unmangleable();
            }
            default: throw new Unmangleable();
        }
    }

    private void callOffset() {
        char c = next();
        if (c == 'h') {
            callOffsetNumber();
        } else if (c == 'v') {
            callOffsetNumber();
            callOffsetNumber();
        } else {
            throw new Unmangleable();
        }
    }

    private void callOffsetNumber() {
        number();
        expect('_');
    }

    private Node name(boolean encodingLevel) {
        enter();
        try {
            thisQualifiers = "";
            char c = peek();
            if (c == 'N') {
                return nestedName(encodingLevel);
            }
            if (c == 'Z') {
                return localName(encodingLevel);
            }
            Node name;
            if (c == 'S' && peekAt(1) == 't') {
                pos += 2;
                name = new Node.Nested(new Node.Text("std"), unqualifiedName(null));
            } else if (c == 'S') {
                name = substitution();
                if (peek() != 'I') {
                    return name;
                }
                return new Node.Template(name, templateArgs(encodingLevel));
            } else {
                name = unqualifiedName(null);
            }
            if (pos < s.length() && peek() == 'I') {
                substitutions.add(name);
                name = new Node.Template(name, templateArgs(encodingLevel));
            }
            return name;
        } finally {
            depth--;
        }
    }

    private Node nestedName(boolean encodingLevel) {
        expect('N');
        String qualifiers = cvQualifiers();
        if (peek() == 'R') {
            pos++;
            qualifiers += " &";
        } else if (peek() == 'O') {
            pos++;
            qualifiers += " &&";
        }
        Node current = null;
        while (true) {
            char c = peek();
            if (c == 'E') {
                pos++;
                break;
            }
            if (c == 'S' && peekAt(1) == 't') {
                if (current != null) {
                    throw new Unmangleable();
                }
                pos += 2;
                current = new Node.Text("std");
                continue;
            }
            if (c == 'S') {
                if (current != null) {
                    throw new Unmangleable();
                }
                current = substitution();
                continue;
            }
            if (c == 'I') {
                if (current == null) {
                    throw new Unmangleable();
                }
                current = new Node.Template(current, templateArgs(encodingLevel));
            } else if (c == 'T') {
                if (current != null) {
                    throw new Unmangleable();
                }
                current = templateParam();
            } else if (c == 'D' && (peekAt(1) == 't' || peekAt(1) == 'T')) {
                throw new Unmangleable();
            } else if (c == 'M') {
                pos++; // the closure's scope is a data member: nothing to print
                continue;
            } else {
                Node name = unqualifiedName(current);
                current = current == null ? name : new Node.Nested(current, name);
            }
            if (peek() != 'E') {
                substitutions.add(current);
            }
        }
        if (current == null) {
            throw new Unmangleable();
        }
        thisQualifiers = qualifiers;
        return current;
    }

    private Node localName(boolean encodingLevel) {
        expect('Z');
        Node function = encoding(false);
        if (function instanceof Node.Encoding e && e.result != null) {
            // c++filt leaves out the return type of the function a local name is in
            function = new Node.Encoding(e.name, null, e.parameters, e.qualifiers);
        }
        expect('E');
        if (peek() == 's') {
            pos++;
            discriminator();
            return new Node.Local(function, new Node.Text("string literal"));
        }
        if (peek() == 'd') {
            pos++;
            int n = peek() == '_' ? 0 : number() + 1;
            expect('_');
            Node entity = name(encodingLevel);
            return new Node.Local(function, new Node.Nested(new Node.Text("{default arg#" + (n + 1) + "}"), entity));
        }
        Node entity = name(encodingLevel);
        String qualifiers = thisQualifiers;
        discriminator();
        thisQualifiers = qualifiers;
        return new Node.Local(function, entity);
    }

    private void discriminator() {
        if (pos >= s.length() || peek() != '_') {
            return;
        }
        pos++;
        if (peek() == '_') {
            pos++;
            number();
            expect('_');
        } else if (isDigit(peek())) {
            pos++;
        } else {
            throw new Unmangleable();
        }
    }

    private Node unqualifiedName(Node scope) {
        char c = peek();
        Node name;
        if (isDigit(c)) {
            name = sourceName();
        } else if (isLower(c)) {
            name = operatorName();
        } else if (c == 'C') {
            pos++;
            if (peek() == 'I') {
                pos++;
                next();
                type();
            } else {
                char k = next();
                if (k < '1' || k > '5') {
                    throw new Unmangleable();
                }
            }
            if (scope == null) {
                throw new Unmangleable();
            }
            name = new Node.Special(new Node.Text(scope.ctorName()));
        } else if (c == 'D' && peekAt(1) >= '0' && peekAt(1) <= '5') {
            pos += 2;
            if (scope == null) {
                throw new Unmangleable();
            }
            name = new Node.Special(new Node.Text("~" + scope.ctorName()));
        } else if (c == 'U') {
            name = unnamedType();
        } else if (c == 'L') {
            pos++;
            name = sourceName();
            discriminator();
        } else {
            throw new Unmangleable();
        }
        while (pos < s.length() && peek() == 'B') {
            pos++;
            int length = number();
            name = new Node.AbiTagged(name, slice(length));
        }
        return name;
    }

    private Node unnamedType() {
        expect('U');
        char c = next();
        if (c == 't') {
            int n = peek() == '_' ? 1 : number() + 2;
            expect('_');
            return new Node.Text("{unnamed type#" + n + "}");
        }
        if (c != 'l') {
            throw new Unmangleable();
        }
        boolean outer = inLambdaSignature;
        inLambdaSignature = true;
        List<Node> parameters;
        try {
            parameters = parameterTypes();
        } finally {
            inLambdaSignature = outer;
        }
        expect('E');
        int n = peek() == '_' ? 1 : number() + 2;
        expect('_');
        return new Node.Closure(parameters, n);
    }

    private Node sourceName() {
        int length = number();
        if (length <= 0) {
            throw new Unmangleable();
        }
        String id = slice(length);
        if (id.startsWith("_GLOBAL_") && id.length() > 9
                && (id.charAt(8) == '.' || id.charAt(8) == '_' || id.charAt(8) == '$') && id.charAt(9) == 'N') {
            return new Node.Text("(anonymous namespace)");
        }
        return new Node.Text(id);
    }

    private String slice(int length) {
        if (length < 0 || pos + length > s.length()) {
            throw new Unmangleable();
        }
        String id = s.substring(pos, pos + length);
        pos += length;
        return id;
    }

    private Node operatorName() {
        char a = next();
        char b = next();
        if (a == 'c' && b == 'v') {
            List<Node.ForwardReference> outer = forwardReferences;
            forwardReferences = new ArrayList<>(1);
            Node target = type();
            List<Node.ForwardReference> pending = forwardReferences;
            forwardReferences = outer == null ? (pending.isEmpty() ? null : pending) : merge(outer, pending);
            return new Node.Special(new Node.Prefixed("operator ", target));
        }
        if (a == 'l' && b == 'i') {
            return new Node.Text("operator\"\" " + ((Node.Text) sourceName()).text);
        }
        if (a == 'v' && isDigit(b)) {
            return new Node.Text("operator " + ((Node.Text) sourceName()).text);
        }
        String op = Operators.symbol(a, b);
        if (op == null) {
            throw new Unmangleable();
        }
        return new Node.Text(Character.isLetter(op.charAt(0)) ? "operator " + op : "operator" + op);
    }

    private static List<Node.ForwardReference> merge(List<Node.ForwardReference> a, List<Node.ForwardReference> b) {
        a.addAll(b);
        return a;
    }

    private List<Node> templateArgs(boolean encodingLevel) {
        enter();
        try {
            expect('I');
            List<Node> args = new ArrayList<>(4);
            while (peek() != 'E') {
                args.add(templateArg());
            }
            pos++;
            if (encodingLevel) {
                templateArgs = args;
                if (forwardReferences != null) {
                    for (Node.ForwardReference ref : forwardReferences) {
                        if (ref.index >= args.size()) {
                            throw new Unmangleable();
                        }
                        ref.target = args.get(ref.index);
                    }
                    forwardReferences = null;
                }
            }
            return args;
        } finally {
            depth--;
        }
    }

    private Node templateArg() {
        char c = peek();
        if (c == 'L') {
            return literal();
        }
        if (c == 'X') {
            pos++;
            Node e = expression();
            expect('E');
            return e;
        }
        if (c == 'J') {
            pos++;
            List<Node> elements = new ArrayList<>();
            while (peek() != 'E') {
                elements.add(templateArg());
            }
            pos++;
            return new Node.Pack(elements);
        }
        return type();
    }

    private Node expression() {
        enter();
        try {
            char c = peek();
            if (c == 'L') {
                return literal();
            }
            if (c == 'T') {
                return templateParam();
            }
            if (c == 'f' && peekAt(1) == 'p') {
                pos += 2;
                cvQualifiers();
                int n = peek() == '_' ? 1 : number() + 2;
                expect('_');
                return new Node.Parameter(n);
            }
            if (c == 's' && peekAt(1) == 'r' && peekAt(2) != 'N') {
                // a dependent member: <type>::<name>[<template-args>]
                pos += 2;
                Node scope;
                if (isDigit(peek())) {
                    // qualifier levels (simple ids) up to E: sr 1AIiE 1B E <name>
                    scope = null;
                    while (peek() != 'E') {
                        Node level = sourceName();
                        if (peek() == 'I') {
                            level = new Node.Template(level, templateArgs(false));
                        }
                        scope = scope == null ? level : new Node.Nested(scope, level);
                    }
                    pos++;
                } else {
                    scope = type();
                }
                Node member = unqualifiedName(null);
                if (pos < s.length() && peek() == 'I') {
                    member = new Node.Template(member, templateArgs(false));
                }
                return new Node.Nested(scope, member);
            }
            String unary = c == 'a' && peekAt(1) == 'd' ? "&" : c == 'd' && peekAt(1) == 'e' ? "*"
                    : c == 'n' && peekAt(1) == 'g' ? "-" : c == 'n' && peekAt(1) == 't' ? "!" : null;
            if (unary != null) {
                pos += 2;
                return new Node.Unary(unary, expression());
            }
            throw new Unmangleable();
        } finally {
            depth--;
        }
    }

    private Node literal() {
        expect('L');
        if (peek() == '_' && peekAt(1) == 'Z') {
            pos += 2;
            Node e = encoding(false);
            expect('E');
            return e;
        }
        Node type = type();
        boolean negative = peek() == 'n';
        if (negative) {
            pos++;
        }
        int start = pos;
        while (peek() != 'E') {
            pos++;
        }
        String value = (negative ? "-" : "") + s.substring(start, pos);
        pos++;
        if (start == pos - 1) {
            throw new Unmangleable();
        }
        String typeName = type instanceof Node.Text t ? t.text : null;
        if ("bool".equals(typeName)) {
            if (value.equals("0")) {
                return new Node.Text("false");
            }
            if (value.equals("1")) {
                return new Node.Text("true");
            }
        }
        String suffix = typeName == null ? null : switch (typeName) {
            case "int" -> "";
            case "unsigned int" -> "u";
            case "long" -> "l";
            case "unsigned long" -> "ul";
            case "long long" -> "ll";
            case "unsigned long long" -> "ull";
            default -> null;
        };
        if (suffix != null) {
            return new Node.Text(value + suffix);
        }
        return new Node.Cast(type, value);
    }

    private Node type() {
        enter();
        try {
            char c = peek();
            String builtin = Builtins.of(c);
            if (builtin != null) {
                pos++;
                return new Node.Text(builtin);
            }
            if (c == 'D' && Builtins.ofD(peekAt(1)) != null) {
                pos += 2;
                return new Node.Text(Builtins.ofD(s.charAt(pos - 1)));
            }
            Node t;
            switch (c) {
                case 'r', 'V', 'K' -> {
                    String qualifiers = cvQualifiers();
                    Node inner = type();
                    t = inner instanceof Node.Function f ? f.with(qualifiers) : new Node.Qualified(inner, qualifiers);
                }
                case 'P' -> {
                    pos++;
                    t = new Node.Pointer(type(), "*");
                }
                case 'R' -> {
                    pos++;
                    t = new Node.Pointer(type(), "&");
                }
                case 'O' -> {
                    pos++;
                    t = new Node.Pointer(type(), "&&");
                }
                case 'F' -> t = functionType("");
                case 'A' -> t = arrayType();
                case 'M' -> {
                    pos++;
                    Node owner = type();
                    t = new Node.MemberPointer(owner, type());
                }
                case 'T' -> {
                    t = templateParam();
                    if (pos < s.length() && peek() == 'I' && forwardReferences == null) {
                        substitutions.add(t);
                        t = new Node.Template(t, templateArgs(false));
                    }
                }
                case 'S' -> {
                    if (peekAt(1) == 't') {
                        t = name(false);
                    } else {
                        t = substitution();
                        if (pos < s.length() && peek() == 'I') {
                            t = new Node.Template(t, templateArgs(false));
                        } else {
                            return t;
                        }
                    }
                }
                case 'D' -> {
                    t = dType();
                    if (t instanceof Node.Text) {
                        return t; // _Float<N>: a builtin, not a substitution candidate
                    }
                }
                case 'u' -> {
                    pos++;
                    t = sourceName();
                }
                case 'N', 'Z' -> t = name(false);
                default -> {
                    if (!isDigit(c)) {
                        throw new Unmangleable();
                    }
                    t = name(false);
                }
            }
            substitutions.add(t);
            return t;
        } finally {
            depth--;
        }
    }

    private Node dType() {
        char d = peekAt(1);
        String builtin = Builtins.ofD(d);
        if (builtin != null) {
            pos += 2;
            return new Node.Text(builtin);
        }
        switch (d) {
            case 'p': {
                pos += 2;
                return new Node.PackExpansion(type());
            }
            case 'o': {
                pos += 2;
                if (peek() != 'F') {
                    throw new Unmangleable();
                }
                return functionType(" noexcept");
            }
            case 'x': {
                pos += 2;
                if (peek() != 'F') {
                    throw new Unmangleable();
                }
                return functionType(" transaction_safe");
            }
            case 'F': {
                // _Float<N> is a builtin too: never a substitution candidate
                pos += 2;
                int bits = number();
                if (peek() == 'x') {
                    pos++;
                    expect('_');
                    return new Node.Text("_Float" + bits + "x");
                }
                expect('_');
                return new Node.Text("_Float" + bits);
            }
            default: throw new Unmangleable();
        }
    }

    private Node functionType(String exceptionSpec) {
        expect('F');
        if (peek() == 'Y') {
            pos++;
        }
        Node result = type();
        List<Node> parameters = new ArrayList<>(4);
        String ref = "";
        while (true) {
            char c = peek();
            if (c == 'E') {
                pos++;
                break;
            }
            if ((c == 'R' || c == 'O') && peekAt(1) == 'E') {
                ref = c == 'R' ? " &" : " &&";
                pos += 2;
                break;
            }
            parameters.add(type());
        }
        if (parameters.isEmpty()) {
            throw new Unmangleable();
        }
        return new Node.Function(result, parameters, ref + exceptionSpec);
    }

    private Node arrayType() {
        expect('A');
        Node dimension;
        if (peek() == '_') {
            dimension = new Node.Text("");
        } else if (isDigit(peek())) {
            dimension = new Node.Text(Integer.toString(number()));
        } else {
            dimension = expression();
        }
        expect('_');
        return new Node.Array(type(), dimension);
    }

    private Node templateParam() {
        expect('T');
        int index = peek() == '_' ? 0 : number() + 1;
        expect('_');
        if (inLambdaSignature) {
            return new Node.Text("auto:" + (index + 1));
        }
        if (templateArgs == null || index >= templateArgs.size()) {
            if (forwardReferences != null) {
                Node.ForwardReference ref = new Node.ForwardReference(index);
                forwardReferences.add(ref);
                return ref;
            }
            throw new Unmangleable();
        }
        return templateArgs.get(index);
    }

    private Node substitution() {
        expect('S');
        char c = next();
        switch (c) {
            case 'a': return new Node.StdAbbreviation("std::allocator", "allocator");
            case 'b': return new Node.StdAbbreviation("std::basic_string", "basic_string");
            case 's': return new Node.StdAbbreviation(
                    "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "basic_string");
            case 'i': return new Node.StdAbbreviation(
                    "std::basic_istream<char, std::char_traits<char> >", "basic_istream");
            case 'o': return new Node.StdAbbreviation(
                    "std::basic_ostream<char, std::char_traits<char> >", "basic_ostream");
            case 'd': return new Node.StdAbbreviation(
                    "std::basic_iostream<char, std::char_traits<char> >", "basic_iostream");
            default:
        }
        int index;
        if (c == '_') {
            index = 0;
        } else {
            int start = pos - 1;
            while (peek() != '_') {
                pos++;
            }
            index = seqId(s.substring(start, pos)) + 1;
            pos++;
        }
        if (index >= substitutions.size()) {
            throw new Unmangleable();
        }
        return substitutions.get(index);
    }

    private static int seqId(String digits) {
        int n = 0;
        for (int i = 0; i < digits.length(); i++) {
            char d = digits.charAt(i);
            int v;
            if (isDigit(d)) {
                v = d - '0';
            } else if (d >= 'A' && d <= 'Z') {
                v = d - 'A' + 10;
            } else {
                throw new Unmangleable();
            }
            n = n * 36 + v;
            if (n > 1_000_000) {
                throw new Unmangleable();
            }
        }
        return n;
    }

    /** {@code [r] [V] [K]}, written as c++filt writes them: const, then volatile, then restrict. */
    private String cvQualifiers() {
        boolean restrict = false;
        boolean volatile_ = false;
        boolean const_ = false;
        if (peek() == 'r') {
            pos++;
            restrict = true;
        }
        if (peek() == 'V') {
            pos++;
            volatile_ = true;
        }
        if (peek() == 'K') {
            pos++;
            const_ = true;
        }
        if (!(restrict || volatile_ || const_)) {
            return "";
        }
        return (const_ ? " const" : "") + (volatile_ ? " volatile" : "") + (restrict ? " restrict" : "");
    }

    private int number() {
        boolean negative = peek() == 'n';
        if (negative) {
            pos++;
        }
        if (!isDigit(peek())) {
            throw new Unmangleable();
        }
        int n = 0;
        while (pos < s.length() && isDigit(s.charAt(pos))) {
            n = n * 10 + (s.charAt(pos++) - '0');
            if (n > 100_000_000) {
                throw new Unmangleable();
            }
        }
        return negative ? -n : n;
    }

    private char peekAt(int ahead) {
        return pos + ahead < s.length() ? s.charAt(pos + ahead) : 0;
    }

    private static boolean isLower(char c) {
        return c >= 'a' && c <= 'z';
    }

    /** An encoding with clone suffixes: full form prints them, the brief one does not. */
    static final class Clone extends Node {
        final Node encoding;
        final String suffixes;

        Clone(Node encoding, String suffixes) {
            this.encoding = encoding;
            this.suffixes = suffixes;
        }

        @Override
        void left(Printer p) {
            encoding.print(p);
            p.append(suffixes);
        }
    }
}
