package org.hyperprof.demangle;

/** Where a demangled name is written, within a length budget (substitutions can nest exponentially). */
final class Printer {
    private final StringBuilder out = new StringBuilder(96);
    private final int budget;
    /** Nesting of the parts being printed: bounded, as a name read from a cycle would not be. */
    private int depth;
    /** Which element of a pack is being printed by a pack expansion, or -1 for all of them. */
    private int packIndex = -1;
    /**
     * After a {@code ", "} taken back (an empty pack), c++filt still takes the last character for a
     * space, so {@code A<B<C>, <empty>>} prints {@code >>}, not {@code > >}.
     */
    private boolean phantomSpace;

    Printer(int budget) {
        this.budget = budget;
    }

    Printer append(String s) {
        phantomSpace = false;
        out.append(s);
        if (out.length() > budget) {
            throw new Unmangleable();
        }
        return this;
    }

    Printer append(char c) {
        phantomSpace = false;
        out.append(c);
        return this;
    }

    int packIndex() {
        return packIndex;
    }

    void packIndex(int index) {
        packIndex = index;
    }

    void enter() {
        if (++depth > 400) {
            throw new Unmangleable();
        }
    }

    void leave() {
        depth--;
    }

    char last() {
        if (phantomSpace) {
            return ' ';
        }
        return out.length() == 0 ? 0 : out.charAt(out.length() - 1);
    }

    int length() {
        return out.length();
    }

    void truncate(int length) {
        boolean commaTakenBack = out.length() >= length + 2 && out.charAt(length) == ',' && out.charAt(length + 1) == ' ';
        out.setLength(length);
        phantomSpace = commaTakenBack;
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
