package org.hyperprof.api.symbols;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.service.component.annotations.ComponentPropertyType;

/**
 * Loads symbol tables of one file format, registered with the {@value #FORMAT} property. That
 * property is the resolver's identity, stated once by its component with {@link Format}; whoever
 * binds resolvers reads it through {@link #IDENTITY}. The profiler caches and shares the tables it
 * gets.
 */
@ConsumerType
public interface SymbolResolver {
    /** Service property: the format name, e.g. {@code kallsyms} or {@code elf}. */
    String FORMAT = "symbols.format";

    /** A resolver is known by its {@value #FORMAT} property. */
    PluginIdentity IDENTITY = new PluginIdentity(FORMAT, "symbol resolver", "kallsyms");

    /**
     * The {@value #FORMAT} property, as a resolver's component states it once:
     * {@code @Component(service = SymbolResolver.class) @SymbolResolver.Format("elf")}.
     */
    @ComponentPropertyType
    @Retention(RUNTIME)
    @Target(TYPE)
    @interface Format {
        /** The property is {@code symbols.format}. */
        String PREFIX_ = "symbols.";

        /** The format name. */
        String value();
    }

    /** The format this resolver reads: the value of its {@value #FORMAT} property (its {@link Format}). */
    String format();

    /**
     * Reads the image's symbol file. The rules every resolver keeps with outside input: it reads
     * the content through {@link ImageSource.Content#openChannel()} when it needs only parts of it,
     * else through {@link ImageSource.Content#open()}; it reads at most its own ceiling (which a
     * setting of the resolver raises; the {@code org.hyperprof.input} bundle's {@code InputLimit}
     * keeps one) and keeps its memory within a constant times the bytes it read; a content that is
     * no regular file ({@link org.hyperprof.api.input.NotAFileException}) or passes the ceiling
     * ({@link org.hyperprof.api.input.InputTooLargeException}) is a {@link SymbolFileException}
     * naming the file and what to do.
     *
     * @throws SymbolFileException naming the file and the line or offset of the first problem;
     *                             nothing is half-loaded
     */
    SymbolTable load(ImageSource source) throws SymbolFileException;

    /**
     * Reads the image's symbol file from bytes the caller already holds (it read the file for
     * another purpose), from {@code content}'s position to its limit, with the same rules and errors
     * as {@link #load(ImageSource)}; the buffer's position and limit are left as they were. A resolver
     * that cannot parse from memory reads {@code source} instead, which is the default.
     *
     * @throws SymbolFileException naming the file and the line or offset of the first problem
     */
    default SymbolTable load(ImageSource source, java.nio.ByteBuffer content) throws SymbolFileException {
        return load(source);
    }
}
