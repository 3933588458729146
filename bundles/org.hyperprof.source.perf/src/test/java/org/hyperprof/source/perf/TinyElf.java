package org.hyperprof.source.perf;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A small 64-bit little-endian shared object written for tests: one loadable segment whose file
 * offset and link-time address differ (file offset 0x1000 is address 0x401000), a {@code .text}
 * section, optionally a PLT with its {@code .rela.plt} and dynamic symbols, a full symbol table
 * and a GNU build-id note.
 */
final class TinyElf {

    static final int LOCAL = 0;
    static final int GLOBAL = 1;
    static final int WEAK = 2;
    static final int FUNC = 2;
    static final int NOTYPE = 0;

    static final long TEXT_OFFSET = 0x1000;
    static final long TEXT_ADDR = 0x401000;
    static final long TEXT_SIZE = 0x1000;
    static final long PLT_OFFSET = 0x2000;
    static final long PLT_ADDR = 0x402000;

    record Sym(String name, long value, long size, int bind, int type, int section) {
    }

    final List<Sym> symbols = new ArrayList<>();
    final List<String> pltFunctions = new ArrayList<>();
    String buildId;

    /** A function in .text at link-time address {@code value}. */
    TinyElf function(String name, long value, long size, int bind) {
        symbols.add(new Sym(name, value, size, bind, FUNC, 1));
        return this;
    }

    TinyElf label(String name, long value) {
        symbols.add(new Sym(name, value, 0, LOCAL, NOTYPE, 1));
        return this;
    }

    /** A PLT stub for an imported function, in order. */
    TinyElf plt(String function) {
        pltFunctions.add(function);
        return this;
    }

    TinyElf buildId(String hex) {
        this.buildId = hex;
        return this;
    }

    private static final class Section {
        String name;
        int type;
        long flags;
        long addr;
        long offset;
        byte[] data;
        int link;
        int info;
        long entsize;
        long align = 1;
    }

