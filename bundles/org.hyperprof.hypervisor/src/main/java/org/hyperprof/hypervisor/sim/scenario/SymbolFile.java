package org.hyperprof.hypervisor.sim.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.InputLimit;

/**
 * The functions of one image as the simulator needs them: where each named function starts and
 * how long it is, so that a workload's program counters fall inside the function it names.
 *
 * <p>Reads the same System.map / nm / /proc/kallsyms text the {@code kallsyms} resolver reads
 * ({@code c0100000 T name}, optionally a tab and {@code [module]}), with the same size rule: a
 * function extends to the next symbol that has a place in the image, and the last one to the end
 * of the image (at most one page). Keeping the rule identical guarantees that a PC the simulator
 * puts inside a function resolves back to that function.
 */
public final class SymbolFile {

    /** Size given to a function that no higher symbol bounds: one x86 page, as the resolver assumes. */
    public static final long LAST_FUNCTION_SIZE = 4096;

    private static final List<String> END_MARKERS = List.of("_etext", "_einittext", "_edata", "_end", "__bss_stop");

    private final String location;
    private final String[] names;
    private final long[] starts;
    private final long[] sizes;
    /** Function name to index, or -2 when the name is defined more than once. */
    private final Map<String, Integer> byName;
    /** Names left out as aliases (a later name at a function's address), to the function kept there. */
    private final Map<String, Integer> aliases = new HashMap<>();

    private SymbolFile(String location, String[] names, long[] starts, long[] sizes) {
        this.location = location;
        this.names = names;
        this.starts = starts;
        this.sizes = sizes;
        this.byName = new HashMap<>();
        for (int i = 0; i < names.length; i++) {
            byName.merge(names[i], i, (a, b) -> -2);
        }
    }

    /**
     * Reads a symbol file, at most {@code limit} of it.
     *
     * @param imageEnd first address past the image in file addresses (bounds the last function)
     * @throws ScenarioException naming the file and line of a malformed entry
     * @throws IOException when the file cannot be read; an
     *                     {@link org.hyperprof.api.input.InputFileException} when it names no
     *                     regular file or holds more than the limit
     */
    public static SymbolFile read(ImageSource source, long imageEnd, InputLimit limit)
            throws ScenarioException, IOException {
        String location = source.location();
        List<long[]> places = new ArrayList<>(); // {address, kind(1 text, 2 place), nameIndex}
        List<String> textNames = new ArrayList<>();
        try (InputStream in = limit.bound(source.content().open(), location);
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            String line;
            int lineNo = 0;
            while ((line = reader.readLine()) != null) {
                lineNo++;
                String trimmed = line.strip();
                if (trimmed.isEmpty()) {
                    continue;
                }
                String[] f = trimmed.split("[ \t]+");
                if (f.length == 2 && f[0].length() == 1 && "Uwv".indexOf(f[0].charAt(0)) >= 0) {
                    continue; // nm's undefined reference has no address
                }
                if (f.length < 3 || f.length > 4) {
                    throw new ScenarioException(location + ":" + lineNo + ": expected '<hex address> <type> <name>'"
                            + " with an optional '[module]', e.g. 'c0100000 T _stext'; found '" + trimmed + "'");
                }
                long address;
                try {
                    address = Long.parseUnsignedLong(f[0], 16);
                } catch (NumberFormatException e) {
                    throw new ScenarioException(location + ":" + lineNo + ": address '" + f[0]
                            + "' is not plain hexadecimal (expected e.g. c0100000)");
                }
                if (f[1].length() != 1 || !Character.isLetter(f[1].charAt(0))) {
                    throw new ScenarioException(location + ":" + lineNo + ": symbol type '" + f[1]
                            + "' is not a single letter such as T, t, D or B");
                }
                if (f.length == 4 && !(f[3].startsWith("[") && f[3].endsWith("]") && f[3].length() > 2)) {
                    throw new ScenarioException(location + ":" + lineNo + ": '" + f[3]
                            + "' after the name is not a module column '[module]'");
                }
                char type = f[1].charAt(0);
                String name = f[2];
                boolean text = "TtWw".indexOf(type) >= 0 && !END_MARKERS.contains(name);
                boolean noPlace = type == 'U' || type == 'C' || type == 'c'
                        || ((type == 'A' || type == 'a') && name.startsWith("__crc_"));
                if (noPlace) {
                    continue;
                }
                if (text) {
                    places.add(new long[] {address, 1, textNames.size()});
                    textNames.add(name);
                } else {
                    places.add(new long[] {address, 2, -1});
                }
            }
        }
        if (textNames.isEmpty()) {
            throw new ScenarioException(location + ": holds no function (no T, t, W or w symbol); a workload needs"
                    + " the functions it names");
        }
        long addressBits = 0;
        for (long[] p : places) {
            addressBits |= p[0];
        }
        if (addressBits == 0) {
            // Every name would be an alias of the first: say why, as the kallsyms resolver does.
            throw new ScenarioException(location + ": every one of its " + places.size() + " addresses is 0: it was"
                    + " read without permission to see kernel addresses (kernel.kptr_restrict, or a non-root"
                    + " reader). Read /proc/kallsyms as root with kptr_restrict at 0 or 1, or use the kernel's"
                    + " System.map");
        }
        long[][] sorted = places.toArray(new long[0][]);
        Arrays.sort(sorted, (a, b) -> Long.compareUnsigned(a[0], b[0])); // stable
        int n = textNames.size();
        String[] names = new String[n];
        long[] starts = new long[n];
        long[] sizes = new long[n];
        int k = 0;
        long previousText = -1;
        boolean havePrevious = false;
        Map<String, Integer> aliases = new HashMap<>();
        for (int i = 0; i < sorted.length; i++) {
            long[] p = sorted[i];
            if (p[1] != 1) {
                continue;
            }
            if (havePrevious && p[0] == previousText) {
                aliases.putIfAbsent(textNames.get((int) p[2]), k - 1);
                continue; // an alias: the first name at an address is the one resolvers report
            }
            havePrevious = true;
            previousText = p[0];
            long next = -1;
            for (int j = i + 1; j < sorted.length; j++) {
                if (sorted[j][0] != p[0]) {
                    next = sorted[j][0];
                    break;
                }
            }
            long size;
            if (next == -1) {
                long toEnd = imageEnd - p[0];
                size = toEnd > 0 ? Math.min(toEnd, LAST_FUNCTION_SIZE) : LAST_FUNCTION_SIZE;
            } else {
                size = next - p[0];
            }
            names[k] = textNames.get((int) p[2]);
            starts[k] = p[0];
            sizes[k] = size;
            k++;
        }
        SymbolFile file = new SymbolFile(location, Arrays.copyOf(names, k), Arrays.copyOf(starts, k),
                Arrays.copyOf(sizes, k));
        aliases.keySet().removeAll(file.byName.keySet()); // a name also kept elsewhere is not only an alias
        file.aliases.putAll(aliases);
        return file;
    }

