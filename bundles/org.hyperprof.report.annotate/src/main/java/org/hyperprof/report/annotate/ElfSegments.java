package org.hyperprof.report.annotate;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.report.ReportException;

/**
 * The loadable segments of an ELF file (its {@code PT_LOAD} program headers): what turns a file
 * offset, where a mapping places a sample, into the virtual address objdump prints. Only the file
 * header and the program header table are read (System V ABI, "Object Files": ELF32 and ELF64,
 * either byte order).
 */
final class ElfSegments {

    /** One loadable segment: file bytes {@code [offset, offset + fileSize)} at {@code vaddr}. */
    record Segment(long offset, long vaddr, long fileSize) {
        boolean holds(long fileOffset) {
            return fileOffset >= offset && fileOffset - offset < fileSize;
        }
    }

    private static final int PT_LOAD = 1;

    private final Path file;
    private final List<Segment> loads;

    private ElfSegments(Path file, List<Segment> loads) {
        this.file = file;
        this.loads = List.copyOf(loads);
    }

    /**
     * Reads the program headers of {@code file}.
     *
     * @throws ReportException naming the file and the offset when it is not an ELF file or its
     *                         program header table does not lie in it
     */
    static ElfSegments read(Path file) throws ReportException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer ident = read(ch, file, 0, 16, size, "the ELF identification");
            if (ident.getInt(0) != 0x7f454c46) {
                throw new ReportException(file + " is not an ELF file (no 7f 45 4c 46 at offset 0); annotation"
                        + " disassembles ELF programs and libraries only");
            }
            int elfClass = ident.get(4);
            int data = ident.get(5);
            if ((elfClass != 1 && elfClass != 2) || (data != 1 && data != 2)) {
                throw new ReportException(file + ": offset 4: class " + elfClass + ", data " + data
                        + " is neither 32/64-bit nor little/big-endian ELF; is the file damaged?");
            }
            boolean wide = elfClass == 2;
            ByteOrder order = data == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
            ByteBuffer h = read(ch, file, 0, wide ? 64 : 52, size, "the ELF header").order(order);
            long phoff = wide ? h.getLong(0x20) : Integer.toUnsignedLong(h.getInt(0x1c));
            int phentsize = Short.toUnsignedInt(h.getShort(wide ? 0x36 : 0x2a));
            int phnum = Short.toUnsignedInt(h.getShort(wide ? 0x38 : 0x2c));
            int entry = wide ? 56 : 32;
            if (phnum > 0 && phentsize < entry) {
                throw new ReportException(file + ": offset " + (wide ? 0x36 : 0x2a) + ": program header size "
                        + phentsize + " is below the " + entry + " bytes of this class; is the file damaged?");
            }
            List<Segment> loads = new ArrayList<>();
            ByteBuffer table = read(ch, file, phoff, (long) phnum * phentsize, size, "the program header table")
                    .order(order);
            for (int i = 0; i < phnum; i++) {
                int at = i * phentsize;
                if (table.getInt(at) != PT_LOAD) {
                    continue;
                }
                loads.add(wide ? new Segment(table.getLong(at + 8), table.getLong(at + 16), table.getLong(at + 32))
                        : new Segment(Integer.toUnsignedLong(table.getInt(at + 4)),
                                Integer.toUnsignedLong(table.getInt(at + 8)),
                                Integer.toUnsignedLong(table.getInt(at + 16))));
            }
            return new ElfSegments(file, loads);
        } catch (IOException e) {
            throw new ReportException("cannot read " + file + ": " + e.getMessage());
        }
    }

    private static ByteBuffer read(FileChannel ch, Path file, long at, long length, long size, String what)
            throws IOException, ReportException {
        if (at < 0 || length < 0 || at > size || length > size - at) {
            throw new ReportException(file + ": " + what + " (offset " + at + ", " + length + " bytes) lies outside"
                    + " the file's " + size + " bytes; is the file truncated?");
        }
        ByteBuffer b = ByteBuffer.allocate((int) length);
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                throw new ReportException(file + ": " + what + " ends early at offset " + (at + b.position()));
            }
        }
        return b.flip();
    }

    /** The virtual address of file offset {@code fileOffset}, or -1 when no loadable segment holds it. */
    long vaddrOf(long fileOffset) {
        for (Segment s : loads) {
            if (s.holds(fileOffset)) {
                return fileOffset - s.offset() + s.vaddr();
            }
        }
        return -1;
    }

    List<Segment> loads() {
        return loads;
    }

    @Override
    public String toString() {
        return file + " (" + loads.size() + " loadable segments)";
    }
}
