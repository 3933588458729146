package org.hyperprof.symbols.kallsyms;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code kallsyms} symbol resolver: reads System.map, {@code nm} output and /proc/kallsyms text
 * into an image's function table. The rules (symbol types kept, sizes, aliases, sorting) are those
 * of {@link KallsymsParser}.
 */
@Component(service = SymbolResolver.class, property = SymbolResolver.FORMAT + "=" + KallsymsResolver.FORMAT_NAME)
public final class KallsymsResolver implements SymbolResolver {

    /** The format this resolver registers for. */
    public static final String FORMAT_NAME = "kallsyms";

    private final KallsymsParser parser = new KallsymsParser();

    /** Needs no collaborators; DS and plain Java use this constructor. */
    public KallsymsResolver() {
    }

    @Override
    public String format() {
        return FORMAT_NAME;
    }

    @Override
    public SymbolTable load(ImageSource source) throws SymbolFileException {
        Objects.requireNonNull(source, "source");
        String location = source.location();
        if (!FORMAT_NAME.equals(source.format())) {
            throw new SymbolFileException(location, -1, "has format '" + source.format()
                    + "', but this resolver reads '" + FORMAT_NAME
                    + "' text (System.map, nm, /proc/kallsyms); ask the resolver registered for '"
                    + source.format() + "'");
        }
        byte[] data;
        try (InputStream in = source.content().open()) {
            if (in == null) {
                throw new SymbolFileException(location, -1,
                        "cannot be opened: no such file or resource; check the image's symbol file location");
            }
            data = in.readAllBytes();
        } catch (IOException e) {
            throw new SymbolFileException(location,
                    "cannot be read (" + e + "); check that the file exists and is readable", e);
        }
        return parser.parse(source.imageName(), location, data);
    }

    @Override
    public String toString() {
        return "KallsymsResolver[" + FORMAT_NAME + "]";
    }
}
