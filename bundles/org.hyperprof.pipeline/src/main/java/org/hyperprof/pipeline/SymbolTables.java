package org.hyperprof.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;

/**
 * The symbol resolvers bound now (by {@code symbols.format}) and the tables they loaded, shared by
 * every daemon and every session: a symbol file is read once per location. A failed load is not
 * cached here (each session reports it once); a resolver that leaves takes its tables with it, so
 * a fixed resolver that arrives later reads the files again.
 */
public final class SymbolTables {

    /** No resolver for an image's symbol format is bound. */
    public static final class NoResolverException extends Exception {
        private static final long serialVersionUID = 1L;

        public NoResolverException(String message) {
            super(message);
        }
    }

    private record Key(String format, String location) {
    }

    private final Map<String, List<SymbolResolver>> resolvers = new TreeMap<>();
    private final ConcurrentHashMap<Key, SymbolTable> cache = new ConcurrentHashMap<>();
    /** Raised whenever the set of resolvers changes, so images that had none are retried. */
    private volatile int generation;

    public synchronized void addResolver(String format, SymbolResolver resolver) {
        resolvers.computeIfAbsent(format, f -> new ArrayList<>()).add(resolver);
        generation++;
    }

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

    public synchronized List<String> formats() {
        return List.copyOf(resolvers.keySet());
    }

    public int generation() {
        return generation;
    }

    private synchronized SymbolResolver resolverFor(String format) {
        List<SymbolResolver> list = resolvers.get(format);
        return list == null || list.isEmpty() ? null : list.get(0);
    }

    /**
     * The table of an image's symbol file: from the cache, or loaded once by the resolver of its
     * format.
     *
     * @throws SymbolFileException  the file is malformed or unreadable (or the resolver failed on it)
     * @throws NoResolverException  no resolver for the file's format is bound
     */
    public SymbolTable table(ImageSource source) throws SymbolFileException, NoResolverException {
        Key key = new Key(source.format(), source.location());
        SymbolTable t = cache.get(key);
        if (t != null) {
            return t;
        }
        SymbolResolver r = resolverFor(source.format());
        if (r == null) {
            List<String> have = formats();
            throw new NoResolverException("no symbol resolver for format '" + source.format() + "' (needed for "
                    + source.location() + ") is installed; installed formats: "
                    + (have.isEmpty() ? "none" : String.join(", ", have))
                    + "; install a resolver bundle registering symbols.format=" + source.format());
        }
        SymbolTable loaded;
        try {
            loaded = r.load(source);
        } catch (SymbolFileException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SymbolFileException(source.location(), "the " + source.format() + " resolver failed on it ("
                    + e + "); report this to the resolver's author", e);
        }
        if (loaded == null) {
            throw new SymbolFileException(source.location(), -1, "the " + source.format()
                    + " resolver returned no table; expected a SymbolTable or a SymbolFileException");
        }
        SymbolTable prev = cache.putIfAbsent(key, loaded);
        return prev != null ? prev : loaded;
    }
}
