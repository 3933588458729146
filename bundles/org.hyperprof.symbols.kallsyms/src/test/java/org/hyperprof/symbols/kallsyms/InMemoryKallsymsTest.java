package org.hyperprof.symbols.kallsyms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.junit.jupiter.api.Test;

/**
 * The entry points for text already in memory ({@code byte[]}, {@link ByteBuffer}), and the lines
 * the single-pass parser treats specially: huge names, CRLF, names at the very end of the data.
 */
class InMemoryKallsymsTest {

    private final KallsymsResolver resolver = new KallsymsResolver();

    private static byte[] resourceBytes(String name) throws IOException {
        try (InputStream in = InMemoryKallsymsTest.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    private SymbolTable loadThroughSource(String location, byte[] data) throws SymbolFileException {
        return resolver.load(new ImageSource("vmlinux", "kallsyms", location, () -> new ByteArrayInputStream(data)));
    }

    static void assertSameTable(SymbolTable expected, SymbolTable actual) {
        assertEquals(expected.imageName(), actual.imageName());
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.start(i), actual.start(i), "start " + i);
            assertEquals(expected.symbolSize(i), actual.symbolSize(i), "size " + i);
            assertEquals(expected.name(i), actual.name(i), "name " + i);
            assertEquals(expected.module(i), actual.module(i), "module " + i);
        }
    }

