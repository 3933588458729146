package org.hyperprof.api.symbols;

import java.io.IOException;
import java.io.InputStream;

/**
 * Where an image's symbols come from.
 *
 * @param imageName the image as reports name it ({@code xen-syms}, {@code vmlinux}, {@code e1000})
 * @param format    the symbol file format, matched against resolvers' {@value SymbolResolver#FORMAT}
 *                  property ({@code kallsyms} for System.map, /proc/kallsyms and nm text; {@code elf})
 * @param location  the file's path or resource name, for messages
 * @param content   opens the file's bytes
 */
public record ImageSource(String imageName, String format, String location, Content content) {

    /** Opens an image's symbol file. */
    @FunctionalInterface
    public interface Content {
        InputStream open() throws IOException;
    }
}
