package org.hyperprof.symbols.kallsyms;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KallsymsResolverTest {

    private static final String SYSTEM_MAP = "System.map-2.6.16-xen";
    private static final String KALLSYMS = "kallsyms-xen-dom0";

    private final KallsymsResolver resolver = new KallsymsResolver();

    static ImageSource text(String location, String content) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        return new ImageSource("vmlinux", "kallsyms", location, () -> new ByteArrayInputStream(bytes));
    }

    static ImageSource resource(String name) {
        return new ImageSource("vmlinux", "kallsyms", name, () -> KallsymsResolverTest.class.getResourceAsStream(name));
    }

    SymbolTable load(String content) throws SymbolFileException {
        return resolver.load(text("test.map", content));
    }

    static List<String> names(SymbolTable table) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < table.size(); i++) {
            names.add(table.name(i));
        }
        return names;
    }

    static long sizeOf(SymbolTable table, String name) {
        int index = table.indexOf(name);
        assertTrue(index >= 0, name + " is not in " + names(table));
        return table.symbolSize(index);
    }

    @Test
    void registersForTheKallsymsFormat() {
        assertEquals("kallsyms", resolver.format());
    }

    /** Each kind of malformed line: the rule, the file, the line the error is on and what its message says. */
    static Stream<Arguments> malformedLines() {
        return Stream.of(
                arguments("a line with too few fields names the expected format", "c0100000 T good\nc0100010 T\n", 2,
                        "found 2 fields; expected '<hex address> <type letter> <name>'"),
                arguments("a line with one field is rejected", "c0100000\n", 1, "found 1 field;"),
                arguments("an address with a hex prefix is rejected", "c0100000 T good\n\n0xc0100010 T bad\n", 3,
                        "has a 0x prefix"),
                arguments("an address that is not hexadecimal is rejected", "c010000g T bad\n", 1,
                        "address 'c010000g' is not hexadecimal"),
                arguments("an address wider than 64 bits is rejected", "1ffffffff81000000 T bad\n", 1,
                        "has 17 hex digits; expected at most 16"),
                arguments("a type of two letters is rejected", "c0100000 TT bad\n", 1,
                        "symbol type 'TT' is not a single letter"),
                arguments("a type that is not a letter is rejected", "c0100000 T good\nc0100010 ? bad\n", 2,
                        "symbol type '?' is not a single letter"),
                arguments("a name missing before the module column is rejected", "ffffffffa0000000 t\t[e1000]\n", 1,
                        "the symbol name is missing"),
                arguments("a module column without brackets is rejected",
                        "ffffffffa0000000 t e1000_intr\te1000\n", 1,
                        "'e1000' after the name is not a module column; expected '[module]'"),
                arguments("text after the module column is rejected",
                        "ffffffffa0000000 t e1000_intr\t[e1000] extra\n", 1,
                        "unexpected 'extra' after the module column"),
                arguments("an error on the last line loads nothing: a good prefix yields no partial table",
                        "c0100000 T a\nc0100010 T b\nc0100020 T c\nzz T d", 4, "not hexadecimal"));
    }

    @Nested
    class SystemMap {
        @Test
        void functionsAreTheTextAndWeakSymbolsInAddressOrder() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(SYSTEM_MAP));
            assertEquals(List.of("startup_32", "hypercall_page", "do_IRQ", "__do_IRQ", "schedule",
                    "arch_get_unmapped_area", "netif_receive_skb", "netif_rx", "ip_rcv", "tcp_v4_rcv",
                    "tcp_rcv_established"), names(table));
            assertEquals("vmlinux", table.imageName());
            assertEquals(0xc0100000L, table.start(0));
        }

        @Test
        void sizeRunsToTheNextHigherSymbol() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(SYSTEM_MAP));
            assertAll(
                    () -> assertEquals(0x180, sizeOf(table, "do_IRQ")),
                    () -> assertEquals(0x280, sizeOf(table, "__do_IRQ")),
                    () -> assertEquals(0x800, sizeOf(table, "schedule")),
                    () -> assertEquals(0x400, sizeOf(table, "arch_get_unmapped_area")),
                    () -> assertEquals(0x800, sizeOf(table, "tcp_v4_rcv")));
        }

        @Test
        void lastFunctionEndsAtTheEtextMarker() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(SYSTEM_MAP));
            assertEquals(0xc0104800L - 0xc0104200L, sizeOf(table, "tcp_rcv_established"));
            assertEquals(-1, table.lookup(0xc0104800L), "_etext starts no function");
        }

        @Test
        void moduleVersionChecksumsAreNotAddressesAndEndNothing() throws SymbolFileException {
            // "c0100180 A __crc_netif_rx" lies inside startup_32 by value only
            SymbolTable table = resolver.load(resource(SYSTEM_MAP));
            assertEquals(0x1000, sizeOf(table, "startup_32"));
            assertEquals(table.indexOf("startup_32"), table.lookup(0xc0100180L));
        }

        @Test
        void aliasAtTheSameAddressKeepsTheFirstTextName() throws SymbolFileException {
            // "_text" (absolute) and "_stext" share startup_32's address
            SymbolTable table = resolver.load(resource(SYSTEM_MAP));
            assertEquals(-1, table.indexOf("_stext"));
            assertEquals(-1, table.indexOf("_text"));
            assertEquals("startup_32", table.name(table.lookup(0xc0100000L)));
        }

        @Test
        void everyAddressInsideAFunctionResolvesToIt() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(SYSTEM_MAP));
            for (int i = 0; i < table.size(); i++) {
                long start = table.start(i);
                long end = start + table.symbolSize(i);
                assertEquals(i, table.lookup(start), table.name(i) + " start");
                assertEquals(i, table.lookup(end - 1), table.name(i) + " last byte");
            }
            assertEquals(-1, table.lookup(0xc00fffffL), "below the first function");
            assertEquals(-1, table.lookup(0xc0106000L), "init_task is data");
        }
    }

    @Nested
    class ProcKallsyms {
        @Test
        void moduleColumnNamesTheModuleAndKernelSymbolsHaveNone() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(KALLSYMS));
            assertEquals("e1000", table.module(table.indexOf("e1000_intr")));
            assertEquals("bridge", table.module(table.indexOf("br_forward")));
            assertEquals("netbk", table.module(table.indexOf("net_rx_action")));
            assertNull(table.module(table.indexOf("do_IRQ")));
            String e1000 = table.module(table.indexOf("e1000_intr"));
            assertSame(e1000, table.module(table.indexOf("e1000_xmit_frame")), "module names are shared");
        }

        @Test
        void unsortedModuleSymbolsAreSortedByAddress() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(KALLSYMS));
            assertEquals(List.of("startup_64", "secondary_startup_64", "hypercall_page", "do_IRQ", "handle_irq",
                    "netif_receive_skb", "__netif_receive_skb_core",
                    "e1000_intr", "e1000_clean", "e1000_alloc_rx_buffers", "e1000_xmit_frame",
                    "br_handle_frame", "br_handle_frame_finish", "br_forward",
                    "net_rx_action", "netbk_tx_action"), names(table));
            assertEquals(0x200, sizeOf(table, "e1000_intr"));
            assertEquals(0x400, sizeOf(table, "e1000_clean"));
            assertEquals(0x300, sizeOf(table, "e1000_alloc_rx_buffers"));
        }

        @Test
        void moduleDataSymbolEndsTheModulesLastFunction() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(KALLSYMS));
            assertEquals(0xffffffffa0012000L - 0xffffffffa0010900L, sizeOf(table, "e1000_xmit_frame"));
            assertEquals(-1, table.lookup(0xffffffffa0012000L), "e1000_driver is data");
        }

        @Test
        void functionFollowedByAnotherModuleIsCappedAtTheDefaultSize() throws SymbolFileException {
            // br_forward at ...15100, next symbol net_rx_action [netbk] at ...18000: separate allocations
            SymbolTable table = resolver.load(resource(KALLSYMS));
            assertEquals(KallsymsParser.DEFAULT_LAST_SIZE, sizeOf(table, "br_forward"));
            assertEquals(-1, table.lookup(0xffffffffa0015100L + KallsymsParser.DEFAULT_LAST_SIZE));
        }

        @Test
        void capNeverMakesAFunctionOverlapTheNextModule() throws SymbolFileException {
            SymbolTable table = load("ffffffffa0000000 t last_of_a\t[a]\nffffffffa0000040 t first_of_b\t[b]\n");
            assertEquals(0x40, sizeOf(table, "last_of_a"));
        }

        @Test
        void functionWithNothingAboveItGetsTheDefaultSize() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(KALLSYMS));
            assertEquals(4096, sizeOf(table, "netbk_tx_action"));
        }

        @Test
        void etextTypedAsTextEndsTheKernelTextAndIsNotAFunction() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(KALLSYMS));
            assertEquals(-1, table.indexOf("_etext"));
            assertEquals(0x800, sizeOf(table, "__netif_receive_skb_core"));
            assertEquals(-1, table.lookup(0xffffffff81004000L));
        }

        @Test
        void aliasesKeepTheFirstNameInFileOrder() throws SymbolFileException {
            SymbolTable table = resolver.load(resource(KALLSYMS));
            assertEquals("startup_64", table.name(table.lookup(0xffffffff81000000L)));
            assertEquals(0x100, sizeOf(table, "startup_64"));
        }

        @Test
        void aliasOrderSurvivesSortingOfAnUnsortedFile() throws SymbolFileException {
            SymbolTable table = load("""
                    ffffffffa0000200 t third\t[m]
                    ffffffffa0000100 t first_alias\t[m]
                    ffffffffa0000000 t zeroth\t[m]
                    ffffffffa0000100 t second_alias\t[m]
                    ffffffffa0000300 t fourth\t[m]
                    ffffffffa0000100 t third_alias\t[m]
                    """);
            assertEquals(List.of("zeroth", "first_alias", "third", "fourth"), names(table));
            assertEquals(0x100, sizeOf(table, "first_alias"));
        }
    }

    @Nested
    class SymbolTypes {
        @Test
        void dataSymbolsAreLeftOutButEndTheFunctionBefore() throws SymbolFileException {
            SymbolTable table = load("""
                    c0100000 T first
                    c0100040 d local_table
                    c0100100 T second
                    c0100180 B zero_page
                    c0100200 R banner
                    c0100300 T third
                    """);
            assertEquals(List.of("first", "second", "third"), names(table));
            assertEquals(0x40, sizeOf(table, "first"));
            assertEquals(0x80, sizeOf(table, "second"));
            assertEquals(-1, table.lookup(0xc0100040L));
        }

        @Test
        void textAndWeakTypesOfBothCasesAreFunctions() throws SymbolFileException {
            SymbolTable table = load("""
                    c0100000 T global_text
                    c0100010 t local_text
                    c0100020 W weak_global
                    c0100030 w weak_local
                    c0100040 D data
                    """);
            assertEquals(List.of("global_text", "local_text", "weak_global", "weak_local"), names(table));
        }

        @Test
        void everyOtherTypeLetterIsNotAFunction() throws SymbolFileException {
            StringBuilder map = new StringBuilder("c0000000 T only_function\n");
            long address = 0xc0001000L;
            for (char type : "AaBbDdGgiNnRrSsuVv".toCharArray()) {
                map.append(Long.toHexString(address)).append(' ').append(type).append(" sym_").append(type).append('\n');
                address += 0x10;
            }
            SymbolTable table = load(map.toString());
            assertEquals(List.of("only_function"), names(table));
            assertEquals(0x1000, sizeOf(table, "only_function"), "the first non-function ends it");
        }

        @Test
        void commonSymbolValuesAreNotAddressesAndEndNothing() throws SymbolFileException {
            SymbolTable table = load("""
                    00001000 T main
                    00001010 C buffer_alignment_not_address
                    00001200 T helper
                    """);
            assertEquals(0x200, sizeOf(table, "main"));
        }

        @Test
        void nmUndefinedReferencesWithoutAddressAreSkipped() throws SymbolFileException {
            SymbolTable table = load("""
                                     U printf
                                     w __gmon_start__
                    0000000000001130 T main
                    0000000000001180 t helper
                    0000000000001200 D data_start
                    """);
            assertEquals(List.of("main", "helper"), names(table));
            assertEquals(0x80, sizeOf(table, "helper"));
        }

        @Test
        void blankLinesAndWindowsLineEndingsAreAccepted() throws SymbolFileException {
            SymbolTable table = load("c0100000 T alpha\r\n\r\n   \nc0100020 T beta\r\n");
            assertEquals(List.of("alpha", "beta"), names(table));
            assertEquals(0x20, sizeOf(table, "alpha"));
        }

        @Test
        void upperCaseHexAndShortAddressesAreRead() throws SymbolFileException {
            SymbolTable table = load("C0100000 T alpha\n0 a zero\nC0100010 T beta\n");
            assertArrayEquals(new long[] {0xc0100000L, 0xc0100010L}, new long[] {table.start(0), table.start(1)});
        }
    }

    @Nested
    class MalformedInput {
        SymbolFileException rejected(String content) {
            return assertThrows(SymbolFileException.class, () -> resolver.load(text("maps/System.map-bad", content)));
        }

        void assertRejectedAtLine(String content, int line, String expected) {
            SymbolFileException e = rejected(content);
            assertEquals("maps/System.map-bad", e.file());
            assertEquals(line, e.position());
            assertTrue(e.getMessage().startsWith("maps/System.map-bad:" + line + ": "), e.getMessage());
            assertTrue(e.getMessage().contains(expected), e.getMessage());
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("org.hyperprof.symbols.kallsyms.KallsymsResolverTest#malformedLines")
        void aMalformedLineIsRejectedNamingFileLineAndWhatIsWrong(String rule, String content, int line,
                String expected) {
            assertRejectedAtLine(content, line, expected);
        }

        @Test
        void messageQuotesTheOffendingLine() {
            SymbolFileException e = rejected("c0100000 T good\nc0100010\tX?\tbad\n");
            assertTrue(e.getMessage().contains("(line: \"c0100010\\tX?\\tbad\")"), e.getMessage());
        }

        @Test
        void emptyFileIsRejected() {
            SymbolFileException e = rejected("");
            assertEquals(-1, e.position());
            assertTrue(e.getMessage().contains("holds no symbol lines"), e.getMessage());
        }

        @Test
        void blankFileIsRejected() {
            assertTrue(rejected("\n  \n\t\n").getMessage().contains("holds no symbol lines"));
        }

        @Test
        void fileWithoutFunctionsIsRejected() {
            SymbolFileException e = rejected("c0300000 D init_task\nc0400000 B empty_zero_page\n");
            assertTrue(e.getMessage().contains("holds 2 symbols but no functions: none has type T, t, W or w"),
                    e.getMessage());
        }

        @Test
        void allZeroAddressesExplainKptrRestrict() {
            SymbolFileException e = rejected("""
                    0000000000000000 T startup_64
                    0000000000000000 T do_IRQ
                    0000000000000000 t e1000_intr\t[e1000]
                    """);
            String message = e.getMessage();
            assertTrue(message.contains("every one of its 3 addresses is 0"), message);
            assertTrue(message.contains("kptr_restrict"), message);
            assertTrue(message.contains("as root"), message);
            assertTrue(message.contains("System.map"), message);
        }

        @Test
        void elfBinaryIsRejectedWithAHintToUseTheElfFormat() {
            SymbolFileException e = rejected("\u007fELF\u0002\u0001\u0001");
            assertTrue(e.getMessage().contains("ELF binary"), e.getMessage());
            assertTrue(e.getMessage().contains("'elf' format"), e.getMessage());
        }

        @Test
        void sourceOfAnotherFormatIsRejected() {
            ImageSource elf = new ImageSource("xen-syms", "elf", "boot/xen-syms", () -> InputStream.nullInputStream());
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> resolver.load(elf));
            assertTrue(e.getMessage().startsWith("boot/xen-syms: has format 'elf'"), e.getMessage());
        }

        @Test
        void unreadableFileIsReportedWithItsCause() {
            IOException denied = new IOException("Permission denied");
            ImageSource source = new ImageSource("vmlinux", "kallsyms", "/boot/System.map", () -> {
                throw denied;
            });
            SymbolFileException e = assertThrows(SymbolFileException.class, () -> resolver.load(source));
            assertSame(denied, e.getCause());
            assertTrue(e.getMessage().startsWith("/boot/System.map: cannot be read"), e.getMessage());
        }

        @Test
        void missingResourceIsReported() {
            SymbolFileException e = assertThrows(SymbolFileException.class,
                    () -> resolver.load(resource("no-such-System.map")));
            assertTrue(e.getMessage().contains("no such file or resource"), e.getMessage());
        }
    }
}
