package org.hyperprof.pipeline;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

import org.hyperprof.api.input.InputFileException;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.InputLimit;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The symbol resolvers bound now (by their identity, {@value SymbolResolver#FORMAT}) and the tables they loaded,
 * one cache shared by every source (the simulator's daemons, perf.data imports) and by the host
 * that loads scenarios. A table is read once per location, and where the location is a file once
 * per version of it (path, size, modification time; a file that reports size 0, as
 * {@code /proc/kallsyms} does, by its content), so a rewritten file is read again.
 *
 * <p>A failed load is not cached (each session reports it once). Several resolvers may be bound
 * for one format: the first serves, the others wait their turn. A resolver that leaves takes its
 * format's tables with it, so a fixed resolver that arrives later reads the files again.
 *
 * <p>Plain Java: {@code new SymbolTables()}, then {@link #addResolver} for each format.
 */
@Component(service = SymbolTables.class)
public final class SymbolTables {

    /** No resolver for an image's symbol format is bound. */
    public static final class NoResolverException extends Exception {
        private static final long serialVersionUID = 1L;

        public NoResolverException(String message) {
            super(message);
        }
    }

    /**
     * A loaded table, the file's bytes when they were read to key it, and what sources derived
     * from the table (perf's own names, PLT stubs), shared as the table is.
     */
    public static final class Entry {
        private static final Object NONE = new Object();

        private final SymbolTable table;
        private final byte[] content;
        private final ConcurrentHashMap<String, Object> derived = new ConcurrentHashMap<>();

        private Entry(SymbolTable table, byte[] content) {
            this.table = table;
            this.content = content;
        }

        public SymbolTable table() {
            return table;
        }

        /** The file's bytes when they were read to key it (a file that reports size 0), else null. */
        public byte[] content() {
            return content;
        }

        /** Something computed once from this table (null when {@code make} gives null), shared like it. */
        @SuppressWarnings("unchecked")
        public <T> T derived(String what, Supplier<T> make) {
            Object v = derived.get(what);
            if (v == null) {
                T made = make.get();
                v = made == null ? NONE : made;
                Object prev = derived.putIfAbsent(what, v);
                if (prev != null) {
                    v = prev;
                }
            }
            return v == NONE ? null : (T) v;
        }
    }

    /** A location's version: a file's size and modification time (or content checksum), else -1, -1. */
    private record Key(String format, String location, long size, long version) {
    }

    /**
     * What is read whole of a symbol file that reports size 0 (/proc/kallsyms: some 10 MB); no
     * procfs file holding symbols comes near it.
     */
    private static final InputLimit SIZE_ZERO_FILES = InputLimit.ofMegabytes("symbol file that reports size 0", 256,
            "no setting: a file of size 0 this large is no symbol table (is it a device?)");

    private final Map<String, List<SymbolResolver>> resolvers = new TreeMap<>();
    private final ConcurrentHashMap<Key, Entry> cache = new ConcurrentHashMap<>();
    /** Raised whenever the set of resolvers changes, so images that had none are retried. */
    private volatile int generation;

    /** Constructor for DS and for plain Java wiring. */
    public SymbolTables() {
    }

    @Reference(name = "resolver", service = SymbolResolver.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindResolver")
    void bindResolver(SymbolResolver resolver, Map<String, Object> properties) {
        addResolver(SymbolResolver.IDENTITY.of(properties, resolver), resolver);
    }

    void unbindResolver(SymbolResolver resolver, Map<String, Object> properties) {
        removeResolver(SymbolResolver.IDENTITY.of(properties, resolver), resolver);
    }

    /**
     * Makes a resolver read the images of {@code format} (normally {@code resolver.format()}); one
     * bound already for the format keeps serving it until it leaves.
     */
    public synchronized void addResolver(String format, SymbolResolver resolver) {
        if (resolver == null) {
            throw new NullPointerException("resolver");
        }
        if (format == null || format.isBlank()) {
            throw new IllegalArgumentException("a symbol resolver needs the format name images give (e.g. elf);"
                    + " got " + (format == null ? "null" : "a blank name"));
        }
        resolvers.computeIfAbsent(format, f -> new ArrayList<>()).add(resolver);
        generation++;
    }

    /** A resolver leaves, and with it the tables of its format. */
    public synchronized void removeResolver(String format, SymbolResolver resolver) {
        List<SymbolResolver> list = resolvers.get(format);
        if (list != null && list.remove(resolver)) {
            if (list.isEmpty()) {
                resolvers.remove(format);
            }
            cache.keySet().removeIf(k -> k.format().equals(format));
            generation++;
        }
    }

    /** The formats a resolver is bound for, in order. */
    public synchronized List<String> formats() {
        return List.copyOf(resolvers.keySet());
    }

    /** The resolver serving each format, formats in order. */
    public synchronized Map<String, SymbolResolver> serving() {
        Map<String, SymbolResolver> out = new LinkedHashMap<>();
        resolvers.forEach((format, list) -> out.put(format, list.get(0)));
        return out;
    }

    /** The resolver serving {@code format}, or null. */
    public synchronized SymbolResolver resolver(String format) {
        List<SymbolResolver> list = resolvers.get(format);
        return list == null || list.isEmpty() ? null : list.get(0);
    }

    public int generation() {
        return generation;
    }

    /**
     * The table of an image's symbol file: from the cache, or loaded once by the resolver of its
     * format.
     *
     * @throws SymbolFileException the file is malformed or unreadable (or the resolver failed on it)
     * @throws NoResolverException no resolver for the file's format is bound
     */
    public SymbolTable table(ImageSource source) throws SymbolFileException, NoResolverException {
        return entry(source.format(), source, null).table();
    }

    /**
     * As {@link #table(ImageSource)}, read by the resolver bound for {@code format} (a scenario's
     * {@code format=nm} read by the kallsyms resolver: the source is in the resolver's own format).
     */
    public SymbolTable table(String format, ImageSource source) throws SymbolFileException, NoResolverException {
        return entry(format, source, null).table();
    }

    /**
     * Whether {@link #entry} would take the table of this regular file from the cache (false for a
     * file whose size says nothing, such as /proc/kallsyms, or that cannot be looked at).
     */
    public boolean cached(String format, Path file) {
        try {
            long size = Files.size(file);
            return size > 0 && cache.containsKey(new Key(format, file.toString(), size,
                    Files.getLastModifiedTime(file).toMillis()));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The table of an image's symbol file with the file's bytes and what was derived from it: from
     * the cache, or loaded by the resolver bound for {@code format}.
     *
     * @param held the file's bytes when the caller has read them already (or null): they are keyed
     *             and handed to the resolver, so the file is read once
     * @throws SymbolFileException the file is malformed or unreadable (or the resolver failed on it)
     * @throws NoResolverException no resolver for the format is bound
     */
    public Entry entry(String format, ImageSource source, byte[] held) throws SymbolFileException,
            NoResolverException {
        String location = source.location();
        Path file = existing(location);
        long size = -1;
        long version = -1;
        byte[] content = null;
        if (file != null) {
            try {
                size = Files.size(file);
                version = Files.getLastModifiedTime(file).toMillis();
                if (size == 0) {
                    // /proc/kallsyms reports size 0 and changes with a reboot or a module load: key it by
                    // content, read through the source's own check (a device such as /dev/zero reports 0 too).
                    content = held != null ? held : SIZE_ZERO_FILES.readAll(source.content().open(), location);
                    size = content.length;
                    CRC32C crc = new CRC32C();
                    crc.update(content);
                    version = crc.getValue();
                }
            } catch (InputFileException e) {
                throw new SymbolFileException(location, -1, e.problem());
            } catch (IOException e) {
                throw new SymbolFileException(location, "cannot be read (" + e + "); check that it exists and is"
                        + " readable", e);
            }
        }
        Key key = new Key(format, location, size, version);
        Entry cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        SymbolResolver r = resolver(format);
        if (r == null) {
            List<String> have = formats();
            throw new NoResolverException("no symbol resolver for format '" + format + "' (needed for " + location
                    + ") is installed; installed formats: " + (have.isEmpty() ? "none" : String.join(", ", have))
                    + "; install a resolver bundle registering " + SymbolResolver.FORMAT + "=" + format);
        }
        Entry entry = new Entry(load(r, format, source, content != null ? content : held), content);
        Entry prev = cache.putIfAbsent(key, entry);
        return prev != null ? prev : entry;
    }

    private static SymbolTable load(SymbolResolver r, String format, ImageSource source, byte[] bytes)
            throws SymbolFileException {
        SymbolTable loaded;
        try {
            if (bytes == null) {
                loaded = r.load(source);
            } else {
                // Bytes in hand are parsed in place by a resolver that can (kallsyms), not read again.
                ImageSource inHand = new ImageSource(source.imageName(), source.format(), source.location(),
                        () -> new ByteArrayInputStream(bytes));
                loaded = r.load(inHand, ByteBuffer.wrap(bytes));
            }
        } catch (SymbolFileException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SymbolFileException(source.location(), "the " + format + " resolver failed on it (" + e
                    + "); report this to the resolver's author", e);
        }
        if (loaded == null) {
            throw new SymbolFileException(source.location(), -1, "the " + format
                    + " resolver returned no table; expected a SymbolTable or a SymbolFileException");
        }
        return loaded;
    }

    /** The file a location names, when it names one that exists (resources and other names: null). */
    private static Path existing(String location) {
        try {
            Path p = Path.of(location);
            return p.isAbsolute() && Files.exists(p) || Files.isRegularFile(p) ? p : null;
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
