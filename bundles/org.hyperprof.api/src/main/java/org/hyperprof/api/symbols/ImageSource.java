package org.hyperprof.api.symbols;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.Objects;

import org.hyperprof.api.input.InputFile;

/**
 * Where an image's symbols come from.
 *
 * @param imageName the image as reports name it ({@code xen-syms}, {@code vmlinux}, {@code e1000})
 * @param format    the symbol file format, matched against resolvers' {@value SymbolResolver#FORMAT}
 *                  property ({@code kallsyms} for System.map, /proc/kallsyms and nm text; {@code elf})
 * @param location  the file's path or resource name, for messages
 * @param content   opens the file's bytes; for a file a user named, {@link Content#file(Path)}
 */
public record ImageSource(String imageName, String format, String location, Content content) {

    /** The symbols of {@code file}, which is checked each time it is opened ({@link Content#file}). */
    public static ImageSource ofFile(String imageName, String format, Path file) {
        return new ImageSource(imageName, format, file.toString(), Content.file(file));
    }

    /** Opens an image's symbol file. */
    @FunctionalInterface
    public interface Content {
        /**
         * Opens the content as a stream, read to its end. Readers bound it with their
         * {@link org.hyperprof.api.input.InputLimit}.
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

        /**
         * The content of a file a user named: each time it is opened, what the path names is checked
         * first ({@link InputFile}), so a directory, FIFO, device or socket is refused with a
         * {@link org.hyperprof.api.input.NotAFileException} instead of being read (a FIFO would
         * block, {@code /dev/zero} never ends). A regular file offers a channel; one that reports
         * size 0 (a procfs file such as {@code /proc/kallsyms}) is read as a stream.
         */
        static Content file(Path path) {
            Objects.requireNonNull(path, "path");
            return new Content() {
                @Override
                public InputStream open() throws IOException {
                    return InputFile.open(path, "symbol file");
                }

                @Override
                public SeekableByteChannel openChannel() throws IOException {
                    return InputFile.openChannel(path, "symbol file");
                }

                @Override
                public String toString() {
                    return path.toString();
                }
            };
        }
    }
}
