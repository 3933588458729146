package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SessionDictionary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session's image mappings and build-ids against perf's own reading of a recording made now
 * of a program built now with {@code gcc -g}: the program's executable mappings are those
 * {@code perf script --show-mmap-events} prints for it, the kernel's is perf's kernel map (its
 * addresses as file offsets), and every build-id is the one {@code perf buildid-list} prints, the
 * program's also the one {@code readelf -n} reads in it. Skipped when perf or gcc is not installed.
 */
class ImageMappingsAgreementTest {

    @TempDir
    static Path dir;
    static Path exe;
    static Path recording;
    static SessionDictionary dictionary;

    @BeforeAll
    static void recordAndImport() throws Exception {
        exe = PerfTool.programToRecord(dir, "busy.c", "busy", "-g", "-Wl,--build-id");
        recording = PerfTool.record(dir.resolve("busy.data"), List.of("-e", "cpu-clock", "-c", "100000"),
                List.of(exe.toString(), "300"));
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults(), false);
            PerfImport.Result result = imp.run(r, null, "perf.data", null, false);
            assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
            dictionary = imp.dictionary();
        }
    }

    /** One mapping as both sides give it: process, addresses and file offset. */
    record Placed(int pid, long start, long limit, long fileOffset) implements Comparable<Placed> {
        @Override
        public int compareTo(Placed o) {
            int c = Integer.compare(pid, o.pid);
            return c != 0 ? c : Long.compareUnsigned(start, o.start);
        }

        @Override
        public String toString() {
            return pid + ":[0x" + Long.toHexString(start) + ", 0x" + Long.toHexString(limit) + ") @ 0x"
                    + Long.toHexString(fileOffset);
        }
    }

    // "busy 4396 11865.667749: PERF_RECORD_MMAP2 4396/4396: [0x55de58c7e000(0x1000) @ 0x1000 fe:00 2146546 0]: r-xp /x/busy"
    private static final Pattern MMAP = Pattern.compile(
            "PERF_RECORD_MMAP2? (-?\\d+)/-?\\d+: \\[0x([0-9a-f]+)\\(0x([0-9a-f]+)\\) @ (0x[0-9a-f]+|0)[^\\]]*\\]: (\\S+) (.*)$");

    /** perf's map records for {@code file} (executable ones), as {@code perf script --show-mmap-events} prints them. */
    private static TreeSet<Placed> perfMappings(String file) throws Exception {
        TreeSet<Placed> out = new TreeSet<>();
        String text = PerfTool.run(List.of("perf", "script", "-i", recording.toString(), "--show-mmap-events"), null);
        for (String line : text.split("\n")) {
            Matcher m = MMAP.matcher(line);
            if (m.find() && m.group(6).strip().equals(file) && m.group(5).contains("x")) {
                long start = Long.parseUnsignedLong(m.group(2), 16);
                long length = Long.parseUnsignedLong(m.group(3), 16);
                long pgoff = Long.parseUnsignedLong(m.group(4).replace("0x", ""), 16);
                out.add(new Placed(Integer.parseInt(m.group(1)), start, start + length, pgoff));
            }
        }
        return out;
    }

    private static int image(String name) {
        for (int i = 0; i < dictionary.imageCount(); i++) {
            if (dictionary.imageName(i).equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static TreeSet<Placed> ourMappings(int image) {
        TreeSet<Placed> out = new TreeSet<>();
        for (int i = 0; i < dictionary.mappingCount(); i++) {
            ImageMapping m = dictionary.mapping(i);
            if (m.image() == image) {
                out.add(new Placed(m.pid(), m.start(), m.limit(), m.fileOffset()));
            }
        }
        return out;
    }

    @Test
    void theProgramsMappingsAreThoseOfItsMapRecords() throws Exception {
        int program = image(exe.toString());
        assertTrue(program >= 0, "the program has samples");
        TreeSet<Placed> perf = perfMappings(exe.toString());
        assertFalse(perf.isEmpty(), "perf script shows the program's map records");
        assertEquals(perf.toString(), ourMappings(program).toString());
    }

    @Test
    void theKernelsMappingIsPerfsKernelMapWithItsAddressesAsOffsets() throws Exception {
        int kernel = image("[kernel.kallsyms]");
        assumeTrue(kernel >= 0, "the recording has kernel samples");
        List<String> expected = new ArrayList<>();
        for (Placed p : perfMappings("[kernel.kallsyms]_text")) {
            expected.add(new Placed(-1, p.start(), p.limit(), p.start()).toString());
        }
        assertFalse(expected.isEmpty(), "perf script shows the kernel's map record");
        assertEquals(expected.toString(), ourMappings(kernel).toString());
    }

    @Test
    void everyMappingIsOfANamedImageAndNoneEndsBeforeItStarts() {
        assertTrue(dictionary.mappingCount() > 0);
        for (int i = 0; i < dictionary.mappingCount(); i++) {
            ImageMapping m = dictionary.mapping(i);
            assertTrue(m.image() >= 0 && m.image() < dictionary.imageCount(), m.toString());
            assertTrue(Long.compareUnsigned(m.start(), m.limit()) < 0, m.toString());
        }
    }

    @Test
    void buildIdsAreThoseOfPerfBuildidListAndOfTheProgramsNote() throws Exception {
        Map<String, String> perf = new HashMap<>();
        for (String line : PerfTool.run(List.of("perf", "buildid-list", "-i", recording.toString()), null).split("\n")) {
            String[] f = line.strip().split("\\s+", 2);
            if (f.length == 2) {
                perf.put(f[1], f[0]);
            }
        }
        String note = null;
        for (String line : PerfTool.run(List.of("readelf", "-n", exe.toString()), null).split("\n")) {
            if (line.strip().startsWith("Build ID:")) {
                note = line.strip().substring("Build ID:".length()).strip();
            }
        }
        assertNotNull(note, "readelf -n shows the program's build-id");
        int program = image(exe.toString());
        assertEquals(note, dictionary.imageBuildId(program), "the program's build-id");
        int named = 0;
        for (int i = 0; i < dictionary.imageCount(); i++) {
            String id = perf.get(dictionary.imageName(i));
            if (id != null) {
                assertEquals(id, dictionary.imageBuildId(i), dictionary.imageName(i));
                named++;
            }
        }
        assertTrue(named >= 2, "perf lists build-ids of the program and of libraries with samples: " + perf);
    }
}
