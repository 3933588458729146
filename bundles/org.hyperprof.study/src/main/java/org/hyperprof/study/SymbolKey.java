package org.hyperprof.study;

import java.util.Comparator;

/** A symbol of a domain's profile or truth, by image name and symbol name ({@code (no symbols)} when none). */
record SymbolKey(String image, String symbol) implements Comparable<SymbolKey> {

    private static final Comparator<SymbolKey> ORDER = Comparator.comparing(SymbolKey::image)
            .thenComparing(SymbolKey::symbol);

    SymbolKey {
        image = image == null ? "(unknown)" : image;
        symbol = symbol == null ? StudyKeys.NO_SYMBOLS : symbol;
    }

    @Override
    public int compareTo(SymbolKey o) {
        return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
        return image + ":" + symbol;
    }
}
