package org.hyperprof.symbols.kallsyms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.junit.jupiter.api.Test;

/** Files of real size: a synthetic 200 000-line kallsyms and this machine's /proc/kallsyms. */
class LargeKallsymsTest {

    private static final Path PROC_KALLSYMS = Path.of("/proc/kallsyms");
    private static final Set<String> END_MARKERS = Set.of("_etext", "_einittext", "_edata", "_end", "__bss_stop");

    private final KallsymsResolver resolver = new KallsymsResolver();

    /**
     * Kernel text in order, then modules whose symbols come in a scrambled order, with data lines and
     * aliases, like a real /proc/kallsyms of a machine with many modules.
     */
    static byte[] syntheticKallsyms(int kernelFunctions, int modules, int functionsPerModule) {
        StringBuilder out = new StringBuilder((kernelFunctions + modules * functionsPerModule) * 48);
        long address = 0xffffffff81000000L;
        for (int i = 0; i < kernelFunctions; i++) {
            out.append(Long.toHexString(address)).append(i % 2 == 0 ? " T " : " t ").append("kernel_fn_").append(i).append('\n');
            if (i % 50 == 0) {
                out.append(Long.toHexString(address)).append(" T kernel_alias_").append(i).append('\n');
            }
            address += 0x40 + (i % 7) * 0x10;
        }
        out.append(Long.toHexString(address)).append(" T _etext\n");
        out.append(Long.toHexString(address + 0x100000)).append(" D init_task\n");
        long moduleBase = 0xffffffffc0000000L;
        for (int m = 0; m < modules; m++) {
            for (int k = 0; k < functionsPerModule; k++) {
                int f = (k * 7919) % functionsPerModule; // a permutation: functionsPerModule is not a multiple of 7919
                out.append(Long.toHexString(moduleBase + f * 0x80L)).append(" t mod").append(m).append("_fn_").append(f)
                        .append("\t[mod").append(m).append("]\n");
            }
            out.append(Long.toHexString(moduleBase + functionsPerModule * 0x80L)).append(" d mod").append(m)
                    .append("_data\t[mod").append(m).append("]\n");
            moduleBase += 0x100000;
        }
        return out.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void twoHundredThousandLinesOfKernelAndScrambledModulesLoadWhole() throws SymbolFileException {
        // How fast is a benchmark's question, not a test's: a timed assertion failed under load in CI.
        byte[] data = syntheticKallsyms(120_000, 100, 780);
        ImageSource source = new ImageSource("vmlinux", "kallsyms", "synthetic-kallsyms",
                () -> new ByteArrayInputStream(data));
        SymbolTable table = resolver.load(source);

        assertEquals(120_000 + 100 * 780, table.size());
        assertEquals("mod42_fn_0", table.name(table.lookup(0xffffffffc0000000L + 42 * 0x100000L)));
        assertEquals(0x80, table.symbolSize(table.indexOf("mod3_fn_5")));
    }

    @Test
    void everyTextSymbolOfThisMachinesProcKallsymsResolvesToItselfOrAnAlias() throws IOException, SymbolFileException {
        assumeTrue(Files.isReadable(PROC_KALLSYMS), "/proc/kallsyms is not readable here");
        byte[] data = Files.readAllBytes(PROC_KALLSYMS);
        String text = new String(data, StandardCharsets.US_ASCII);
        Map<Long, Set<String>> textNamesAt = new HashMap<>();
        boolean anyAddress = false;
        for (String line : text.split("\n")) {
            String[] fields = line.split("[ \t]+");
            if (fields.length < 3) {
                continue;
            }
            long address = Long.parseUnsignedLong(fields[0], 16);
            anyAddress |= address != 0;
            char type = fields[1].charAt(0);
            if ("TtWw".indexOf(type) >= 0 && !END_MARKERS.contains(fields[2])) {
                textNamesAt.computeIfAbsent(address, a -> new HashSet<>()).add(fields[2]);
            }
        }
        assumeTrue(anyAddress, "/proc/kallsyms shows only zero addresses here (kptr_restrict)");

        SymbolTable table = resolver.load(new ImageSource("vmlinux", "kallsyms", PROC_KALLSYMS.toString(),
                () -> new ByteArrayInputStream(data)));

        assertEquals(textNamesAt.size(), table.size(), "one function per distinct text address");
        for (Map.Entry<Long, Set<String>> at : textNamesAt.entrySet()) {
            long address = at.getKey();
            int index = table.lookup(address);
            assertTrue(index >= 0, "no function at 0x" + Long.toHexString(address) + " " + at.getValue());
            assertEquals(address, table.start(index), "0x" + Long.toHexString(address));
            assertTrue(at.getValue().contains(table.name(index)),
                    table.name(index) + " is not one of " + at.getValue());
        }
    }
}
