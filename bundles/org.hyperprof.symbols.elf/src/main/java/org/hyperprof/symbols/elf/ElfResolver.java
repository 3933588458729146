package org.hyperprof.symbols.elf;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;

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
 * The {@code elf} symbol resolver: reads the function symbols of ELF images (32 and 64 bit, little
 * and big endian): programs, shared objects, position-independent executables, kernels (vmlinux,
 * xen-syms) and loadable kernel modules. The file checks are those of {@link ElfFile}; which
 * symbols become functions, their addresses, sizes and names are the rules of {@link ElfSymbols}.
 *
 * <h2>Addresses and the load bias</h2>
 * The table holds the addresses the file's symbols give: absolute run-time addresses for
 * {@code ET_EXEC} images, link-time addresses for {@code ET_DYN} ones (shared objects and PIEs),
 * and a section layout from 0 for {@code ET_REL} modules. Relocating them is the caller's job,
 * through {@code Mapping.loadBias}: for an image whose first mapping starts at run-time address
 * {@code S}, the bias is {@code S - loadBase(image)} (0 for an executable mapped where it was
 * linked), and for a module it is the module's load address.
 *
 * <h2>Beyond the SPI</h2>
 * {@link #buildId(ImageSource)} and {@link #loadBase(ImageSource)} answer questions the
 * {@link SymbolTable} has no field for. They are plain public methods: call them on an instance
 * made with the public constructor (the class is in the bundle's private package; other bundles can
 * reach them on the service object by reflection).
 *
 * <h2>What is read</h2>
 * From a file ({@link ImageSource.Content#openChannel()}) only what the table needs: the file
 * header, the header tables, the section name string table, the symbol table, its string table and
 * the notes, in 64 KiB blocks ({@link ElfData}); a 600 MiB vmlinux with debug information costs the
 * few MiB of its symbols, not its DWARF. A content that is only a stream (a resource, a procfs
 * file) is read whole. Either way at most {@code max.read.mb} MiB (Configuration Admin PID
 * {@value #PID}, default {@value #DEFAULT_MAX_READ_MB}: a whole 600 MiB vmlinux fits), and memory
 * stays within a constant times what was read. Stateless: one instance may be shared by any number
 * of threads.
 */
@Component(service = SymbolResolver.class, configurationPid = ElfResolver.PID)
@SymbolResolver.Format(ElfResolver.FORMAT_NAME)
@Designate(ocd = ElfConfiguration.class)
public final class ElfResolver extends FormatResolver {

    /** The format this resolver registers for (its {@code symbols.format}), stated here once. */
    public static final String FORMAT_NAME = "elf";
    /** The resolver's Configuration Admin PID. */
    public static final String PID = "org.hyperprof.symbols.elf";
    /**
     * The default read ceiling: above a whole debug vmlinux read as a stream (a few hundred MiB),
     * and far above what a file's symbols cost (libjvm.so: 4 MiB of its 23 MiB).
     */
    public static final long DEFAULT_MAX_READ_MB = 1024;

    /** With the default ceiling; plain Java uses this constructor. */
    public ElfResolver() {
        this(DEFAULT_MAX_READ_MB);
    }

    /** With the ceiling of Configuration Admin (DS uses this constructor). */
    @Activate
    public ElfResolver(ElfConfiguration config) {
        this(config.max_read_mb());
    }

    /**
     * With a ceiling of {@code maxReadMegabytes} MiB read per image.
     *
     * @throws IllegalArgumentException for a ceiling below 1 MiB
     */
    public ElfResolver(long maxReadMegabytes) {
        this(InputLimit.ofMegabytes("ELF image", maxReadMegabytes, "max.read.mb of PID " + PID
                + " in Configuration Admin"));
    }

    /** With a ceiling in bytes, for tests of the ceiling. */
    ElfResolver(InputLimit limit) {
        super(FORMAT_NAME, limit);
    }

    @Override
    public SymbolTable load(ImageSource source) throws SymbolFileException {
        return read(source, f -> ElfSymbols.read(f, source.imageName()));
    }

    /**
     * The image's GNU build-id ({@code NT_GNU_BUILD_ID}), as lower-case hex as {@code readelf -n}
     * prints it, or null when the image has none.
     *
     * @throws SymbolFileException when the file is not a well-formed ELF file or its notes are malformed
     */
    public String buildId(ImageSource source) throws SymbolFileException {
        return read(source, ElfNotes::buildId);
    }

    /**
     * The link-time address that the start of the image's first mapping corresponds to: the lowest
     * {@code PT_LOAD} segment's {@code p_vaddr}, aligned down to that segment's {@code p_align}. An
     * image whose first mapping starts at run-time address {@code S} has load bias
     * {@code S - loadBase}; for an {@code ET_EXEC} image mapped where it was linked that is 0.
     * For an {@code ET_REL} module it is 0: the table's layout starts at 0 and the bias is the
     * module's load address.
     *
     * @throws SymbolFileException when the file is malformed, or an executable or shared object has no
     *                             {@code PT_LOAD} segment
     */
    public long loadBase(ImageSource source) throws SymbolFileException {
        return read(source, ElfResolver::loadBase);
    }

    private static long loadBase(ElfFile f) throws SymbolFileException {
        if (f.type == ElfFile.ET_REL) {
            return 0;
        }
        int lowest = -1;
        for (int i = 0; i < f.phnum; i++) {
            if (f.phType[i] == ElfFile.PT_LOAD
                    && (lowest < 0 || Long.compareUnsigned(f.phVaddr[i], f.phVaddr[lowest]) < 0)) {
                lowest = i;
            }
        }
        if (lowest < 0) {
            throw f.error(f.is64 ? 32 : 28, "e_phoff", "the image has no PT_LOAD segment among its " + f.phnum
                    + " program headers, so it is never mapped; give the program or library file itself");
        }
        long vaddr = f.phVaddr[lowest];
        long align = f.phAlign[lowest];
        return Long.compareUnsigned(align, 1) > 0 ? vaddr - Long.remainderUnsigned(vaddr, align) : vaddr;
    }

    /** What one question asks of a parsed file. */
    @FunctionalInterface
    private interface Question<T> {
        T ask(ElfFile file) throws SymbolFileException;
    }

    /**
     * Opens the image (a file by its channel, else its stream read whole), parses its headers and
     * asks {@code question}, within the read ceiling; the file is closed before this returns.
     */
    private <T> T read(ImageSource source, Question<T> question) throws SymbolFileException {
        ImageInput.checkFormat(source, FORMAT_NAME, "ELF images");
        String location = source.location();
        try (SeekableByteChannel channel = source.content().openChannel()) {
            ElfData data = channel != null ? ElfData.of(channel, limit, location)
                    : ElfData.of(ImageInput.readWhole(source, limit));
            return question.ask(ElfFile.parse(location, data));
        } catch (ElfData.ReadFailure e) {
            throw ImageInput.unreadable(location, e.getCause());
        } catch (IOException e) {
            throw ImageInput.unreadable(location, e);
        }
    }
}
