package org.hyperprof.pipeline;

import java.util.Arrays;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.demangle.Demangler;

/**
 * A session's images, symbols, address symbols and process names by id: the one dictionary every
 * source fills (the simulator's daemons, a perf.data import, folded stacks). Writers add entries one
 * at a time (additions are serialised here); any thread reads ({@link DictionaryTable} says how an
 * entry is published).
 */
public final class Dictionary implements SessionDictionary {

    private final Object writeLock = new Object();
    private final DictionaryTable images = new DictionaryTable(32, true, true, false);
    private final DictionaryTable symbols = new DictionaryTable(256, true, false, true);
    private final AddressSymbols addresses = new AddressSymbols();
    private final Demangler demangler = new Demangler();
    /** Demangled names by symbol id, filled as reports ask (see {@link #demangled}). */
    private volatile String[] shownNames = new String[0];
    private volatile String[] briefNames = new String[0];
    private volatile boolean demangling = true;
    /** Process names by (domain, pid): few, named rarely, read by reports at the end. */
    private final java.util.concurrent.ConcurrentHashMap<Long, String> processes =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Comms (perf's {@code struct comm}): by comm id its name and its thread (a number the source
     * gives each thread it tells apart, a reused tid being a new thread), and by thread its latest
     * comm. Few (one per COMM, FORK and thread met), written by the source, read by reports.
     */
    private final Object commLock = new Object();
    private String[] commNames = new String[64];
    private int[] commThreads = new int[64];
    private int commCount;
    private int[] threadLatest = new int[64];

    /**
     * A new comm of thread {@code thread} (a number the source gives each thread it tells apart),
     * named {@code name}; the thread's latest from now on.
     *
     * @return its comm id, for {@link org.hyperprof.api.sample.SampleBatch#comm}
     */
    public int addComm(String name, int thread) {
        if (thread < 0) {
            throw new IllegalArgumentException("thread number " + thread + " must be 0 or more");
        }
        synchronized (commLock) {
            int id = commCount;
            if (id == commNames.length) {
                commNames = Arrays.copyOf(commNames, id * 2);
                commThreads = Arrays.copyOf(commThreads, id * 2);
            }
            if (thread >= threadLatest.length) {
                threadLatest = Arrays.copyOf(threadLatest, Math.max(thread + 1, threadLatest.length * 2));
            }
            commNames[id] = name;
            commThreads[id] = thread;
            threadLatest[thread] = id;
            commCount = id + 1;
            return id;
        }
    }

    /**
     * Renames comm {@code comm} in place: perf's first name of a thread met before it was named
     * replaces its {@code :<tid>} name, for the samples before too (comm__override).
     */
    public void renameComm(int comm, String name) {
        synchronized (commLock) {
            if (comm < 0 || comm >= commCount) {
                throw new IllegalArgumentException("no comm id " + comm + " (" + commCount + " comms)");
            }
            commNames[comm] = name;
        }
    }

    @Override
    public String commName(int comm) {
        synchronized (commLock) {
            return comm >= 0 && comm < commCount ? commNames[comm] : null;
        }
    }

    @Override
    public String threadName(int comm) {
        synchronized (commLock) {
            return comm >= 0 && comm < commCount ? commNames[threadLatest[commThreads[comm]]] : null;
        }
    }

    /** Comms named so far. */
    @Override
    public int commCount() {
        synchronized (commLock) {
            return commCount;
        }
    }

    @Override
    public int commThread(int comm) {
        synchronized (commLock) {
            return comm >= 0 && comm < commCount ? commThreads[comm] : -1;
        }
    }

    /** Mappings in the order added; read through a published snapshot of the array and its count. */
    private final Object mappingLock = new Object();
    private volatile ImageMapping[] mappings = new ImageMapping[0];
    private volatile int mappingCount;
    /** Build-ids by image id (null where none was read). */
    private volatile String[] buildIds = new String[0];
    /** Files of images whose name is not their file, by image id (null for the others). */
    private volatile String[] imageFiles = new String[0];

