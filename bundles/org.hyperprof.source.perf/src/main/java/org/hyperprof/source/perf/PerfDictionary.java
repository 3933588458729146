package org.hyperprof.source.perf;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;

/**
 * The recording's images (perf's dsos, per domain) and the symbols samples hit, by the ids batches
 * carry. One writer (the importing thread) adds; any thread reads. An entry is written before the
 * count is raised (a volatile write), and grown arrays are published before the count, so a reader
 * that sees a count sees every entry below it.
 */
final class PerfDictionary implements SessionDictionary {

    private static final class Images {
        final String[] names;
        final ImageKind[] kinds;
        final int[] domains;

        Images(int capacity) {
            names = new String[capacity];
            kinds = new ImageKind[capacity];
            domains = new int[capacity];
        }
    }

    private static final class Symbols {
        final String[] names;
        final int[] images;

        Symbols(int capacity) {
            names = new String[capacity];
            images = new int[capacity];
        }
    }

    private volatile Images images = new Images(64);
    private volatile int imageCount;
    private volatile Symbols symbols = new Symbols(1024);
    private volatile int symbolCount;

    synchronized int addImage(String name, ImageKind kind, int domain) {
        int id = imageCount;
        Images im = images;
        if (id == im.names.length) {
            Images g = new Images(id * 2);
            System.arraycopy(im.names, 0, g.names, 0, id);
            System.arraycopy(im.kinds, 0, g.kinds, 0, id);
            System.arraycopy(im.domains, 0, g.domains, 0, id);
            images = g;
            im = g;
        }
        im.names[id] = name;
        im.kinds[id] = kind;
        im.domains[id] = domain;
        imageCount = id + 1;
        return id;
    }

    synchronized int addSymbol(String name, int image) {
        int id = symbolCount;
        Symbols sy = symbols;
        if (id == sy.names.length) {
            Symbols g = new Symbols(id * 2);
            System.arraycopy(sy.names, 0, g.names, 0, id);
            System.arraycopy(sy.images, 0, g.images, 0, id);
            symbols = g;
            sy = g;
        }
        sy.names[id] = name;
        sy.images[id] = image;
        symbolCount = id + 1;
        return id;
    }

    @Override
    public int imageCount() {
        return imageCount;
    }

    @Override
    public String imageName(int image) {
        checkImage(image);
        return images.names[image];
    }

    @Override
    public ImageKind imageKind(int image) {
        checkImage(image);
        return images.kinds[image];
    }

    @Override
    public int imageDomain(int image) {
        checkImage(image);
        return images.domains[image];
    }

    @Override
    public int symbolCount() {
        return symbolCount;
    }

    @Override
    public String symbolName(int symbol) {
        if (symbol == NO_SYMBOL) {
            return "(no symbols)";
        }
        checkSymbol(symbol);
        return symbols.names[symbol];
    }

    @Override
    public int symbolImage(int symbol) {
        checkSymbol(symbol);
        return symbols.images[symbol];
    }

    private void checkImage(int image) {
        int n = imageCount;
        if (image < 0 || image >= n) {
            throw new IllegalArgumentException("image id " + image + " is not in this recording's dictionary, which has "
                    + n + " images (ids 0.." + (n - 1) + ")");
        }
    }

    private void checkSymbol(int symbol) {
        int n = symbolCount;
        if (symbol < 0 || symbol >= n) {
            throw new IllegalArgumentException("symbol id " + symbol + " is not in this recording's dictionary, which"
                    + " has " + n + " symbols (ids 0.." + (n - 1) + "; " + NO_SYMBOL + " means no symbol)");
        }
    }

    @Override
    public String toString() {
        return "PerfDictionary[" + imageCount + " images, " + symbolCount + " symbols]";
    }
}
