package org.hyperprof.demangle;

import java.util.List;

/**
 * One part of a demangled C++ name. Types print in two halves around what they declare, as C
 * declarators do: {@code void (*f())(int)} is the left half {@code void (*}, the name, the right half
 * {@code )(int)}.
 */
abstract class Node {

    abstract void left(Printer p);

    void right(Printer p) {
        // Most parts have nothing after the declared name.
    }

    /** What this part stands for while printing: a pack's current element, a reference's target. */
    Node resolve(Printer p) {
        return this;
    }

    /** Whether the right half is not empty: functions and arrays, and what points to them. */
    boolean hasRight() {
        return false;
    }

    final void print(Printer p) {
        p.enter();
        left(p);
        right(p);
        p.leave();
    }

    /** The unqualified name a constructor or destructor in this scope takes. */
    String ctorName() {
        throw new Unmangleable();
    }

    /** Whether a function of this name has its return type mangled (a template, not a ctor/dtor/conversion). */
    boolean isTemplate() {
        return false;
    }

    boolean isCtorDtorOrConversion() {
        return false;
    }

    /** Plain text: a source name, a builtin type, an operator, a literal. */
    static final class Text extends Node {
        final String text;

        Text(String text) {
            this.text = text;
        }

        @Override
        void left(Printer p) {
            p.append(text);
        }

        @Override
        String ctorName() {
            return text;
        }
    }

    /** A standard abbreviation such as {@code Ss}: its full expansion and its constructors' name. */
    static final class StdAbbreviation extends Node {
        final String expansion;
        final String ctor;

        StdAbbreviation(String expansion, String ctor) {
            this.expansion = expansion;
            this.ctor = ctor;
        }

        @Override
        void left(Printer p) {
            p.append(expansion);
        }

        @Override
        String ctorName() {
            return ctor;
        }
    }

    /** A constructor, destructor or conversion operator: a function without a mangled return type. */
    static final class Special extends Node {
        final Node name;

        Special(Node name) {
            this.name = name;
        }

        @Override
        void left(Printer p) {
            name.print(p);
        }

        @Override
        boolean isCtorDtorOrConversion() {
            return true;
        }
    }

    /** {@code scope::name}. */
    static final class Nested extends Node {
        final Node scope;
        final Node name;

        Nested(Node scope, Node name) {
            this.scope = scope;
            this.name = name;
        }

        @Override
        void left(Printer p) {
            scope.print(p);
            p.append("::");
            name.print(p);
        }

        @Override
        String ctorName() {
            return name.ctorName();
        }

        @Override
        boolean isTemplate() {
            return name.isTemplate();
        }

        @Override
        boolean isCtorDtorOrConversion() {
            return name.isCtorDtorOrConversion();
        }
    }

    /** {@code name<args>}. */
    static final class Template extends Node {
        final Node name;
        final List<Node> args;

        Template(Node name, List<Node> args) {
            this.name = name;
            this.args = args;
        }

        @Override
        void left(Printer p) {
            name.print(p);
            if (p.last() == '<') {
                p.append(' '); // operator< <int>
            }
            p.append('<');
            printList(p, args);
            if (p.last() == '>') {
                p.append(' '); // C++03 spelling, as c++filt prints it
            }
            p.append('>');
        }

        @Override
        String ctorName() {
            return name.ctorName();
        }

        @Override
        boolean isTemplate() {
            return true;
        }

        @Override
        boolean isCtorDtorOrConversion() {
            return name.isCtorDtorOrConversion();
        }
    }

    /** A name with ABI tags: {@code name[abi:cxx11]}. */
    static final class AbiTagged extends Node {
        final Node name;
        final String tag;

        AbiTagged(Node name, String tag) {
            this.name = name;
            this.tag = tag;
        }

        @Override
        void left(Printer p) {
            name.print(p);
            p.append("[abi:").append(tag).append(']');
        }

        @Override
        String ctorName() {
            return name.ctorName();
        }

        @Override
        boolean isCtorDtorOrConversion() {
            return name.isCtorDtorOrConversion();
        }
    }

    /** A template argument pack: its elements separated by commas. */
    static final class Pack extends Node {
        final List<Node> elements;

        Pack(List<Node> elements) {
            this.elements = elements;
        }

        @Override
        Node resolve(Printer p) {
            int index = p.packIndex();
            return index >= 0 && index < elements.size() ? elements.get(index).resolve(p) : this;
        }

        @Override
        void left(Printer p) {
            int index = p.packIndex();
            if (index >= 0 && index < elements.size()) {
                elements.get(index).print(p); // one element of a pack expansion
            } else {
                printList(p, elements);
            }
        }
    }

    /** {@code pattern...}: the pattern once for each element of the pack inside it. */
    static final class PackExpansion extends Node {
        final Node pattern;

        PackExpansion(Node pattern) {
            this.pattern = pattern;
        }

        @Override
        void left(Printer p) {
            Pack pack = packIn(pattern, 0);
            if (pack == null || pack == pattern) {
                pattern.print(p);
                return;
            }
            int outer = p.packIndex();
            for (int i = 0; i < pack.elements.size(); i++) {
                if (i > 0) {
                    p.append(", ");
                }
                p.packIndex(i);
                pattern.print(p);
            }
            p.packIndex(outer);
        }

