package org.hyperprof.symbols.kallsyms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * System.map, nm output and /proc/kallsyms text as anyone may hand it over: the resolver either
 * gives a table whose every symbol is found again at its own start, or refuses the text with its
 * typed error. Anything else (another exception, a hang, running out of memory) is a finding.
 *
 * <p>In CI the inputs under {@code KallsymsFuzzTestInputs/} are replayed as ordinary tests; the
 * README's development section gives the command that fuzzes.
 */
class KallsymsFuzzTest {

    private final KallsymsResolver resolver = new KallsymsResolver();

    @FuzzTest(maxDuration = "10m")
    void systemMapOrKallsymsText(byte[] text) {
        SymbolTable table;
        try {
            table = resolver.load("vmlinux", "fuzz/System.map", text);
        } catch (SymbolFileException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a refusal says why");
            return;
        }
        for (int i = 0; i < table.size(); i++) {
            if (i > 0) {
                assertTrue(Long.compareUnsigned(table.start(i - 1), table.start(i)) <= 0, "symbols in address order");
            }
            int found = table.lookup(table.start(i));
            assertTrue(found >= 0, () -> "a symbol's start resolves: " + Long.toHexString(table.start(0)));
            assertEquals(table.start(i), table.start(found), "the symbol found starts where it was asked");
        }
    }
}
