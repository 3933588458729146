package org.hyperprof.symbols.kit;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

import org.hyperprof.api.input.InputFileException;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.input.InputLimit;

/** How a symbol resolver takes in an {@link ImageSource}, with the same rules and errors in every resolver. */
public final class ImageInput {
    private ImageInput() {
    }

    /**
     * Refuses a source of another format than {@code format}.
     *
     * @param source what the caller asks to load (not null)
     * @param format the resolver's format
     * @param reads  what that format is, for the message ({@code ELF images})
     * @throws SymbolFileException naming the file, its format and the resolver to ask instead
     */
    public static void checkFormat(ImageSource source, String format, String reads) throws SymbolFileException {
        Objects.requireNonNull(source, "source");
        if (!format.equals(source.format())) {
            throw new SymbolFileException(source.location(), -1, "has format '" + source.format()
                    + "', but this resolver reads '" + format + "' (" + reads + "); ask the resolver registered for '"
                    + source.format() + "'");
        }
    }

    /**
     * The whole content of {@code source}, at most {@code limit} of it.
     *
     * @throws SymbolFileException when the content cannot be opened, is above the ceiling (naming the
     *                             setting that raises it) or cannot be read
     */
    public static byte[] readWhole(ImageSource source, InputLimit limit) throws SymbolFileException {
        String location = source.location();
        try (InputStream in = source.content().open()) {
            if (in == null) {
                throw new SymbolFileException(location, -1,
                        "cannot be opened: no such file or resource; check the image's symbol file location");
            }
            return limit.readAll(in, location);
        } catch (IOException e) {
            throw unreadable(location, e);
        }
    }

    /** The error for a file that failed while it was read: the ceiling's own message, or what went wrong. */
    public static SymbolFileException unreadable(String location, IOException e) {
        if (e instanceof InputFileException input) {
            return new SymbolFileException(location, input.problem(), e);
        }
        return new SymbolFileException(location, "cannot be read (" + e + "); check that the file exists and is"
                + " readable", e);
    }
}
