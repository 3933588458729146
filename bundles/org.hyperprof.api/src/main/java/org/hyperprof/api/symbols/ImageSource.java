package org.hyperprof.api.symbols;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SeekableByteChannel;

/**
 * Where an image's symbols come from.
 *
 * @param imageName the image as reports name it ({@code xen-syms}, {@code vmlinux}, {@code e1000})
 * @param format    the symbol file format, matched against resolvers' {@value SymbolResolver#FORMAT}
 *                  property ({@code kallsyms} for System.map, /proc/kallsyms and nm text; {@code elf})
 * @param location  the file's path or resource name, for messages
 * @param content   opens the file's bytes; for a file a user named, the {@code org.hyperprof.input}
 *                  bundle's {@code SymbolFiles.content(Path)}, which checks what the path names
 */
public record ImageSource(String imageName, String format, String location, Content content) {

    /** Opens an image's symbol file. */
    @FunctionalInterface
    public interface Content {
        /**
         * Opens the content as a stream, read to its end. Readers bound it with their ceiling.
         *
         * @throws org.hyperprof.api.input.NotAFileException when the content is a path that names
         *                                                    no regular file
         */
        InputStream open() throws IOException;

        /**
         * Opens the content for reading at any position, so that a reader that needs only parts of
         * it (the symbol tables of a 600 MB vmlinux with debug information) reads only those; null
         * when the content can only be read as a stream, which is the default (resources, procfs
         * files). The caller closes the channel.
         *
         * @throws org.hyperprof.api.input.NotAFileException when the content is a path that names
         *                                                    no regular file
         */
        default SeekableByteChannel openChannel() throws IOException {
            return null;
        }
    }
}
