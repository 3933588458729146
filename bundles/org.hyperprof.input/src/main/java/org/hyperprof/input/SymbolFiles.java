package org.hyperprof.input;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.Objects;

import org.hyperprof.api.symbols.ImageSource;

/** The symbols of an image in a file a user named, read by {@link InputFile}'s rules. */
public final class SymbolFiles {

    private SymbolFiles() {
    }

    /** The symbols of {@code file}, which is checked each time it is opened ({@link #content}). */
    public static ImageSource source(String imageName, String format, Path file) {
        return new ImageSource(imageName, format, file.toString(), content(file));
    }

    /**
     * The content of a file a user named: each time it is opened, what the path names is checked
     * first ({@link InputFile}), so a directory, FIFO, device or socket is refused with a
     * {@link org.hyperprof.api.input.NotAFileException} instead of being read (a FIFO would block,
     * {@code /dev/zero} never ends). A regular file offers a channel; one that reports size 0 (a
     * procfs file such as {@code /proc/kallsyms}) is read as a stream.
     */
    public static ImageSource.Content content(Path path) {
        Objects.requireNonNull(path, "path");
        return new ImageSource.Content() {
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