    @Test
    void bytesGiveTheSameTableAsTheFile() throws IOException, SymbolFileException {
        for (String name : List.of("System.map-2.6.16-xen", "kallsyms-xen-dom0")) {
            byte[] data = resourceBytes(name);
            SymbolTable fromSource = loadThroughSource(name, data);
            assertSameTable(fromSource, resolver.load("vmlinux", name, data));
            assertSameTable(fromSource, resolver.load("vmlinux", name, ByteBuffer.wrap(data)));
            assertSameTable(fromSource, resolver.load("vmlinux", name, ByteBuffer.wrap(data).asReadOnlyBuffer()));
            ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).flip();
            assertSameTable(fromSource, resolver.load("vmlinux", name, direct));
        }
    }

    @Test
    void aLargeKallsymsGivesTheSameTableFromBytesAsFromTheFile() throws SymbolFileException {
        byte[] data = LargeKallsymsTest.syntheticKallsyms(5_000, 20, 300);
        assertSameTable(loadThroughSource("synthetic", data), resolver.load("vmlinux", "synthetic", data));
    }

    @Test
    void aBufferIsReadFromItsPositionToItsLimitAndLeftAsItWas() throws IOException, SymbolFileException {
        byte[] file = resourceBytes("kallsyms-xen-dom0");
        byte[] padded = new byte[file.length + 200];
        Arrays.fill(padded, (byte) '#'); // not kallsyms text: must not be read
        System.arraycopy(file, 0, padded, 100, file.length);
        SymbolTable expected = resolver.load("vmlinux", "k", file);

        ByteBuffer slice = ByteBuffer.wrap(padded, 50, padded.length - 50).slice(); // array offset 50
        slice.position(50).limit(50 + file.length);
        assertSameTable(expected, resolver.load("vmlinux", "k", slice));
        assertEquals(50, slice.position());
        assertEquals(50 + file.length, slice.limit());

        ByteBuffer direct = ByteBuffer.allocateDirect(padded.length).put(padded);
        direct.position(100).limit(100 + file.length);
        assertSameTable(expected, resolver.load("vmlinux", "k", direct));
        assertEquals(100, direct.position());
    }

    @Test
    void errorsFromBytesNameTheLocationAndTheLine() {
        byte[] data = "c0100000 T good\nc0100010 T\n".getBytes(StandardCharsets.US_ASCII);
        SymbolFileException e = assertThrows(SymbolFileException.class,
                () -> resolver.load("vmlinux", "/boot/System.map", data));
        assertEquals("/boot/System.map", e.file());
        assertEquals(2, e.position());
        assertTrue(e.getMessage().contains("found 2 fields"), e.getMessage());

        ByteBuffer buffer = ByteBuffer.wrap(("junk\n" + "c0100000 T good\nzz T bad\n").getBytes(StandardCharsets.US_ASCII));
        buffer.position(5); // lines count from the position
        e = assertThrows(SymbolFileException.class, () -> resolver.load("vmlinux", "m", buffer));
        assertEquals(2, e.position());
    }

    @Test
    void aLineWithAHugeNameIsRead() throws SymbolFileException {
        String huge = "f".repeat(1_000_000) + "_x";
        SymbolTable table = resolver.load("vmlinux", "m", ("ffffffff81000000 T before\n"
                + "ffffffff81000010 t " + huge + "\n"
                + "ffffffff81000020 T after\t[mod]\n").getBytes(StandardCharsets.US_ASCII));
        assertEquals(List.of("before", huge, "after"),
                List.of(table.name(0), table.name(1), table.name(2)));
        assertEquals(0x10, table.symbolSize(0));
        assertEquals("mod", table.module(2));
    }

    @Test
    void aHugeNameOnTheLastLineWithoutALineEndIsRead() throws SymbolFileException {
        String huge = "n".repeat(100_003);
        SymbolTable table = resolver.load("vmlinux", "m",
                ("c0100000 T a\nc0100010 T " + huge).getBytes(StandardCharsets.US_ASCII));
        assertEquals(huge, table.name(1));
    }

    @Test
    void namesOfEveryLengthEndWhereTheyShould() throws SymbolFileException {
        // around the 8- and 32-byte blocks the name scan reads, with LF, CRLF, a module and no line end
        for (int length = 1; length <= 70; length++) {
            String name = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(2).substring(0, Math.min(length, 72))
                    + "_".repeat(Math.max(0, length - 72));
            for (String ending : List.of("\n", "\r\n", "\t[m]\n", "\t[m]\r\n", "")) {
                byte[] data = ("ffffffff81000000 T " + name + ending).getBytes(StandardCharsets.US_ASCII);
                SymbolTable table = resolver.load("vmlinux", "m", data);
                assertEquals(name, table.name(0), length + " " + ending);
                assertEquals(ending.contains("[m]") ? "m" : null, table.module(0));
            }
        }
    }

    @Test
    void windowsLineEndingsGiveTheSameTableAsUnixOnes() throws IOException, SymbolFileException {
        for (String name : List.of("System.map-2.6.16-xen", "kallsyms-xen-dom0")) {
            byte[] unix = resourceBytes(name);
            byte[] windows = new String(unix, StandardCharsets.US_ASCII).replace("\n", "\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            assertSameTable(resolver.load("vmlinux", name, unix), resolver.load("vmlinux", name, windows));
        }
    }

    @Test
    void aCarriageReturnThatDoesNotEndTheLineIsPartOfTheName() throws SymbolFileException {
        // as before the rewrite: only blanks and tabs separate fields, and only CR LF or a CR at the very end end a line
        SymbolTable table = resolver.load("vmlinux", "m",
                "c0100000 T a\rb\nc0100010 T c\r\r\nc0100020 T d\r".getBytes(StandardCharsets.US_ASCII));
        assertEquals(List.of("a\rb", "c\r", "d"), List.of(table.name(0), table.name(1), table.name(2)));
    }

    @Test
    void namesThatAreNotAsciiAreDecodedAsUtf8() throws SymbolFileException {
        SymbolTable table = resolver.load("vmlinux", "m",
                "c0100000 T caf\u00e9_init\nc0100010 T plain\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("caf\u00e9_init", table.name(0));
        assertEquals("plain", table.name(1));
        byte[] invalid = {'c', '0', '1', '0', '0', '0', '0', '0', ' ', 'T', ' ', 'x', (byte) 0xff, 'y', '\n'};
        assertEquals("x\ufffdy", resolver.load("vmlinux", "m", invalid).name(0));
    }

    @Test
    void thirtyTwoAndSixtyFourBitAddressesAreReadEightDigitsAtATime() throws SymbolFileException {
        SymbolTable table = resolver.load("vmlinux", "m", ("""
                c0100000 T a
                C01000aF T b
                ffffffffc0a1b2c3 t c\t[m]
                FfFfFfFf81000000 T d
                0000000000000010 T e
                """).getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(new long[] {0x10L, 0xc0100000L, 0xc01000afL, 0xffffffff81000000L, 0xffffffffc0a1b2c3L},
                new long[] {table.start(0), table.start(1), table.start(2), table.start(3), table.start(4)});
        assertNull(table.module(0));
    }

    @Test
    void nullArgumentsAreRejected() {
        assertThrows(NullPointerException.class, () -> resolver.load("vmlinux", "m", (byte[]) null));
        assertThrows(NullPointerException.class, () -> resolver.load("vmlinux", "m", (ByteBuffer) null));
        assertThrows(NullPointerException.class, () -> resolver.load(null, "m", new byte[0]));
    }
}
