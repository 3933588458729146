package org.hyperprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.symbols.elf.Binutils.NmSymbol;
import org.hyperprof.symbols.elf.Binutils.ReadelfSection;
import org.hyperprof.symbols.elf.Binutils.ReadelfSymbol;

/**
 * Checks a loaded table of an executable or shared object against {@code readelf -Ws},
 * {@code readelf -SW} and {@code nm}, by the documented rules: every defined function readelf
 * lists is in the table at its address, under the alias the rule picks (best binding, then first),
 * with its size (or, for size 0, the distance to the next function or the section end); and every
 * text symbol nm lists for those functions is at the same address.
 */
final class ToolComparison {

    /** What was compared, for the report. */
    record Counts(String table, int readelfFunctions, int distinctAddresses, int tableSize, int nmText,
            int nmTextFunctions) {
    }

    private ToolComparison() {
    }

    static Counts compare(Path file, SymbolTable table) {
        boolean symtab = Binutils.hasSymtab(file);
        String which = symtab ? ".symtab" : ".dynsym";
        List<ReadelfSymbol> functions = new ArrayList<>();
        for (ReadelfSymbol s : Binutils.readelfSymbols(file, which)) {
            if (s.isDefinedFunction()) {
                functions.add(s);
            }
        }
        assertTrue(!functions.isEmpty(), "readelf lists no function in " + which + " of " + file);
        Map<Integer, ReadelfSection> sections = new HashMap<>();
        for (ReadelfSection s : Binutils.readelfSections(file)) {
            sections.put(s.index(), s);
        }
        TreeMap<Long, List<ReadelfSymbol>> byAddress = new TreeMap<>(Long::compareUnsigned);
        for (ReadelfSymbol s : functions) {
            byAddress.computeIfAbsent(s.value(), k -> new ArrayList<>()).add(s);
        }

        int expectedEntries = 0;
        for (Map.Entry<Long, List<ReadelfSymbol>> group : byAddress.entrySet()) {
            long address = group.getKey();
            ReadelfSymbol kept = null;
            long largest = 0;
            for (ReadelfSymbol s : group.getValue()) {
                if (kept == null || s.bindRank() < kept.bindRank()) {
                    kept = s;
                }
                largest = Math.max(largest, s.size());
            }
            long size = kept.size() != 0 ? kept.size() : largest;
            if (size == 0) {
                ReadelfSection section = sections.get(Integer.parseInt(kept.ndx()));
                long bound = section.address() + section.size();
                Long next = byAddress.higherKey(address);
                if (next != null && Long.compareUnsigned(next, bound) < 0) {
                    bound = next;
                }
                size = Long.compareUnsigned(bound, address) > 0 ? bound - address : 0;
            }
            int index = indexAt(table, address);
            if (size == 0) {
                assertEquals(-1, index, "size-0 function at the end of its section, 0x" + Long.toHexString(address));
                continue;
            }
            expectedEntries++;
            final ReadelfSymbol k = kept;
            assertTrue(index >= 0, () -> k.name() + " at 0x" + Long.toHexString(address) + " is not in the table of "
                    + file);
            assertEquals(kept.name(), table.name(index), "alias kept at 0x" + Long.toHexString(address));
            assertEquals(size, table.symbolSize(index), "size of " + kept.name());
        }
        assertEquals(expectedEntries, table.size(), "functions in the table of " + file);

        Set<String> functionKeys = new HashSet<>();
        for (ReadelfSymbol s : functions) {
            functionKeys.add(s.value() + " " + s.name());
        }
        int nmText = 0;
        int nmTextFunctions = 0;
        for (NmSymbol s : Binutils.nm(file, !symtab)) {
            if ("TtWi".indexOf(s.type()) < 0) {
                continue;
            }
            nmText++;
            if (functionKeys.contains(s.address() + " " + s.name())) {
                nmTextFunctions++;
                assertTrue(indexAt(table, s.address()) >= 0,
                        () -> "nm's " + s + " is not at the start of a table entry");
            }
        }

        for (int i = 0; i < table.size(); i++) {
            long start = table.start(i);
            long size = table.symbolSize(i);
            boolean overlapped = i + 1 < table.size() && Long.compareUnsigned(table.start(i + 1), start + size) < 0;
            if (!overlapped) {
                assertEquals(i, table.lookup(start), table.name(i));
                assertEquals(i, table.lookup(start + size / 2), table.name(i));
                assertEquals(i, table.lookup(start + size - 1), table.name(i));
            }
        }
        return new Counts(which, functions.size(), byAddress.size(), table.size(), nmText, nmTextFunctions);
    }

    /** The entry starting exactly at {@code address}, or -1. */
    static int indexAt(SymbolTable table, long address) {
        int lo = 0;
        int hi = table.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(table.start(mid), address);
            if (c == 0) {
                return mid;
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return -1;
    }
}
