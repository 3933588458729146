package org.hyperprof.source.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.hyperprof.api.input.InputFileException;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.InputFile;
import org.hyperprof.input.InputLimit;
import org.hyperprof.input.SymbolFiles;

/**
 * The symbol resolvers bound now, by their {@code symbols.format} ({@code elf} for user images and
 * vdso, {@code kallsyms} for kernels), and the tables they loaded. A table is read once per file
 * version (path, size and modification time) and shared by every import; a resolver that leaves
 * takes its tables with it.
 */
public final class SymbolResolvers {

    /** The ELF resolver's format. */
    public static final String ELF = "elf";
    /** The kallsyms resolver's format. */
    public static final String KALLSYMS = "kallsyms";

    /** No resolver for a format is bound. */
    static final class NoResolverException extends Exception {
        private static final long serialVersionUID = 1L;

        NoResolverException(String message) {
            super(message);
        }
    }

    private record Key(String format, String location, long size, long modified) {
    }

    /** A loaded table, the file's bytes when they had to be read to key it, and what was derived from it. */
    static final class Loaded {
        final SymbolTable table;
        private final byte[] content;
        private final Path file;
        private final ConcurrentHashMap<String, Object> derived = new ConcurrentHashMap<>();

        Loaded(SymbolTable table, byte[] content, Path file) {
            this.table = table;
            this.content = content;
            this.file = file;
        }

        /** The file's bytes (read now unless they were read to load the table), or null when unreadable. */
        byte[] content() {
            return content != null ? content : PerfNaming.readText(file);
        }

        /** Something computed once from this table and file (perf's names, PLT stubs), shared like the table. */
        @SuppressWarnings("unchecked")
        <T> T derived(String what, java.util.function.Supplier<T> make) {
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

        private static final Object NONE = new Object();
    }

    /**
     * What is read whole of a symbol file that reports size 0 (/proc/kallsyms: some 10 MB); no
     * procfs file holding symbols comes near it.
     */
    private static final InputLimit SIZE_ZERO_FILES = InputLimit.ofMegabytes("symbol file that reports size 0", 256,
            "no setting: a file of size 0 this large is no symbol table (is it a device?)");

    private final Map<String, List<SymbolResolver>> resolvers = new TreeMap<>();
    private final ConcurrentHashMap<Key, Loaded> cache = new ConcurrentHashMap<>();

    public synchronized void add(String format, SymbolResolver resolver) {
        resolvers.computeIfAbsent(format, f -> new ArrayList<>()).add(resolver);
    }

    public synchronized void remove(String format, SymbolResolver resolver) {
        List<SymbolResolver> list = resolvers.get(format);
        if (list != null && list.remove(resolver)) {
            if (list.isEmpty()) {
                resolvers.remove(format);
            }
            cache.keySet().removeIf(k -> k.format().equals(format));
        }
    }

    synchronized List<String> formats() {
        return List.copyOf(resolvers.keySet());
    }

    private synchronized SymbolResolver resolverFor(String format) {
        List<SymbolResolver> list = resolvers.get(format);
        return list == null || list.isEmpty() ? null : list.get(0);
    }

    /**
     * Whether {@link #load} would take the table of this regular file from the cache (false for a
     * file whose size says nothing, such as /proc/kallsyms, or that cannot be looked at).
     */
    boolean cached(String format, Path file) {
        try {
            long size = Files.size(file);
            return size > 0 && cache.containsKey(new Key(format, file.toString(), size,
                    Files.getLastModifiedTime(file).toMillis()));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The symbol table of a file, from the cache or loaded by the resolver of {@code format}.
     *
     * @param imageName the image the table is for
     * @throws SymbolFileException the file is malformed or unreadable
     * @throws NoResolverException no resolver for the format is bound
     */
    Loaded load(String imageName, String format, Path file) throws SymbolFileException, NoResolverException {
        return load(imageName, format, file, null);
    }

    /**
     * As {@link #load(String, String, Path)}, with the file's bytes when the caller has read it
     * already (or null): they are keyed and handed to the resolver, so the file is read once.
     */
    Loaded load(String imageName, String format, Path file, byte[] held) throws SymbolFileException,
            NoResolverException {
        long size;
        long modified;
        byte[] content = null;
        try {
            size = Files.size(file);
            modified = Files.getLastModifiedTime(file).toMillis();
            if (size == 0) {
                // /proc/kallsyms reports size 0 and changes with a reboot or a module load: key it by content.
                // Read through the one input check (a device such as /dev/zero also reports 0), bounded.
                content = held != null ? held : SIZE_ZERO_FILES.readAll(InputFile.open(file, "symbol file"),
                        file.toString());
                size = content.length;
                java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                crc.update(content);
                modified = crc.getValue();
            }
        } catch (InputFileException e) {
            throw new SymbolFileException(file.toString(), -1, e.problem());
        } catch (IOException e) {
            throw new SymbolFileException(file.toString(), "cannot be read (" + e + "); check that it exists and is"
                    + " readable", e);
        }
        Key key = new Key(format, file.toString(), size, modified);
        Loaded cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        SymbolResolver r = resolverFor(format);
        if (r == null) {
            List<String> have = formats();
            throw new NoResolverException("no symbol resolver for format '" + format + "' (needed for " + file
                    + ") is installed; installed formats: " + (have.isEmpty() ? "none" : String.join(", ", have))
                    + "; install org.hyperprof.symbols." + format);
        }
        SymbolTable loaded;
        try {
            byte[] bytes = content != null ? content : held;
            ImageSource.Content open = bytes != null ? () -> new java.io.ByteArrayInputStream(bytes)
                    : SymbolFiles.content(file);
            ImageSource source = new ImageSource(imageName, format, file.toString(), open);
            // Bytes in hand are parsed in place by a resolver that can (kallsyms), not read again.
            loaded = bytes != null ? r.load(source, java.nio.ByteBuffer.wrap(bytes)) : r.load(source);
        } catch (RuntimeException e) {
            throw new SymbolFileException(file.toString(), "the " + format + " resolver failed on it (" + e + ")", e);
        }
        if (loaded == null) {
            throw new SymbolFileException(file.toString(), -1, "the " + format + " resolver returned no table");
        }
        Loaded entry = new Loaded(loaded, content, file);
        Loaded prev = cache.putIfAbsent(key, entry);
        return prev != null ? prev : entry;
    }
}
