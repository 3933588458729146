package org.hyperprof.symbols.elf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes small ELF files by hand for tests: any class and byte order, sections with contents,
 * symbol tables with their string tables, program headers and notes. Layout: file header, program
 * headers, section contents in section order (each at its alignment), the section name string
 * table, then the section header table. After {@link #build()} the offsets of every structure are
 * known, so tests can patch single fields to make a file lie.
 */
final class ElfBuilder {

    static final int ET_REL = 1;
    static final int ET_EXEC = 2;
    static final int ET_DYN = 3;
    static final int EM_386 = 3;
    static final int EM_PPC = 20;
    static final int EM_PPC64 = 21;
    static final int EM_X86_64 = 62;

    static final int SHT_PROGBITS = 1;
    static final int SHT_SYMTAB = 2;
    static final int SHT_STRTAB = 3;
    static final int SHT_NOTE = 7;
    static final int SHT_NOBITS = 8;
    static final int SHT_DYNSYM = 11;
    static final int SHT_SYMTAB_SHNDX = 18;
    static final long SHF_WRITE = 1;
    static final long SHF_ALLOC = 2;
    static final long SHF_EXECINSTR = 4;
    static final long TEXT_FLAGS = SHF_ALLOC | SHF_EXECINSTR;

    static final int STT_NOTYPE = 0;
    static final int STT_OBJECT = 1;
    static final int STT_FUNC = 2;
    static final int STT_GNU_IFUNC = 10;
    static final int STB_LOCAL = 0;
    static final int STB_GLOBAL = 1;
    static final int STB_WEAK = 2;
    static final int SHN_UNDEF = 0;
    static final int SHN_ABS = 0xfff1;
    static final int SHN_XINDEX = 0xffff;

    static final int PT_LOAD = 1;
    static final int PT_NOTE = 4;

    final boolean is64;
    final boolean bigEndian;
    private final int type;
    private final int machine;
    private long flags;
    private final List<Section> sections = new ArrayList<>();
    private final List<Segment> segments = new ArrayList<>();
    private boolean extendedNumbering;
    private boolean withSectionHeaders = true;

    // Known after build().
    long shoff;
    long phoff;
    int shstrndx;
    private byte[] image;

    ElfBuilder(boolean is64, boolean bigEndian, int type, int machine) {
        this.is64 = is64;
        this.bigEndian = bigEndian;
        this.type = type;
        this.machine = machine;
        sections.add(new Section("", 0, 0, 0, new byte[0], 0, 0)); // SHN_UNDEF
    }

    static ElfBuilder elf64le(int type) {
        return new ElfBuilder(true, false, type, EM_X86_64);
    }

    ElfBuilder flags(long value) {
        this.flags = value;
        return this;
    }

    /** Writes e_shnum 0 and e_shstrndx SHN_XINDEX with the real values in section 0, whatever the count. */
    ElfBuilder extendedNumbering() {
        this.extendedNumbering = true;
        return this;
    }

    /** Leaves the section header table out (as sstrip does): e_shoff 0. */
    ElfBuilder withoutSectionHeaders() {
        this.withSectionHeaders = false;
        return this;
    }

    final class Section {
        final String name;
        int type;
        long flags;
        long addr;
        byte[] content;
        long nobitsSize;
        /** Bytes of a section whose contents are left unwritten (a hole of a sparse file), or 0. */
        long holeSize;
        long addralign;
        long entsize;
        long link;
        long info;
        Symbols symbols;
        long offset;
        int index;

        Section(String name, int type, long flags, long addr, byte[] content, long addralign, long entsize) {
            this.name = name;
            this.type = type;
            this.flags = flags;
            this.addr = addr;
            this.content = content;
            this.addralign = addralign;
            this.entsize = entsize;
            this.index = sections.size();
        }

        long size() {
            return type == SHT_NOBITS ? nobitsSize : holeSize > 0 ? holeSize : content.length;
        }

        /** File offset of a field of this section's header. */
        long header(int field64, int field32) {
            return shoff + (long) index * (is64 ? 64 : 40) + (is64 ? field64 : field32);
        }
    }

    Section section(String name, int sectionType, long sectionFlags, long addr, byte[] content, long addralign) {
        Section s = new Section(name, sectionType, sectionFlags, addr, content, addralign, 0);
        sections.add(s);
        return s;
    }

    Section text(String name, long addr, int size) {
        return section(name, SHT_PROGBITS, TEXT_FLAGS, addr, new byte[size], 16);
    }

    /**
     * A section of {@code size} bytes that {@link #writeSparse} leaves as a hole of the file (debug
     * information, say: a 600 MB vmlinux that costs no disk).
     */
    Section hole(String name, long size) {
        Section s = section(name, SHT_PROGBITS, 0, 0, new byte[0], 1);
        s.holeSize = size;
        return s;
    }

    Section nobits(String name, long sectionFlags, long addr, long size, long addralign) {
        Section s = section(name, SHT_NOBITS, sectionFlags, addr, new byte[0], addralign);
        s.nobitsSize = size;
        return s;
    }

    Section note(String name, String owner, int noteType, byte[] desc, int align) {
        return section(name, SHT_NOTE, SHF_ALLOC, 0, noteBytes(owner, noteType, desc, align), align);
    }

    /** A note: name and descriptor each start at {@code align}, counted from the note's start. */
    byte[] noteBytes(String owner, int noteType, byte[] desc, int align) {
        byte[] name = (owner + "\0").getBytes(StandardCharsets.US_ASCII);
        int descAt = roundUp(12 + name.length, align);
        ByteBuffer b = buffer(roundUp(descAt + desc.length, align));
        b.putInt(name.length).putInt(desc.length).putInt(noteType).put(name);
        b.position(descAt);
        b.put(desc);
        return b.array();
    }

    /** A symbol table section and its string table, written at build time. */
    final class Symbols {
        final Section table;
        final Section strings;
        final List<Symbol> list = new ArrayList<>();
        Section extendedIndices;

        Symbols(Section table, Section strings) {
            this.table = table;
            this.strings = strings;
            list.add(new Symbol("", 0, 0, 0, 0, 0, 0)); // symbol 0
        }

        /** Adds a symbol; returns its index. */
        int add(String name, long value, long size, int symbolType, int bind, int shndx) {
            list.add(new Symbol(name, value, size, symbolType, bind, shndx, 0));
            return list.size() - 1;
        }

        int function(String name, long value, long size, Section in) {
            return add(name, value, size, STT_FUNC, STB_GLOBAL, in.index);
        }

        /** A symbol with st_shndx SHN_XINDEX whose real index goes to the SHT_SYMTAB_SHNDX section. */
        int extended(String name, long value, long size, int symbolType, int bind, int realIndex) {
            list.add(new Symbol(name, value, size, symbolType, bind, SHN_XINDEX, realIndex));
            return list.size() - 1;
        }

        /** Adds the SHT_SYMTAB_SHNDX section of this table (as the next section). */
        Section withExtendedIndices() {
            extendedIndices = section(".symtab_shndx", SHT_SYMTAB_SHNDX, 0, 0, new byte[0], 4);
            extendedIndices.entsize = 4;
            extendedIndices.link = table.index;
            return extendedIndices;
        }

        /** File offset of a field of symbol {@code i}. */
        long field(int i, int field64, int field32) {
            return table.offset + (long) i * (is64 ? 24 : 16) + (is64 ? field64 : field32);
        }
    }

    record Symbol(String name, long value, long size, int type, int bind, int shndx, int realIndex) {
    }

    Symbols symbols(String tableName, int tableType, String stringsName) {
        Section table = section(tableName, tableType, tableType == SHT_DYNSYM ? SHF_ALLOC : 0, 0, new byte[0], 8);
        table.entsize = is64 ? 24 : 16;
        Section strings = section(stringsName, SHT_STRTAB, tableType == SHT_DYNSYM ? SHF_ALLOC : 0, 0,
                new byte[0], 1);
        table.link = strings.index;
        Symbols s = new Symbols(table, strings);
        table.symbols = s;
        return s;
    }

    Symbols symtab() {
        return symbols(".symtab", SHT_SYMTAB, ".strtab");
    }

    record Segment(int type, long vaddr, long align, Section from, long offset, long filesz) {
    }

    void segment(int segmentType, long vaddr, long align) {
        segments.add(new Segment(segmentType, vaddr, align, null, 0, 0));
    }

    /** A segment whose file extent is that of a section (e.g. PT_NOTE over the build-id note). */
    void segmentOver(int segmentType, Section from, long align) {
        segments.add(new Segment(segmentType, from.addr, align, from, 0, 0));
    }

    int sectionCount() {
        return sections.size() + 1; // and .shstrtab
    }

    /** Where the built file's pieces go, each at its offset. */
    private interface Sink {
        void put(long offset, byte[] bytes) throws java.io.IOException;
    }

    byte[] build() {
        long total = layout();
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("a file of " + total + " bytes: write it with writeSparse");
        }
        byte[] out = new byte[(int) total];
        try {
            emit((offset, bytes) -> System.arraycopy(bytes, 0, out, (int) offset, bytes.length), total);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        image = out;
        return image.clone();
    }

    /**
     * Writes the file to {@code file} with its {@link #hole} sections left as holes, so that a file
     * of hundreds of MB takes a few KB of disk; returns its length.
     */
    long writeSparse(java.nio.file.Path file) throws java.io.IOException {
        long total = layout();
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING,
                java.nio.file.StandardOpenOption.WRITE)) {
            emit((offset, bytes) -> {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b, offset + b.position());
                }
            }, total);
            if (ch.size() < total) {
                ch.write(ByteBuffer.wrap(new byte[1]), total - 1); // the hole up to the end
            }
        }
        return total;
    }

    private int count;
    private boolean extended;
    private Map<String, Integer> nameIndex;

    /** Places every structure; returns the file's length. */
    private long layout() {
        for (Section s : new ArrayList<>(sections)) {
            if (s.symbols != null) {
                writeSymbols(s.symbols);
            }
        }
        // Section names: one string table, names shared.
        nameIndex = new LinkedHashMap<>();
        StringBuilder names = new StringBuilder("\0");
        Section shstrtab = new Section(".shstrtab", SHT_STRTAB, 0, 0, null, 1, 0);
        sections.add(shstrtab);
        for (Section s : sections) {
            if (!s.name.isEmpty() && !nameIndex.containsKey(s.name)) {
                nameIndex.put(s.name, names.length());
                names.append(s.name).append('\0');
            }
        }
        shstrtab.content = names.toString().getBytes(StandardCharsets.US_ASCII);
        shstrndx = shstrtab.index;

        int ehsize = is64 ? 64 : 52;
        int phentsize = is64 ? 56 : 32;
        int shentsize = is64 ? 64 : 40;
        phoff = segments.isEmpty() ? 0 : ehsize;
        long cursor = ehsize + (long) segments.size() * phentsize;
        for (Section s : sections) {
            if (s.index == 0) {
                continue;
            }
            cursor = roundUp(cursor, Math.max(1, s.addralign));
            s.offset = cursor;
            if (s.type != SHT_NOBITS) {
                cursor += s.size();
            }
        }
        cursor = roundUp(cursor, 8);
        shoff = withSectionHeaders ? cursor : 0;
        count = sections.size();
        extended = extendedNumbering || count >= 0xff00;
        return withSectionHeaders ? cursor + (long) count * shentsize : cursor;
    }

    private void emit(Sink sink, long total) throws java.io.IOException {
        int ehsize = is64 ? 64 : 52;
        int phentsize = is64 ? 56 : 32;
        int shentsize = is64 ? 64 : 40;

        // File header.
        ByteBuffer b = buffer(ehsize);
        b.put(new byte[] {0x7f, 'E', 'L', 'F', (byte) (is64 ? 2 : 1), (byte) (bigEndian ? 2 : 1), 1});
        b.position(16);
        b.putShort((short) type).putShort((short) machine).putInt(1);
        putWord(b, 0); // e_entry
        putWord(b, phoff);
        putWord(b, shoff);
        b.putInt((int) flags).putShort((short) ehsize).putShort((short) phentsize);
        b.putShort((short) (segments.size()));
        b.putShort((short) shentsize);
        b.putShort((short) (!withSectionHeaders ? 0 : extended ? 0 : count));
        b.putShort((short) (!withSectionHeaders ? 0 : extended ? SHN_XINDEX : shstrndx));
        sink.put(0, b.array());

        // Program headers.
        for (int i = 0; i < segments.size(); i++) {
            Segment seg = segments.get(i);
            long offset = seg.from == null ? 0 : seg.from.offset;
            long filesz = seg.from == null ? total : seg.from.size();
            ByteBuffer h = buffer(phentsize);
            h.putInt(seg.type);
            if (is64) {
                h.putInt(5);
                h.putLong(offset).putLong(seg.vaddr).putLong(seg.vaddr).putLong(filesz).putLong(filesz)
                        .putLong(seg.align);
            } else {
                h.putInt((int) offset).putInt((int) seg.vaddr).putInt((int) seg.vaddr).putInt((int) filesz)
                        .putInt((int) filesz).putInt(5).putInt((int) seg.align);
            }
            sink.put(phoff + (long) i * phentsize, h.array());
        }

        // Contents.
        for (Section s : sections) {
            if (s.index != 0 && s.type != SHT_NOBITS && s.holeSize == 0) {
                sink.put(s.offset, s.content);
            }
        }

        // Section headers.
        if (withSectionHeaders) {
            for (Section s : sections) {
                ByteBuffer h = buffer(shentsize);
                long size = s.size();
                long link = s.link;
                long info = s.info;
                if (s.index == 0 && extended) {
                    size = count;
                    link = shstrndx;
                }
                h.putInt(s.name.isEmpty() ? 0 : nameIndex.get(s.name)).putInt(s.type);
                putWord(h, s.flags);
                putWord(h, s.addr);
                putWord(h, s.offset);
                putWord(h, size);
                h.putInt((int) link).putInt((int) info);
                putWord(h, s.addralign);
                putWord(h, s.entsize);
                sink.put(shoff + (long) s.index * shentsize, h.array());
            }
        }
    }

    private void writeSymbols(Symbols symbols) {
        StringBuilder strings = new StringBuilder("\0");
        int entsize = is64 ? 24 : 16;
        ByteBuffer b = buffer(symbols.list.size() * entsize);
        ByteBuffer x = buffer(symbols.list.size() * 4);
        int firstGlobal = 0;
        for (int i = 0; i < symbols.list.size(); i++) {
            Symbol s = symbols.list.get(i);
            int name = 0;
            if (!s.name.isEmpty()) {
                name = strings.length();
                strings.append(s.name).append('\0');
            }
            if (s.bind == STB_LOCAL) {
                firstGlobal = i + 1;
            }
            byte info = (byte) ((s.bind << 4) | s.type);
            if (is64) {
                b.putInt(name).put(info).put((byte) 0).putShort((short) s.shndx).putLong(s.value).putLong(s.size);
            } else {
                b.putInt(name).putInt((int) s.value).putInt((int) s.size).put(info).put((byte) 0)
                        .putShort((short) s.shndx);
            }
            x.putInt(s.shndx == SHN_XINDEX ? s.realIndex : 0);
        }
        symbols.table.content = b.array();
        symbols.table.info = firstGlobal;
        symbols.strings.content = strings.toString().getBytes(StandardCharsets.UTF_8);
        if (symbols.extendedIndices != null) {
            symbols.extendedIndices.content = x.array();
        }
    }

    ByteBuffer buffer(int size) {
        return ByteBuffer.allocate(size).order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    }

    private void putWord(ByteBuffer b, long value) {
        if (is64) {
            b.putLong(value);
        } else {
            b.putInt((int) value);
        }
    }

    static int roundUp(int value, int align) {
        return (value + align - 1) / align * align;
    }

    static long roundUp(long value, long align) {
        return (value + align - 1) / align * align;
    }

    // ---- patching a built image ----

    /** A copy of {@code image} with a field of {@code width} bytes (1, 2, 4 or 8) at {@code offset} set. */
    byte[] patch(byte[] original, long offset, int width, long value) {
        byte[] copy = original.clone();
        ByteBuffer b = ByteBuffer.wrap(copy).order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        int at = (int) offset;
        switch (width) {
            case 1: b.put(at, (byte) value); break;
            case 2: b.putShort(at, (short) value); break;
            case 4: b.putInt(at, (int) value); break;
            case 8: b.putLong(at, value); break;
            default: throw new IllegalArgumentException("width " + width);
        }
        return copy;
    }

    /** A word (address, offset or size) field: 8 bytes in ELF64, 4 in ELF32. */
    byte[] patchWord(byte[] original, long offset, long value) {
        return patch(original, offset, is64 ? 8 : 4, value);
    }

    int wordSize() {
        return is64 ? 8 : 4;
    }
}
