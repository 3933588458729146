package org.hyperprof.symbols.kallsyms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.junit.jupiter.api.Test;

/**
 * {@link KallsymsParser} against {@link ReferenceKallsymsParser}, the line-by-line parser it
 * replaced: on real files, synthetic large ones and many thousands of generated and mutated ones,
 * both give the same table, or both reject the input at the same line with the same message.
 */
class KallsymsDifferentialTest {

    private static final String[] TYPES = {"T", "t", "W", "w", "D", "d", "B", "b", "R", "r", "A", "a", "U", "C", "c",
        "V", "v", "N", "G", "i", "u", "?", "TT", "1"};
    private static final String[] NAMES = {"startup_64", "_stext", "do_IRQ", "__do_softirq", "_etext", "_einittext",
        "_edata", "_end", "__bss_stop", "__crc_printk", "__crc_", "a", "x", "schedule", "[bracketed]", "[m]",
        "e1000_intr", "caf\u00e9_fn", "\u65e5\u672c_fn", "name.with.dots", "n$1", "__x64_sys_read",
        "a_name_that_is_exactly_thirty_2", "a_name_that_is_longer_than_thirty_two_bytes_for_the_slow_loop"};
    private static final String[] GOOD_MODULES = {"[e1000]", "[ext4]", "[m]", "[__builtin__ftrace]", "[caf\u00e9]"};
    private static final String[] MODULES = {"[e1000]", "[ext4]", "[m]", "[]", "[x", "x]", "e1000", "[__builtin__ftrace]",
        "[caf\u00e9]"};

    private final KallsymsParser parser = new KallsymsParser();
    private final ReferenceKallsymsParser reference = new ReferenceKallsymsParser();

    /** The outcome of one parse, comparable: the table's columns, or the error. */
    private record Outcome(String table, String error) {
    }

    private static String describe(SymbolTable table) {
        StringBuilder out = new StringBuilder(table.imageName()).append(' ').append(table.size()).append('\n');
        for (int i = 0; i < table.size(); i++) {
            out.append(Long.toHexString(table.start(i))).append(' ').append(table.symbolSize(i)).append(' ')
                    .append(table.name(i)).append(' ').append(table.module(i)).append('\n');
        }
        return out.toString();
    }

    private static Outcome outcome(Parse parse) {
        try {
            return new Outcome(describe(parse.run()), null);
        } catch (SymbolFileException e) {
            return new Outcome(null, e.file() + "|" + e.position() + "|" + e.getMessage());
        }
    }

    @FunctionalInterface
    private interface Parse {
        SymbolTable run() throws SymbolFileException;
    }

    private void assertSameOutcome(byte[] data, String what) {
        Outcome expected = outcome(() -> reference.parse("vmlinux", "test.map", data));
        Outcome actual = outcome(() -> parser.parse("vmlinux", "test.map", data));
        assertEquals(expected, actual, () -> what + ":\n" + new String(data, StandardCharsets.UTF_8));
    }

    @Test
    void theFilesInTheTestResourcesGiveTheSameTables() throws IOException {
        for (String name : List.of("System.map-2.6.16-xen", "kallsyms-xen-dom0")) {
            byte[] data;
            try (InputStream in = getClass().getResourceAsStream(name)) {
                assertNotNull(in, name);
                data = in.readAllBytes();
            }
            assertSameOutcome(data, name);
            assertSameOutcome(new String(data, StandardCharsets.US_ASCII).replace("\n", "\r\n")
                    .getBytes(StandardCharsets.US_ASCII), name + " with CRLF");
        }
    }

    @Test
    void aLargeScrambledKallsymsGivesTheSameTable() {
        assertSameOutcome(LargeKallsymsTest.syntheticKallsyms(20_000, 30, 500), "synthetic");
    }

    @Test
    void thisMachinesProcKallsymsGivesTheSameTable() throws IOException {
        Path proc = Path.of("/proc/kallsyms");
        assumeTrue(Files.isReadable(proc), "/proc/kallsyms is not readable here");
        assertSameOutcome(Files.readAllBytes(proc), "/proc/kallsyms");
    }

    @Test
    void generatedFilesGiveTheSameTablesOrTheSameErrors() {
        Random random = new Random(20261122L);
        for (int file = 0; file < 4000; file++) {
            assertSameOutcome(generate(random), "generated file " + file);
        }
    }