    byte[] build() {
        List<Section> sections = new ArrayList<>();
        sections.add(new Section()); // the null section
        Section text = section(sections, ".text", 1, 6, TEXT_ADDR, new byte[(int) TEXT_SIZE]);
        text.offset = TEXT_OFFSET;
        boolean plt = !pltFunctions.isEmpty();
        Section pltSec = null;
        if (plt) {
            pltSec = section(sections, ".plt", 1, 6, PLT_ADDR, new byte[16 * (pltFunctions.size() + 1)]);
            pltSec.offset = PLT_OFFSET;
            pltSec.entsize = 16;
        }
        // .symtab and .strtab
        ByteArrayOutputStream strtab = new ByteArrayOutputStream();
        strtab.write(0);
        ByteBuffer symtab = le(24 * (symbols.size() + 1));
        symtab.position(24);
        int locals = 1;
        for (Sym s : symbols) {
            int name = strtab.size();
            strtab.writeBytes((s.name() + "\0").getBytes(StandardCharsets.UTF_8));
            symtab.putInt(name).put((byte) ((s.bind() << 4) | s.type())).put((byte) 0)
                    .putShort((short) s.section()).putLong(s.value()).putLong(s.size());
            if (s.bind() == LOCAL) {
                locals++;
            }
        }
        Section sym = section(sections, ".symtab", 2, 0, 0, symtab.array());
        sym.entsize = 24;
        sym.info = locals;
        sym.align = 8;
        Section str = section(sections, ".strtab", 3, 0, 0, strtab.toByteArray());
        sym.link = sections.indexOf(str);
        if (plt) {
            ByteArrayOutputStream dynstr = new ByteArrayOutputStream();
            dynstr.write(0);
            ByteBuffer dynsym = le(24 * (pltFunctions.size() + 1));
            dynsym.position(24);
            ByteBuffer rela = le(24 * pltFunctions.size());
            int i = 1;
            for (String f : pltFunctions) {
                int name = dynstr.size();
                dynstr.writeBytes((f + "\0").getBytes(StandardCharsets.UTF_8));
                dynsym.putInt(name).put((byte) ((GLOBAL << 4) | FUNC)).put((byte) 0).putShort((short) 0)
                        .putLong(0).putLong(0);
                rela.putLong(0x404000 + 8L * i).putLong(((long) i << 32) | 7).putLong(0);
                i++;
            }
            Section ds = section(sections, ".dynsym", 11, 2, 0, dynsym.array());
            ds.entsize = 24;
            ds.info = 1;
            ds.align = 8;
            Section dstr = section(sections, ".dynstr", 3, 2, 0, dynstr.toByteArray());
            ds.link = sections.indexOf(dstr);
            Section r = section(sections, ".rela.plt", 4, 0x42, 0, rela.array());
            r.entsize = 24;
            r.link = sections.indexOf(ds);
            r.info = sections.indexOf(pltSec);
            r.align = 8;
        }
        if (buildId != null) {
            byte[] id = new byte[buildId.length() / 2];
            for (int k = 0; k < id.length; k++) {
                id[k] = (byte) Integer.parseInt(buildId.substring(2 * k, 2 * k + 2), 16);
            }
            ByteBuffer note = le(16 + ((id.length + 3) & ~3));
            note.putInt(4).putInt(id.length).putInt(3).put("GNU\0".getBytes(StandardCharsets.US_ASCII)).put(id);
            Section n = section(sections, ".note.gnu.build-id", 7, 2, 0, note.array());
            n.align = 4;
        }
        ByteArrayOutputStream shstr = new ByteArrayOutputStream();
        shstr.write(0);
        int[] names = new int[sections.size() + 1];
        for (int k = 1; k < sections.size(); k++) {
            names[k] = shstr.size();
            shstr.writeBytes((sections.get(k).name + "\0").getBytes(StandardCharsets.UTF_8));
        }
        int shstrName = shstr.size();
        shstr.writeBytes(".shstrtab\0".getBytes(StandardCharsets.UTF_8));
        Section shs = section(sections, ".shstrtab", 3, 0, 0, shstr.toByteArray());

        // Lay the sections out: .text and .plt at their fixed offsets, the rest after them.
        long at = plt ? PLT_OFFSET + 0x1000 : TEXT_OFFSET + TEXT_SIZE;
        for (int k = 1; k < sections.size(); k++) {
            Section s = sections.get(k);
            if (s.offset == 0) {
                at = (at + s.align - 1) / s.align * s.align;
                s.offset = at;
                at += s.data.length;
            }
        }
        long shoff = (at + 7) / 8 * 8;
        ByteBuffer f = le((int) (shoff + 64L * sections.size()));
        f.put(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0});
        f.position(16);
        f.putShort((short) 3).putShort((short) 62).putInt(1).putLong(0).putLong(64).putLong(shoff).putInt(0)
                .putShort((short) 64).putShort((short) 56).putShort((short) 1).putShort((short) 64)
                .putShort((short) sections.size()).putShort((short) sections.indexOf(shs));
        long loadSize = plt ? PLT_OFFSET + 0x1000 - TEXT_OFFSET : TEXT_SIZE;
        f.position(64);
        f.putInt(1).putInt(5).putLong(TEXT_OFFSET).putLong(TEXT_ADDR).putLong(TEXT_ADDR).putLong(loadSize)
                .putLong(loadSize).putLong(0x1000);
        for (int k = 1; k < sections.size(); k++) {
            Section s = sections.get(k);
            f.put((int) s.offset, s.data);
        }
        for (int k = 0; k < sections.size(); k++) {
            Section s = sections.get(k);
            f.position((int) (shoff + 64L * k));
            if (k == 0) {
                continue;
            }
            f.putInt(s == shs ? shstrName : names[k]).putInt(s.type).putLong(s.flags).putLong(s.addr)
                    .putLong(s.offset).putLong(s.data.length).putInt(s.link).putInt(s.info).putLong(s.align)
                    .putLong(s.entsize);
        }
        return f.array();
    }

    private static Section section(List<Section> sections, String name, int type, long flags, long addr, byte[] data) {
        Section s = new Section();
        s.name = name;
        s.type = type;
        s.flags = flags;
        s.addr = addr;
        s.data = data;
        sections.add(s);
        return s;
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    Path write(Path file) throws java.io.IOException {
        return Files.write(file, build());
    }
}
