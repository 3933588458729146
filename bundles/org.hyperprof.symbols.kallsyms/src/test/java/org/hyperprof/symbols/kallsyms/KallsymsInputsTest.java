package org.hyperprof.symbols.kallsyms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.input.InputTooLargeException;
import org.hyperprof.api.input.NotAFileException;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.InputLimit;
import org.hyperprof.input.SymbolFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the resolver reads: a path that names no regular file is refused before it is opened; a file
 * is read whole up to the resolver's ceiling ({@code max.file.mb}), procfs files that report size 0
 * included; past it, a clear error naming the setting.
 */
class KallsymsInputsTest {

    private static final long MB = 1 << 20;

    private final KallsymsResolver resolver = new KallsymsResolver();

    @Test
    void aDeviceIsRefusedBeforeAByteOfItIsRead() {
        assumeTrue(Files.exists(Path.of("/dev/zero")));
        long before = allocated();
        SymbolFileException e = assertThrows(SymbolFileException.class,
                () -> resolver.load(SymbolFiles.source("vmlinux", "kallsyms", Path.of("/dev/zero"))));
        long allocated = allocated() - before;
        assertEquals("/dev/zero: is a character device, not a regular file: Hyperprof reads a symbol file only from a"
                + " regular file; a device such as /dev/zero or a terminal never ends: give a regular file",
                e.getMessage());
        assertInstanceOf(NotAFileException.class, e.getCause());
        assertTrue(allocated < 16 * MB, "refusing /dev/zero allocated " + allocated + " bytes");
    }

    @Test
    void aFileAboveTheCeilingIsRefusedBeforeItIsReadNamingTheSetting(@TempDir Path dir) throws Exception {
        Path map = dir.resolve("System.map");
        String line = "c0100000 T startup_32\n";
        Files.writeString(map, line.repeat((int) (MB / line.length()) + 1));
        SymbolFileException e = assertThrows(SymbolFileException.class,
                () -> new KallsymsResolver(1).load(SymbolFiles.source("vmlinux", "kallsyms", map)));
        assertEquals(map + ": is " + InputLimit.size(Files.size(map)) + ", more than the 1 MiB Hyperprof reads of a"
                + " System.map or kallsyms file; check that it is the file you meant, or raise the limit (max.file.mb"
                + " of PID org.hyperprof.symbols.kallsyms in Configuration Admin)", e.getMessage());
        assertInstanceOf(InputTooLargeException.class, e.getCause());
    }

    @Test
    void procKallsymsIsReadAsAStreamToItsEndAndWithinTheCeiling() throws Exception {
        Path kallsyms = Path.of("/proc/kallsyms");
        assumeTrue(Files.isReadable(kallsyms) && Files.size(kallsyms) == 0, "a readable /proc/kallsyms");
        long length;
        try (InputStream in = Files.newInputStream(kallsyms)) {
            length = in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        ImageSource source = SymbolFiles.source("vmlinux", "kallsyms", kallsyms);
        assumeTrue(length > MB, "a /proc/kallsyms of more than 1 MiB");
        SymbolFileException e = assertThrows(SymbolFileException.class, () -> new KallsymsResolver(1).load(source));
        assertTrue(e.getMessage().startsWith("/proc/kallsyms: holds more than 1 MiB, the most Hyperprof reads of a"
                + " System.map or kallsyms file"), e.getMessage());
        try {
            SymbolTable whole = resolver.load(source);
            assertTrue(whole.size() > 1000, whole.toString());
        } catch (SymbolFileException hidden) {
            // Read to its end as an unprivileged reader sees it: every address 0, and the resolver says why.
            assertTrue(hidden.getMessage().contains("addresses is 0"), hidden.getMessage());
        }
    }

    @Test
    void theCeilingIsAConfigurationSetting() throws Exception {
        KallsymsConfiguration two = new KallsymsConfiguration() {
            @Override
            public long max_file_mb() {
                return 2;
            }

            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return KallsymsConfiguration.class;
            }
        };
        String content = "c0100000 T startup_32\n".repeat(100_000); // 2.2 MB
        ImageSource source = new ImageSource("vmlinux", "kallsyms", "big.map",
                () -> new java.io.ByteArrayInputStream(content.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        assertThrows(SymbolFileException.class, () -> new KallsymsResolver(two).load(source));
        assertEquals(List.of("startup_32"), List.of(resolver.load(source).name(0)));
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