    @Test
    void mutatedFilesGiveTheSameTablesOrTheSameErrors() {
        Random random = new Random(7L);
        byte[] blanksAndEnds = {' ', '\t', '\n', '\r', 0, 0x0b, (byte) 0x80, (byte) 0xff, '[', ']', 'x', '0', 'f', 'F'};
        for (int file = 0; file < 4000; file++) {
            byte[] data = generate(random);
            if (data.length == 0) {
                continue;
            }
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                int at = random.nextInt(data.length);
                switch (random.nextInt(3)) {
                    case 0 -> data[at] = blanksAndEnds[random.nextInt(blanksAndEnds.length)];
                    case 1 -> data[at] = (byte) random.nextInt(256);
                    default -> data = java.util.Arrays.copyOf(data, at); // truncated
                }
                if (data.length == 0) {
                    break;
                }
            }
            assertSameOutcome(data, "mutated file " + file);
        }
    }

    /**
     * A small System.map, nm or kallsyms file: half of them well formed (with blank lines, nm's
     * undefined lines, tabs, CRLF, aliases, lines out of order...), half with malformed lines too.
     */
    private static byte[] generate(Random random) {
        boolean malformed = random.nextBoolean();
        StringBuilder out = new StringBuilder();
        int lines = 1 + random.nextInt(12);
        long base = random.nextInt(4) == 0 ? 0xc0100000L : 0xffffffff81000000L;
        String end = random.nextInt(5) == 0 ? "\r\n" : "\n";
        List<Long> used = new ArrayList<>();
        for (int i = 0; i < lines; i++) {
            long address;
            if (!used.isEmpty() && random.nextInt(5) == 0) {
                address = used.get(random.nextInt(used.size())); // an alias, or a line out of order
            } else {
                address = base + random.nextInt(64) * 0x10L;
                if (random.nextInt(20) == 0) {
                    address = random.nextLong(); // anything, even wider than any kernel
                }
            }
            used.add(address);
            String hex = Long.toHexString(address);
            switch (random.nextInt(12)) {
                case 2, 3, 4 -> {
                    if (!malformed) {
                        break;
                    }
                    hex = switch (random.nextInt(3)) {
                        case 0 -> "0x" + hex;
                        case 1 -> "1" + String.format("%016x", address); // 17 digits
                        default -> hex.substring(0, Math.max(1, hex.length() - 3)) + "g";
                    };
                }
                case 0 -> hex = String.format("%016x", address);
                case 1 -> hex = hex.toUpperCase();
                case 5 -> hex = "0";
                case 6 -> hex = String.format("%08x", address & 0xffffffffL);
                default -> {
                }
            }
            String type = TYPES[random.nextInt(malformed ? TYPES.length : TYPES.length - 3)];
            if (random.nextInt(3) > 0) {
                type = random.nextBoolean() ? "T" : "t";
            }
            String name = NAMES[random.nextInt(NAMES.length)];
            if (!malformed && name.startsWith("[")) {
                name = "bracket" + name;
            }
            String sep1 = random.nextInt(10) == 0 ? "\t" : random.nextInt(10) == 0 ? "  " : " ";
            String sep2 = random.nextInt(10) == 0 ? "\t" : " ";
            switch (random.nextInt(20)) {
                case 0 -> out.append(end); // blank line
                case 1 -> out.append("   \t").append(end);
                case 2 -> out.append("                 U ").append(name).append(end); // nm's undefined
                case 3 -> out.append(malformed ? hex : "").append(end); // one field
                case 4 -> out.append(malformed ? hex + sep1 + type : "").append(end); // two fields
                case 5 -> out.append(' ').append(hex).append(sep1).append(type).append(sep2).append(name).append(end);
                case 6 -> out.append(hex).append(sep1).append(type).append(sep2).append(name).append(" \t").append(end);
                default -> {
                    out.append(hex).append(sep1).append(type).append(sep2).append(name);
                    if (random.nextInt(3) == 0) {
                        String module = malformed ? MODULES[random.nextInt(MODULES.length)]
                                : GOOD_MODULES[random.nextInt(GOOD_MODULES.length)];
                        out.append(random.nextInt(6) == 0 ? " " : "\t").append(module);
                        if (malformed && random.nextInt(15) == 0) {
                            out.append(" extra");
                        }
                    }
                    if (i < lines - 1 || random.nextInt(4) > 0) { // the last line may have no line end
                        out.append(end);
                    }
                }
            }
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }
}
