package org.hyperprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.symbols.elf.Binutils.ReadelfSection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The resolver on the machine's own images, compared with {@code readelf} and {@code nm}: the JDK's
 * shared libraries (with {@code .symtab}), the C library and {@code /bin/ls} (stripped: only
 * {@code .dynsym}).
 */
class RealImagesTest {

    private static final Path JAVA_HOME = Path.of(System.getProperty("java.home"));
    static final Path LIBJVM = JAVA_HOME.resolve("lib/server/libjvm.so");
    static final Path LIBJAVA = JAVA_HOME.resolve("lib/libjava.so");
    static final Path LS = Path.of("/bin/ls");

    private final ElfResolver resolver = new ElfResolver();

    static Path libc() {
        for (String line : Binutils.tryRun(null, "ldd", "/bin/ls").orElse(List.of())) {
            String t = line.trim();
            if (t.startsWith("libc.so")) {
                String[] f = t.split("\\s+");
                if (f.length >= 3 && f[1].equals("=>")) {
                    return Path.of(f[2]);
                }
            }
        }
        return Path.of("/lib/x86_64-linux-gnu/libc.so.6");
    }

    static Stream<Path> images() {
        return Stream.of(LIBJVM, LIBJAVA, libc(), LS);
    }

    @ParameterizedTest
    @MethodSource("images")
    void everyFunctionReadelfAndNmListIsInTheTableWithItsAddressAndSize(Path file) throws SymbolFileException {
        Binutils.assumeFile(file);
        SymbolTable table = resolver.load(Binutils.image(file));
        ToolComparison.Counts counts = ToolComparison.compare(file, table);
        System.out.println(file + ": " + counts);
        assertEquals(file.getFileName().toString(), table.imageName());
    }

    @ParameterizedTest
    @MethodSource("images")
    void buildIdIsTheOneReadelfPrints(Path file) throws SymbolFileException {
        Binutils.assumeFile(file);
        String expected = Binutils.readelfBuildId(file);
        assumeTrue(expected != null, file + " has no build-id");
        assertEquals(expected, resolver.buildId(Binutils.image(file)));
    }

    @Test
    void strippedBinaryFallsBackToDynsym() throws SymbolFileException {
        Binutils.assumeFile(LS);
        assumeTrue(!Binutils.hasSymtab(LS), "/bin/ls is not stripped here");
        SymbolTable table = resolver.load(Binutils.image(LS));
        long exported = Binutils.nm(LS, true).stream().filter(s -> s.type() == 'T').count();
        assertTrue(exported > 0);
        assertEquals(exported, table.size());
    }

    @Test
    void libjvmLoadsQuicklyIntoPrimitiveArrays() throws SymbolFileException {
        Binutils.assumeFile(LIBJVM);
        SymbolTable table = null;
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            long t0 = System.nanoTime();
            table = resolver.load(Binutils.image(LIBJVM));
            best = Math.min(best, System.nanoTime() - t0);
        }
        System.out.printf("libjvm.so: %d functions, best load of 3: %.1f ms%n", table.size(), best / 1e6);
        assertTrue(table.size() > 10_000, "libjvm.so has tens of thousands of functions");
        // Generous bound for a shared 2-core machine; the point is to catch quadratic behaviour.
        assertTrue(best < 3_000_000_000L, "loading libjvm.so took " + best / 1_000_000 + " ms");
        int jni = table.indexOf("JNI_CreateJavaVM");
        assertTrue(jni >= 0);
        assertEquals(jni, table.lookup(table.start(jni) + 1));
    }

    /**
     * The documented load-bias rule on this very process: the kernel mapped the JVM's launcher (a
     * position-independent executable) at a random address, and {@code AT_ENTRY} in the auxiliary
     * vector is where its entry point landed. {@code first mapping start - loadBase + e_entry} must be
     * that address.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void loadBiasOfThisProcessesExecutableIsItsFirstMappingMinusLoadBase() throws Exception {
        Path exe = Path.of("/proc/self/exe").toRealPath();
        byte[] header = Files.readAllBytes(exe);
        assumeTrue(header[4] == 2 && header[5] == 1 && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN,
                "a 64-bit little-endian launcher");
        long entry = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getLong(0x18);
        long atEntry = auxv(9); // AT_ENTRY
        long mappingStart = firstMapping(exe);
        assertTrue(mappingStart != -1, exe + " is not in /proc/self/maps");
        long bias = mappingStart - resolver.loadBase(Binutils.image(exe));
        assertEquals(atEntry, bias + entry);
    }

    /**
     * The same rule for a shared object: libjvm.so is mapped in this process, so the bytes at
     * {@code bias + st_value} of a function in memory are the function's bytes in the file.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void loadBiasOfLibjvmMapsItsFunctionsOntoTheirCodeInMemory() throws Exception {
        Binutils.assumeFile(LIBJVM);
        Path lib = LIBJVM.toRealPath();
        long mappingStart = firstMapping(lib);
        assumeTrue(mappingStart != -1, "libjvm.so is not mapped from " + lib);
        long bias = mappingStart - resolver.loadBase(Binutils.image(lib));
        SymbolTable table = resolver.load(Binutils.image(lib));
        int fn = table.indexOf("JNI_CreateJavaVM");
        long address = table.start(fn);
        ReadelfSection text = Binutils.readelfSections(lib).stream()
                .filter(s -> Long.compareUnsigned(address - s.address(), s.size()) < 0 && s.allocated())
                .findFirst().orElseThrow();
        byte[] inFile = new byte[32];
        try (RandomAccessFile f = new RandomAccessFile(lib.toFile(), "r")) {
            f.seek(text.offset() + (address - text.address()));
            f.readFully(inFile);
        }
        byte[] inMemory = new byte[32];
        try (RandomAccessFile mem = new RandomAccessFile("/proc/self/mem", "r")) {
            mem.seek(bias + address);
            mem.readFully(inMemory);
        } catch (IOException e) {
            assumeTrue(false, "/proc/self/mem is not readable here: " + e);
        }
        assertEquals(HexFormat.of().formatHex(inFile), HexFormat.of().formatHex(inMemory));
    }

    /** The lowest start address of {@code file}'s mappings in this process, or -1 when it is not mapped. */
    private static long firstMapping(Path file) throws IOException {
        long lowest = -1;
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] f = line.trim().split("\\s+", 6);
            if (f.length == 6 && f[5].equals(file.toString())) {
                long start = Long.parseUnsignedLong(f[0].substring(0, f[0].indexOf('-')), 16);
                if (lowest == -1 || Long.compareUnsigned(start, lowest) < 0) {
                    lowest = start;
                }
            }
        }
        return lowest;
    }

    private static long auxv(long type) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Path.of("/proc/self/auxv"))).order(ByteOrder.nativeOrder());
        while (b.remaining() >= 16) {
            long t = b.getLong();
            long v = b.getLong();
            if (t == type) {
                return v;
            }
        }
        throw new AssertionError("no auxv entry " + type);
    }
}
