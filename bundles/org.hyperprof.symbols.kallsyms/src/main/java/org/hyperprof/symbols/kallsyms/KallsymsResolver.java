package org.hyperprof.symbols.kallsyms;

import java.nio.ByteBuffer;
import java.util.Objects;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.InputLimit;
import org.hyperprof.symbols.kit.FormatResolver;
import org.hyperprof.symbols.kit.ImageInput;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The {@code kallsyms} symbol resolver: reads System.map, {@code nm} output and /proc/kallsyms text
 * into an image's function table. The rules (symbol types kept, sizes, aliases, sorting) are those
 * of {@link KallsymsParser}. A file is read whole, at most {@code max.file.mb} MiB of it
 * (Configuration Admin PID {@value #PID}); the parser's memory is a constant times that.
 */
@Component(service = SymbolResolver.class, configurationPid = KallsymsResolver.PID)
@SymbolResolver.Format(KallsymsResolver.FORMAT_NAME)
@Designate(ocd = KallsymsConfiguration.class)
public final class KallsymsResolver extends FormatResolver {

    /** The format this resolver registers for (its {@code symbols.format}), stated here once. */
    public static final String FORMAT_NAME = "kallsyms";
    /** The resolver's Configuration Admin PID. */
    public static final String PID = "org.hyperprof.symbols.kallsyms";
    /** The default ceiling of one file: ten times a distribution kernel's /proc/kallsyms. */
    public static final long DEFAULT_MAX_FILE_MB = 256;

    private final KallsymsParser parser = new KallsymsParser();

    /** With the default ceiling; plain Java uses this constructor. */
    public KallsymsResolver() {
        this(DEFAULT_MAX_FILE_MB);
    }

    /** With the ceiling of Configuration Admin (DS uses this constructor). */
    @Activate
    public KallsymsResolver(KallsymsConfiguration config) {
        this(config.max_file_mb());
    }

    /**
     * With a ceiling of {@code maxFileMegabytes} MiB per file.
     *
     * @throws IllegalArgumentException for a ceiling below 1 MiB
     */
    public KallsymsResolver(long maxFileMegabytes) {
        this(InputLimit.ofMegabytes("System.map or kallsyms file", maxFileMegabytes,
                "max.file.mb of PID " + PID + " in Configuration Admin"));
    }

    KallsymsResolver(InputLimit limit) {
        super(FORMAT_NAME, limit);
    }

    @Override
    public SymbolTable load(ImageSource source) throws SymbolFileException {
        ImageInput.checkFormat(source, FORMAT_NAME, "System.map, nm or /proc/kallsyms text");
        String location = source.location();
        byte[] data = ImageInput.readWhole(source, limit);
        return parser.parse(source.imageName(), location, data);
    }

    /**
     * Reads System.map, {@code nm} or /proc/kallsyms text that the caller already holds, with the
     * same rules and errors as {@link #load(ImageSource)}, without copying or reading it again.
     * The array is only read, and no reference to it is kept.
     *
     * @param imageName the image the table belongs to, as in {@link ImageSource#imageName()}
     * @param location  the file's path or name, for messages
     * @param data      the whole file
     * @throws SymbolFileException naming the file and the line of the first problem
     */
    public SymbolTable load(String imageName, String location, byte[] data) throws SymbolFileException {
        Objects.requireNonNull(imageName, "imageName");
        Objects.requireNonNull(location, "location");
        return parser.parse(imageName, location, Objects.requireNonNull(data, "data"));
    }

    /**
     * As {@link #load(String, String, byte[])} for the bytes from {@code data}'s position to its
     * limit (a mapped file, say). The buffer's position and limit are left as they were; a heap
     * buffer is read in place, a direct one copied once.
     *
     * @throws SymbolFileException naming the file and the line of the first problem
     */
    public SymbolTable load(String imageName, String location, ByteBuffer data) throws SymbolFileException {
        Objects.requireNonNull(imageName, "imageName");
        Objects.requireNonNull(location, "location");
        return parser.parse(imageName, location, Objects.requireNonNull(data, "data"));
    }

    /** The file's bytes the caller holds are parsed in place: the file is not read a second time. */
    @Override
    public SymbolTable load(ImageSource source, ByteBuffer content) throws SymbolFileException {
        Objects.requireNonNull(source, "source");
        return load(source.imageName(), source.location(), content);
    }
}