    /**
     * The functions of a table another format's resolver read (ELF, ...): each keeps the start and
     * size the resolver gave it, so that a PC the simulator puts inside a function resolves back
     * to it with the same resolver.
     */
    public static SymbolFile of(String location, SymbolTable table) {
        int n = table.size();
        String[] names = new String[n];
        long[] starts = new long[n];
        long[] sizes = new long[n];
        for (int i = 0; i < n; i++) {
            names[i] = table.name(i);
            starts[i] = table.start(i);
            sizes[i] = table.symbolSize(i);
        }
        return new SymbolFile(location, names, starts, sizes);
    }

    public String location() {
        return location;
    }

    /** Number of functions. */
    public int size() {
        return names.length;
    }

    public String name(int index) {
        return names[index];
    }

    /** Address in the file (add the image's load bias for the run-time address). */
    public long start(int index) {
        return starts[index];
    }

    public long length(int index) {
        return sizes[index];
    }

    /** Index of the function, -1 when the file has none of that name, -2 when several share it. */
    public int indexOf(String name) {
        Integer i = byName.get(name);
        return i == null ? -1 : i;
    }

    /**
     * The function kept at the address of {@code name} when the file gives that address an earlier
     * name (the first name at an address is the one resolvers report), or -1.
     */
    public int aliasOf(String name) {
        Integer i = aliases.get(name);
        return i == null ? -1 : i;
    }

    /** A few function names close to {@code name}, for "did you mean" messages. */
    public List<String> similar(String name) {
        List<String> out = new ArrayList<>();
        String lower = name.toLowerCase();
        String stem = lower.length() > 4 ? lower.substring(0, 4) : lower;
        for (String n : names) {
            String l = n.toLowerCase();
            if (l.contains(lower) || lower.contains(l) || l.startsWith(stem)) {
                out.add(n);
                if (out.size() == 5) {
                    break;
                }
            }
        }
        return out;
    }
}
