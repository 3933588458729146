package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.sample.SessionDictionary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The code around a program's procedure linkage table is named as perf names it, at every
 * instruction: a recording written here holds one sample at each instruction address of
 * {@code .init}, {@code .plt}, {@code .plt.got} and {@code .plt.sec} (and of {@code .fini}, the
 * other zero-size symbol) of a program built now, and perf script on the same file is the
 * oracle. Programs built with lazy binding, with immediate binding, with IBT PLTs (the only
 * way Debian 12's linker makes a {@code .plt.sec}) and as a fixed-address executable. No sample
 * lands where chance puts it.
 */
class PltNamingAgreementTest {

    private static final long BASE = 0x555555554000L;
    private static final int PID = 4242;

    @TempDir
    static Path dir;

    @BeforeAll
    static void tools() {
        assumeTrue(PerfTool.gccAvailable(), "gcc is not installed");
        assumeTrue(PerfTool.perfInstalled(), "perf is not installed (Debian package linux-perf)");
        assumeTrue(PerfTool.objdumpAvailable(), "objdump (binutils) is not installed");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lazy", "now", "ibt", "no-pie"})
    void everyInstructionOfInitAndThePltIsNamedAsPerfNamesIt(String binding) throws Exception {
        String[] flags = switch (binding) {
            case "lazy" -> new String[] {"-Wl,-z,lazy"};
            case "now" -> new String[] {"-Wl,-z,now"};
            case "no-pie" -> new String[] {"-no-pie", "-Wl,-z,lazy"};
            default -> new String[] {"-fcf-protection=full", "-Wl,-z,ibtplt"};
        };
        Path d = Files.createDirectories(dir.resolve(binding));
        Path exe = PerfTool.compile(d, "busy.c", "busy-" + binding, flags);
        Map<String, List<Long>> sections = PerfTool.instructions(exe, ".init", ".plt", ".plt.got", ".plt.sec",
                ".fini");
        assertTrue(sections.containsKey(".plt") && sections.containsKey(".init"), sections.keySet().toString());
        if (binding.equals("ibt")) {
            assertTrue(sections.containsKey(".plt.sec"), "an IBT build has a .plt.sec: " + sections.keySet());
        }
        long[] segment = PerfTool.executableSegment(exe);
        List<Long> addresses = new ArrayList<>();
        sections.values().forEach(addresses::addAll);

        PerfDataWriter w = new PerfDataWriter().attr(new PerfDataWriter.Attr()
                .sampleType(PerfDataWriter.IP | PerfDataWriter.TID | PerfDataWriter.TIME | PerfDataWriter.PERIOD));
        // A position-independent program is loaded where the kernel likes; a fixed one at its addresses.
        long base = PerfTool.positionIndependent(exe) ? BASE : 0;
        long mapStart = base + (segment[0] & ~0xfffL);
        long mapLength = ((segment[0] + segment[2] + 0xfff) & ~0xfffL) - (segment[0] & ~0xfffL);
        w.comm(PID, "busy", 1);
        w.mmap2(2, PID, mapStart, mapLength, segment[1] & ~0xfffL, exe.toString(), 2);
        long time = 10;
        for (long a : addresses) {
            PerfDataWriter.Sample s = new PerfDataWriter.Sample(2, base + a, PID, time++);
            w.sample(s);
        }
        Path data = w.writeFile(d, "plt.data");

        List<String> perf = perfNames(data);
        List<String> ours = new ArrayList<>();
        try (PerfDataReader r = PerfDataReader.open(data)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults(), true);
            imp.tap(batch -> {
                SessionDictionary dict = imp.dictionary();
                for (int i = 0; i < batch.size; i++) {
                    ours.add(batch.symbol[i] < 0 ? "[unknown]" : dict.symbolName(batch.symbol[i]));
                }
            });
            imp.run(r, null, "plt.data", null, false);
        }
        assertEquals(addresses.size(), perf.size(), "samples perf script prints");
        assertEquals(addresses.size(), ours.size(), "samples imported");
        StringBuilder diff = new StringBuilder();
        int differing = 0;
        for (int i = 0; i < addresses.size(); i++) {
            if (!perf.get(i).equals(ours.get(i))) {
                differing++;
                diff.append(String.format("%n  %s %#x: perf %s, hyperprof %s", sectionOf(sections, addresses.get(i)),
                        addresses.get(i), perf.get(i), ours.get(i)));
            }
        }
        assertEquals(0, differing, differing + " of " + addresses.size() + " addresses named otherwise than perf:"
                + diff);
    }

    private static String sectionOf(Map<String, List<Long>> sections, long address) {
        for (Map.Entry<String, List<Long>> e : sections.entrySet()) {
            if (e.getValue().contains(address)) {
                return e.getKey();
            }
        }
        return "?";
    }

    private static final Pattern SCRIPT_LINE = Pattern.compile("^\\s*[0-9a-f]+ (.*) \\((.*)\\)\\s*$");

    /** Each sample's symbol as {@code perf script -F ip,sym,dso} prints it, in time order. */
    private static List<String> perfNames(Path data) throws Exception {
        String text = PerfTool.run(List.of("perf", "script", "-i", data.toString(), "-F", "ip,sym,dso"), null);
        List<String> names = new ArrayList<>();
        for (String line : text.split("\n")) {
            Matcher m = SCRIPT_LINE.matcher(line);
            if (m.matches()) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}