    /**
     * Image {@code image} lay at {@code start} to {@code limit} of process {@code pid} of domain
     * {@code domid} (-1: every process), from file offset {@code fileOffset}; see {@link ImageMapping}.
     *
     * @return the mapping's index
     */
    public int addMapping(int domid, int pid, int image, long start, long limit, long fileOffset) {
        image(image);
        ImageMapping m = new ImageMapping(domid, pid, image, start, limit, fileOffset);
        synchronized (mappingLock) {
            int n = mappingCount;
            ImageMapping[] a = mappings;
            if (n == a.length) {
                a = Arrays.copyOf(a, Math.max(16, n * 2));
            }
            a[n] = m;
            mappings = a;
            mappingCount = n + 1;
            return n;
        }
    }

    @Override
    public int mappingCount() {
        return mappingCount;
    }

    @Override
    public ImageMapping mapping(int index) {
        int n = mappingCount;
        if (index < 0 || index >= n) {
            throw new IndexOutOfBoundsException("mapping " + index + " of a dictionary with " + n + " mappings");
        }
        return mappings[index];
    }

    /** Image {@code image}'s build-id, in hex (lower-cased here). */
    public void buildId(int image, String hex) {
        image(image);
        synchronized (mappingLock) {
            buildIds = withImageValue(buildIds, image,
                    hex == null || hex.isEmpty() ? null : hex.toLowerCase(java.util.Locale.ROOT));
        }
    }

    @Override
    public String imageBuildId(int image) {
        return imageValue(buildIds, image);
    }

    /** Image {@code image}'s code is in the file {@code path} (see {@link SessionDictionary#imageFile}). */
    public void imageFile(int image, String path) {
        image(image);
        synchronized (mappingLock) {
            imageFiles = withImageValue(imageFiles, image, path);
        }
    }

    @Override
    public String imageFile(int image) {
        return imageValue(imageFiles, image);
    }

    /**
     * A per-image column ({@link #buildIds}, {@link #imageFiles}) with {@code image}'s value set, grown
     * when the image is beyond it; called under {@link #mappingLock}, the caller publishes the result.
     */
    private static String[] withImageValue(String[] column, int image, String value) {
        String[] a = column;
        if (image >= a.length) {
            a = Arrays.copyOf(a, Math.max(image + 1, a.length * 2));
        }
        a[image] = value;
        return a;
    }

    /** An image's value in a per-image column, null when it was never set. */
    private static String imageValue(String[] column, int image) {
        return image >= 0 && image < column.length ? column[image] : null;
    }

    /** Adds an image of domain {@code domid} and returns its id. */
    public int addImage(String name, ImageKind kind, int domid) {
        synchronized (writeLock) {
            return images.add(name, domid, kind, 0);
        }
    }

    /** Adds a symbol of image {@code image} and returns its id. */
    public int addSymbol(String name, int image) {
        return addSymbol(name, image, SampleBatch.UNKNOWN);
    }

    /**
     * Adds a symbol of image {@code image} that starts at {@code start} (see {@link #symbolStart};
     * {@link SampleBatch#UNKNOWN} when the source cannot tell) and returns its id.
     */
    public int addSymbol(String name, int image, long start) {
        synchronized (writeLock) {
            return symbols.add(name, image, null, start);
        }
    }

    @Override
    public long symbolStart(int symbol) {
        return symbol >= 0 && symbol < symbols.count() ? symbols.entries().addresses[symbol] : SampleBatch.UNKNOWN;
    }

    /**
     * The address symbol of {@code address} in {@code image} (an address no symbol covers, keyed as
     * the source keys it), named on first use; see {@link SessionDictionary}'s address symbols.
     */
    public int address(int image, long address) {
        synchronized (writeLock) {
            return SessionDictionary.addressSymbolOf(addresses.intern(image, address));
        }
    }

    /**
     * The address symbols of {@code n} pairs ({@code images[k]}, {@code addresses[k]}) into
     * {@code ids}, numbered as {@link #address} called for each in turn numbers them: for a source
     * naming many at once (one lock, and the table grown once for them all).
     */
    public void addresses(int[] images, long[] addresses, int n, int[] ids) {
        synchronized (writeLock) {
            this.addresses.reserve(n);
            for (int k = 0; k < n; k++) {
                ids[k] = SessionDictionary.addressSymbolOf(this.addresses.intern(images[k], addresses[k]));
            }
        }
    }

