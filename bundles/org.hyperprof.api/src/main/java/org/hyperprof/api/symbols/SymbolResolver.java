package org.hyperprof.api.symbols;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Loads symbol tables of one file format, registered with the {@value #FORMAT} property. The
 * profiler caches and shares the tables it gets.
 */
@ProviderType
public interface SymbolResolver {
    /** Service property: the format name, e.g. {@code kallsyms} or {@code elf}. */
    String FORMAT = "symbols.format";

    /** The format this resolver reads. */
    String format();

    /**
     * Reads the image's symbol file.
     *
     * @throws SymbolFileException naming the file and the line or offset of the first problem;
     *                             nothing is half-loaded
     */
    SymbolTable load(ImageSource source) throws SymbolFileException;
}