        private static Pack packIn(Node node, int depth) {
            if (depth > 50) {
                return null;
            }
            if (node instanceof Pack pack) {
                return pack;
            }
            if (node instanceof Pointer pointer) {
                return packIn(pointer.pointee, depth + 1);
            }
            if (node instanceof Qualified qualified) {
                return packIn(qualified.type, depth + 1);
            }
            if (node instanceof Template template) {
                for (Node arg : template.args) {
                    Pack pack = packIn(arg, depth + 1);
                    if (pack != null) {
                        return pack;
                    }
                }
            }
            return null;
        }
    }

    /** {@code type const}, {@code type volatile}, {@code type restrict}: c++filt writes them after. */
    static final class Qualified extends Node {
        final Node type;
        final String qualifiers;

        Qualified(Node type, String qualifiers) {
            this.type = type;
            this.qualifiers = qualifiers;
        }

        @Override
        void left(Printer p) {
            type.left(p);
            p.append(qualifiers);
        }

        @Override
        void right(Printer p) {
            type.right(p);
        }

        @Override
        boolean hasRight() {
            return type.hasRight();
        }
    }

    /** Pointer ({@code *}), lvalue ({@code &}) or rvalue ({@code &&}) reference. */
    static final class Pointer extends Node {
        final Node pointee;
        final String symbol;

        Pointer(Node pointee, String symbol) {
            this.pointee = pointee;
            this.symbol = symbol;
        }

        private boolean isReference() {
            return !symbol.equals("*");
        }

        /**
         * A reference to a reference collapses as C++ does ({@code T& &&} is {@code T&}); the inner one is
         * seen only when printing, through template arguments and pack elements.
         */
        private Pointer collapsed(Printer p) {
            if (!isReference()) {
                return this;
            }
            Node inner = pointee.resolve(p);
            if (inner instanceof Pointer q && q.isReference()) {
                String both = symbol.equals("&") || q.symbol.equals("&") ? "&" : "&&";
                return new Pointer(q.pointee, both).collapsed(p);
            }
            return this;
        }

        @Override
        void left(Printer p) {
            Pointer self = collapsed(p);
            Node target = self.pointee;
            target.left(p);
            if (target.resolve(p) instanceof Array) {
                p.append(" (");
            } else if (target.resolve(p) instanceof Function) {
                p.append('(');
            }
            p.append(self.symbol);
        }

        @Override
        void right(Printer p) {
            Node target = collapsed(p).pointee;
            Node shown = target.resolve(p);
            if (shown instanceof Function || shown instanceof Array) {
                p.append(')');
            }
            target.right(p);
        }

        @Override
        boolean hasRight() {
            return pointee.hasRight();
        }
    }

    /** Pointer to member: {@code int A::*}, {@code void (A::*)(int)}. */
    static final class MemberPointer extends Node {
        final Node owner;
        final Node member;

        MemberPointer(Node owner, Node member) {
            this.owner = owner;
            this.member = member;
        }

        @Override
        void left(Printer p) {
            member.left(p);
            if (member instanceof Function) {
                p.append('(');
            } else if (member instanceof Array) {
                p.append(" (");
            } else {
                p.append(' ');
            }
            owner.print(p);
            p.append("::*");
        }

        @Override
        void right(Printer p) {
            if (member instanceof Function || member instanceof Array) {
                p.append(')');
            }
            member.right(p);
        }

        @Override
        boolean hasRight() {
            return member.hasRight();
        }
    }

    /** Array type: {@code int [3]}. */
    static final class Array extends Node {
        final Node element;
        final Node dimension;

        Array(Node element, Node dimension) {
            this.element = element;
            this.dimension = dimension;
        }

        @Override
        void left(Printer p) {
            element.left(p);
        }

        @Override
        void right(Printer p) {
            p.append(" [");
            dimension.print(p);
            p.append(']');
            element.right(p);
        }

        @Override
        boolean hasRight() {
            return true;
        }
    }

    /** A function type: {@code void (int) const}. */
    static final class Function extends Node {
        final Node result;
        final List<Node> parameters;
        final String qualifiers;

        Function(Node result, List<Node> parameters, String qualifiers) {
            this.result = result;
            this.parameters = parameters;
            this.qualifiers = qualifiers;
        }

        Function with(String more) {
            return new Function(result, parameters, qualifiers + more);
        }

        @Override
        void left(Printer p) {
            result.left(p);
            if (!result.hasRight()) {
                p.append(' ');
            }
        }

        @Override
        void right(Printer p) {
            printParameters(p, parameters);
            p.append(qualifiers);
            result.right(p);
        }

        @Override
        boolean hasRight() {
            return true;
        }
    }

    /** A function symbol: return type (templates only), name, parameters, qualifiers of {@code this}. */
    static final class Encoding extends Node {
        final Node name;
        final Node result;
        final List<Node> parameters;
        final String qualifiers;