    @Override
    public int addressSymbol(int image, long address) {
        int id = addresses.find(image, address);
        return id < 0 ? NO_SYMBOL : SessionDictionary.addressSymbolOf(id);
    }

    @Override
    public int addressCount() {
        return addresses.count();
    }

    @Override
    public long symbolAddress(int symbol) {
        return addresses.address(SessionDictionary.addressIndex(symbol));
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
        return images.count();
    }

    @Override
    public String imageName(int image) {
        return image(image).names[image];
    }

    @Override
    public ImageKind imageKind(int image) {
        return image(image).kinds[image];
    }

    @Override
    public int imageDomain(int image) {
        return image(image).owners[image];
    }

    @Override
    public int symbolCount() {
        return symbols.count();
    }

    @Override
    public String symbolName(int symbol) {
        if (SessionDictionary.isAddress(symbol)) {
            return addressText(symbolAddress(symbol));
        }
        return symbol == NO_SYMBOL ? "(no symbols)" : symbol(symbol).names[symbol];
    }

    /** How perf prints an address that no symbol covers: 16 hex digits, 0x before all but zero. */
    public static String addressText(long address) {
        return address == 0 ? "0000000000000000" : String.format("0x%016x", address);
    }

    /** Whether reports show demangled names (the default) or the names as the source gave them. */
    public void demangle(boolean on) {
        demangling = on;
    }

    @Override
    public boolean demangles() {
        return demangling;
    }

    @Override
    public String shownName(int symbol) {
        return demangled(symbol, false);
    }

    @Override
    public String briefName(int symbol) {
        return demangled(symbol, true);
    }

    /**
     * A symbol's demangled name, made on first use and kept: reports ask for the same few thousand
     * names many times, and a recording's symbols are mostly never shown. The caches grow under the
     * write lock; a reader may race another to fill a slot, and both put equal strings there.
     */
    private String demangled(int symbol, boolean brief) {
        if (symbol < 0 || !demangling) {
            return symbolName(symbol);
        }
        String[] cache = brief ? briefNames : shownNames;
        if (symbol < cache.length) {
            String known = cache[symbol];
            if (known != null) {
                return known;
            }
        }
        String raw = symbolName(symbol);
        String name = brief ? demangler.brief(raw) : demangler.full(raw);
        synchronized (writeLock) {
            cache = brief ? briefNames : shownNames;
            if (symbol >= cache.length) {
                cache = Arrays.copyOf(cache, Math.max(symbol + 1, 2 * cache.length));
                if (brief) {
                    briefNames = cache;
                } else {
                    shownNames = cache;
                }
            }
            cache[symbol] = name;
        }
        return name;
    }

    @Override
    public int symbolImage(int symbol) {
        if (SessionDictionary.isAddress(symbol)) {
            return addresses.image(SessionDictionary.addressIndex(symbol));
        }
        return symbol(symbol).owners[symbol];
    }

    /** The image entries, once {@code image} is known to be among them (read after the count). */
    private DictionaryTable.Entries image(int image) {
        int n = images.count();
        if (image < 0 || image >= n) {
            throw new IllegalArgumentException("image id " + image + " is not in this session's dictionary, which has "
                    + n + " images (ids 0.." + (n - 1) + ")");
        }
        return images.entries();
    }

    /** The symbol entries, once {@code symbol} is known to be among them (read after the count). */
    private DictionaryTable.Entries symbol(int symbol) {
        int n = symbols.count();
        if (symbol < 0 || symbol >= n) {
            throw new IllegalArgumentException("symbol id " + symbol + " is not in this session's dictionary, which has "
                    + n + " symbols (ids 0.." + (n - 1) + "; " + NO_SYMBOL + " means no symbol)");
        }
        return symbols.entries();
    }

    @Override
    public String toString() {
        int n = images.count();
        return "SessionDictionary[" + n + " images, " + symbols.count() + " symbols, first images "
                + Arrays.toString(Arrays.copyOf(images.entries().names, Math.min(n, 4))) + "]";
    }
}
