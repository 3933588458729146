package org.hyperprof.pipeline;

import java.util.Arrays;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;

/**
 * A session's images, symbols and process names by id: the one dictionary every source fills (the
 * simulator's daemons, a perf.data import, folded stacks). Writers add entries one at a time
 * (additions are serialised here); any thread reads.
 *
 * <p>Publication: an entry is written into the arrays first, then the count is raised (a volatile
 * write). A reader that sees a count also sees every entry below it. When the arrays grow, the new
 * arrays hold all old entries and are published before the count, so whichever array a reader
 * picks up after reading the count is long enough.
 */
public final class Dictionary implements SessionDictionary {

    private static final class Images {
        final String[] names;
        final ImageKind[] kinds;
        final int[] domains;

        Images(int capacity) {
            names = new String[capacity];
            kinds = new ImageKind[capacity];
            domains = new int[capacity];
        }

        Images grown(int used) {
            Images g = new Images(names.length * 2);
            System.arraycopy(names, 0, g.names, 0, used);
            System.arraycopy(kinds, 0, g.kinds, 0, used);
            System.arraycopy(domains, 0, g.domains, 0, used);
            return g;
        }
    }

    private static final class Symbols {
        final String[] names;
        final int[] images;

        Symbols(int capacity) {
            names = new String[capacity];
            images = new int[capacity];
        }

        Symbols grown(int used) {
            Symbols g = new Symbols(names.length * 2);
            System.arraycopy(names, 0, g.names, 0, used);
            System.arraycopy(images, 0, g.images, 0, used);
            return g;
        }
    }

    private final Object writeLock = new Object();
    private volatile Images images = new Images(32);
    private volatile int imageCount;
    private volatile Symbols symbols = new Symbols(256);
    private volatile int symbolCount;
    /** Process names by (domain, pid): few, named rarely, read by reports at the end. */
    private final java.util.concurrent.ConcurrentHashMap<Long, String> processes =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Adds an image of domain {@code domid} and returns its id. */
    public int addImage(String name, ImageKind kind, int domid) {
        synchronized (writeLock) {
            int id = imageCount;
            Images im = images;
            if (id == im.names.length) {
                im = im.grown(id);
                images = im;
            }
            im.names[id] = name;
            im.kinds[id] = kind;
            im.domains[id] = domid;
            imageCount = id + 1;
            return id;
        }
    }

    /** Adds a symbol of image {@code image} and returns its id. */
    public int addSymbol(String name, int image) {
        synchronized (writeLock) {
            int id = symbolCount;
            Symbols sy = symbols;
            if (id == sy.names.length) {
                sy = sy.grown(id);
                symbols = sy;
            }
            sy.names[id] = name;
            sy.images[id] = image;
            symbolCount = id + 1;
            return id;
        }
    }

    /** Names process {@code pid} of domain {@code domid}; a later name (an exec) replaces it. */
    public void nameProcess(int domid, int pid, String name) {
        processes.put(processKey(domid, pid), name);
    }

    @Override
    public String processName(int domid, int pid) {
        return processes.get(processKey(domid, pid));
    }

    private static Long processKey(int domid, int pid) {
        return ((long) domid << 32) | (pid & 0xFFFFFFFFL);
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
            throw new IllegalArgumentException("image id " + image + " is not in this session's dictionary, which has "
                    + n + " images (ids 0.." + (n - 1) + ")");
        }
    }

    private void checkSymbol(int symbol) {
        int n = symbolCount;
        if (symbol < 0 || symbol >= n) {
            throw new IllegalArgumentException("symbol id " + symbol + " is not in this session's dictionary, which has "
                    + n + " symbols (ids 0.." + (n - 1) + "; " + NO_SYMBOL + " means no symbol)");
        }
    }

    @Override
    public String toString() {
        return "SessionDictionary[" + imageCount + " images, " + symbolCount + " symbols, first images "
                + Arrays.toString(Arrays.copyOf(images.names, Math.min(imageCount, 4))) + "]";
    }
}