        Encoding(Node name, Node result, List<Node> parameters, String qualifiers) {
            this.name = name;
            this.result = result;
            this.parameters = parameters;
            this.qualifiers = qualifiers;
        }

        @Override
        void left(Printer p) {
            if (result != null) {
                result.left(p);
                if (!result.hasRight()) {
                    p.append(' ');
                }
            }
            name.print(p);
            if (parameters != null) {
                printParameters(p, parameters);
            }
            p.append(qualifiers);
            if (result != null) {
                result.right(p);
            }
        }
    }

    /** A name local to a function: {@code f()::x}. */
    static final class Local extends Node {
        final Node function;
        final Node entity;

        Local(Node function, Node entity) {
            this.function = function;
            this.entity = entity;
        }

        @Override
        void left(Printer p) {
            function.print(p);
            p.append("::");
            entity.print(p);
        }

        @Override
        boolean isTemplate() {
            return entity.isTemplate();
        }

        @Override
        boolean isCtorDtorOrConversion() {
            return entity.isCtorDtorOrConversion();
        }
    }

    /** A lambda's closure type: {@code {lambda(int)#1}}. */
    static final class Closure extends Node {
        final List<Node> parameters;
        final int number;

        Closure(List<Node> parameters, int number) {
            this.parameters = parameters;
            this.number = number;
        }

        @Override
        void left(Printer p) {
            p.append("{lambda");
            printParameters(p, parameters);
            p.append('#').append(Integer.toString(number)).append('}');
        }
    }

    /** A template parameter whose argument comes later in the name (a conversion operator's type). */
    static final class ForwardReference extends Node {
        final int index;
        Node target;
        /** Set while this reference is being followed: a reference that reaches itself is refused. */
        private boolean following;

        ForwardReference(int index) {
            this.index = index;
        }

        private Node follow() {
            if (target == null || following) {
                throw new Unmangleable();
            }
            following = true;
            return target;
        }

        @Override
        void left(Printer p) {
            follow().left(p);
            following = false;
        }

        @Override
        void right(Printer p) {
            follow().right(p);
            following = false;
        }

        @Override
        Node resolve(Printer p) {
            Node resolved = follow().resolve(p);
            following = false;
            return resolved;
        }

        @Override
        boolean hasRight() {
            boolean result = follow().hasRight();
            following = false;
            return result;
        }
    }

    /** {@code prefix text} then a name: {@code vtable for A}, {@code non-virtual thunk to A::f()}. */
    static final class Prefixed extends Node {
        final String prefix;
        final Node name;

        Prefixed(String prefix, Node name) {
            this.prefix = prefix;
            this.name = name;
        }

        @Override
        void left(Printer p) {
            p.append(prefix);
            name.print(p);
        }
    }

    /** {@code construction vtable for B-in-A}. */
    static final class ConstructionVtable extends Node {
        final Node part;
        final Node whole;

        ConstructionVtable(Node whole, Node part) {
            this.whole = whole;
            this.part = part;
        }

        @Override
        void left(Printer p) {
            p.append("construction vtable for ");
            part.print(p);
            p.append("-in-");
            whole.print(p);
        }
    }

    /** A literal of a type without a suffix: {@code (char)97}. */
    static final class Cast extends Node {
        final Node type;
        final String value;

        Cast(Node type, String value) {
            this.type = type;
            this.value = value;
        }

        @Override
        void left(Printer p) {
            p.append('(');
            type.print(p);
            p.append(')').append(value);
        }
    }

    /** A prefix operator applied to an operand: {@code &(f(int))}, {@code &A::f}. */
    static final class Unary extends Node {
        final String operator;
        final Node operand;

        Unary(String operator, Node operand) {
            this.operator = operator;
            this.operand = operand;
        }

        @Override
        void left(Printer p) {
            p.append(operator);
            Node shown = operand;
            if (operator.equals("&") && operand instanceof Encoding e && e.name instanceof Nested) {
                shown = e.name; // the address of a member function: its name, no parameters
            }
            boolean simple = shown instanceof Text || shown instanceof Nested || shown instanceof Parameter;
            if (!simple) {
                p.append('(');
            }
            shown.print(p);
            if (!simple) {
                p.append(')');
            }
        }
    }

    /** A function parameter in an expression: {@code {parm#1}}. */
    static final class Parameter extends Node {
        final int number;

        Parameter(int number) {
            this.number = number;
        }

        @Override
        void left(Printer p) {
            p.append("{parm#").append(Integer.toString(number)).append('}');
        }
    }

    static void printList(Printer p, List<Node> nodes) {
        boolean first = true;
        for (Node node : nodes) {
            int before = p.length();
            if (!first) {
                p.append(", ");
            }
            int mark = p.length();
            node.print(p);
            if (p.length() == mark && (node instanceof Pack || node instanceof PackExpansion)) {
                // An empty pack leaves no element, and so no comma.
                p.truncate(before);
                continue;
            }
            first = false;
        }
    }

    static void printParameters(Printer p, List<Node> parameters) {
        p.append('(');
        if (!(parameters.size() == 1 && parameters.get(0) instanceof Text t && t.text.equals("void"))) {
            printList(p, parameters);
        }
        p.append(')');
    }
}
