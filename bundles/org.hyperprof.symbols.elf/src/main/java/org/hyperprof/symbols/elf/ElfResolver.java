package org.hyperprof.symbols.elf;

import static org.hyperprof.symbols.elf.ElfFile.hex;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Objects;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.osgi.service.component.annotations.Component;

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
 * <p>A file is read whole into memory, up to {@link #MAX_FILE_SIZE} bytes. Stateless: one instance
 * may be shared by any number of threads.
 */
@Component(service = SymbolResolver.class, property = SymbolResolver.FORMAT + "=" + ElfResolver.FORMAT_NAME)
public final class ElfResolver implements SymbolResolver {

    /** The format this resolver registers for. */
    public static final String FORMAT_NAME = "elf";

    /** The largest file read: 512 MiB, above any real image (a debug vmlinux is a few hundred MiB). */
    public static final int MAX_FILE_SIZE = 512 << 20;

    private final int maxFileSize;

    /** Needs no collaborators; DS and plain Java use this constructor. */
    public ElfResolver() {
        this(MAX_FILE_SIZE);
    }

    /** A resolver with a smaller file size limit, for tests of the limit. */
    ElfResolver(int maxFileSize) {
        this.maxFileSize = maxFileSize;
    }

    @Override
    public String format() {
        return FORMAT_NAME;
    }

    @Override
    public SymbolTable load(ImageSource source) throws SymbolFileException {
        ElfFile file = open(source);
        return ElfSymbols.read(file, source.imageName());
    }

    /**
     * The image's GNU build-id ({@code NT_GNU_BUILD_ID}), as lower-case hex as {@code readelf -n}
     * prints it, or null when the image has none.
     *
     * @throws SymbolFileException when the file is not a well-formed ELF file or its notes are malformed
     */
    public String buildId(ImageSource source) throws SymbolFileException {
        return ElfNotes.buildId(open(source));
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
        ElfFile f = open(source);
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

    private ElfFile open(ImageSource source) throws SymbolFileException {
        Objects.requireNonNull(source, "source");
        String location = source.location();
        if (!FORMAT_NAME.equals(source.format())) {
            throw new SymbolFileException(location, -1, "has format '" + source.format()
                    + "', but this resolver reads '" + FORMAT_NAME + "' (ELF images); ask the resolver registered for '"
                    + source.format() + "'");
        }
        return ElfFile.parse(location, read(source));
    }

    private byte[] read(ImageSource source) throws SymbolFileException {
        String location = source.location();
        try (InputStream in = source.content().open()) {
            if (in == null) {
                throw new SymbolFileException(location, -1,
                        "cannot be opened: no such file or resource; check the image's symbol file location");
            }
            // A file's stream knows how much is left: one buffer of that size, filled in place (a
            // libc is 2 MB; growing by doubling copied it three times over).
            int hint = Math.max(0, in.available());
            byte[] buffer = new byte[Math.min(Math.max(hint, 64 << 10), maxFileSize)];
            int length = 0;
            while (true) {
                if (length == buffer.length) {
                    int next = in.read();
                    if (next < 0) {
                        break;
                    }
                    if (buffer.length == maxFileSize) {
                        throw new SymbolFileException(location, maxFileSize, "at offset " + hex(maxFileSize)
                                + ": the file is larger than " + sizeText(maxFileSize) + ", the most this resolver "
                                + "reads; give a stripped copy or the separate debug file (objcopy --only-keep-debug)");
                    }
                    buffer = Arrays.copyOf(buffer, (int) Math.min((long) buffer.length * 2, maxFileSize));
                    buffer[length++] = (byte) next;
                    continue;
                }
                int got = in.read(buffer, length, buffer.length - length);
                if (got < 0) {
                    break;
                }
                length += got;
            }
            return length == buffer.length ? buffer : Arrays.copyOf(buffer, length);
        } catch (IOException e) {
            throw new SymbolFileException(location,
                    "cannot be read (" + e + "); check that the file exists and is readable", e);
        }
    }

    private static String sizeText(int bytes) {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }

    @Override
    public String toString() {
        return "ElfResolver[" + FORMAT_NAME + "]";
    }
}
