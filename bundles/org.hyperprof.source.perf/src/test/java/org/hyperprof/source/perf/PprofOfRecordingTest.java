package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.report.pprof.PprofConsumer;
import org.hyperprof.report.pprof.proto.Label;
import org.hyperprof.report.pprof.proto.Location;
import org.hyperprof.report.pprof.proto.Mapping;
import org.hyperprof.report.pprof.proto.Profile;
import org.hyperprof.report.pprof.proto.Sample;
import org.hyperprof.testing.pprof.GoPprof;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pprof file of an import, read by the real {@code go tool pprof} (which checks a profile's
 * validity as it parses it, so every run here is also that check): a recording made now, with
 * call chains, of a program built now with {@code gcc -g} that forks and execs a shell. pprof's
 * totals of both sample values equal perf report's, {@code -disasm} of a function of the program
 * prints its instructions with their samples (pprof finds the binary by its mapping's file name), {@code -tagfocus=comm=} slices out the shell's samples as perf's
 * {@code --sort comm} counts them, and the raw profile carries the build-ids perf stored.
 * Skipped when perf, gcc or go is not installed.
 */
class PprofOfRecordingTest {

    @TempDir
    static Path dir;
    static Path exe;
    static Path recording;
    static Path pprofFile;
    static Profile profile;

    @BeforeAll
    static void recordImportAndWrite() throws Exception {
        assumeTrue(GoPprof.available(), GoPprof.MISSING);
        // A fixed-address program: go tool pprof's own object reader (Go 1.19's cmd/pprof) does not
        // relocate a position-independent one's addresses, where the standalone pprof (binutils) does.
        exe = PerfTool.programToRecord(dir, "busy.c", "busy", "-g", "-no-pie", "-Wl,--build-id");
        recording = PerfTool.record(dir.resolve("busy.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of(exe.toString(), "1000", "/bin/sh"));
        PprofConsumer pprof = new PprofConsumer();
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(true), false);
            imp.consumer(pprof, PprofConsumer.NAME);
            PerfImport.Result result = imp.run(r, null, "perf.data", null, false);
            assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
        }
        pprofFile = dir.resolve("busy.pb.gz");
        try (OutputStream out = Files.newOutputStream(pprofFile)) {
            pprof.content(ReportRequest.latest(), PprofConsumer.NAME).writeTo(out);
        }
        try (InputStream in = new GZIPInputStream(Files.newInputStream(pprofFile))) {
            profile = Profile.parseFrom(in);
        }
    }

    private static String pprof(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(pprofFile.toString());
        return GoPprof.run(dir, all.toArray(String[]::new));
    }

    private static final Pattern TOTAL = Pattern.compile("of (\\d+)(ns)? total");

    private static long pprofTotal(String... args) throws Exception {
        String text = pprof(args);
        Matcher m = TOTAL.matcher(text);
        assertTrue(m.find(), () -> "no total in pprof's output:\n" + text);
        return Long.parseLong(m.group(1));
    }

    /** perf report's "# Samples: N" and "# Event count (approx.): X" of the recording, for {@code args}. */
    private static long[] perfTotals(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--no-children", "-n"));
        all.addAll(List.of(args));
        String text = PerfTool.report(recording, all.toArray(String[]::new));
        Matcher samples = Pattern.compile("# Samples: (\\d+)").matcher(text);
        Matcher events = Pattern.compile("# Event count \\(approx\\.\\): (\\d+)").matcher(text);
        assertTrue(samples.find() && events.find(), () -> "no totals in perf report:\n" + text);
        return new long[] {Long.parseLong(samples.group(1)), Long.parseLong(events.group(1))};
    }

    @Test
    void topTotalsOfBothSampleValuesAreThoseOfPerfReport() throws Exception {
        long[] perf = perfTotals();
        assertEquals(perf[0], pprofTotal("-top", "-sample_index=0"), "samples");
        assertEquals(perf[1], pprofTotal("-top", "-sample_index=1", "-unit=ns"), "cpu (nanoseconds)");
        assertEquals(perf[1], pprofTotal("-top", "-unit=ns"), "the default sample index is the summed period");
    }

    @Test
    void disasmOfAFunctionOfTheProgramPrintsItsInstructionsWithTheirSamples() throws Exception {
        String text = pprof("-disasm=squares", "-sample_index=0");
        assertTrue(text.contains("ROUTINE ======================== squares"), text);
        // every instruction line is "flat cum address: text"; their flat counts add up to the function's
        long summed = 0;
        int instructions = 0;
        Pattern line = Pattern.compile("^\\s+(\\d+|\\.)\\s+(\\d+|\\.)\\s+([0-9a-f]+):\\s+(.*)$");
        for (String l : text.split("\n")) {
            Matcher m = line.matcher(l);
            if (m.matches()) {
                instructions++;
                summed += m.group(1).equals(".") ? 0 : Long.parseLong(m.group(1));
            }
        }
        Matcher head = Pattern.compile("^\\s+(\\d+)\\s+(\\d+) \\(flat, cum\\)", Pattern.MULTILINE).matcher(text);
        assertTrue(head.find(), text);
        assertTrue(instructions > 3, "pprof disassembled squares:\n" + text);
        assertEquals(Long.parseLong(head.group(1)), summed, text);
        assertEquals(perfSamples("squares"), summed, "squares' samples as perf report counts them");
    }

    /** perf report's sample count of a symbol ({@code --sort sym -n}, flat). */
    private static long perfSamples(String symbol) throws Exception {
        String text = PerfTool.report(recording, "--no-children", "-n", "--sort", "sym", "-g", "none");
        Matcher m = Pattern.compile("^\\s+[0-9.]+%\\s+(\\d+)\\s+\\[\\.\\] " + symbol + "\\s*$", Pattern.MULTILINE)
                .matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Test
    void tagfocusOnCommSlicesOutThatProcess() throws Exception {
        long[] perf = perfTotals("--comm", "sh");
        assertTrue(perf[0] > 0, "the shell has samples");
        assertEquals(perf[0], pprofTotal("-top", "-sample_index=0", "-tagfocus=comm=^sh$"));
        assertEquals(perf[1], pprofTotal("-top", "-sample_index=1", "-unit=ns", "-tagfocus=comm=^sh$"));
    }

    @Test
    void theMainBinaryPprofNamesIsTheProgramMostSamplesRanIn() throws Exception {
        Mapping first = profile.getMapping(0);
        assertEquals(exe.toString(), profile.getStringTable((int) first.getFilename()),
                "pprof takes the first mapping for the main binary");
        assertTrue(pprof("-top").lines().anyMatch(l -> l.equals("File: " + exe.getFileName())),
                "pprof's File: line names the program");
    }

    @Test
    void theRawProfileCarriesTheBuildIdsPerfStored() throws Exception {
        String raw = pprof("-raw");
        Map<String, String> perf = new HashMap<>();
        for (String line : PerfTool.run(List.of("perf", "buildid-list", "-i", recording.toString()), null).split("\n")) {
            String[] f = line.strip().split("\\s+", 2);
            if (f.length == 2) {
                perf.put(f[1], f[0]);
            }
        }
        String program = perf.get(exe.toString());
        assertTrue(program != null, "perf stored the program's build-id: " + perf);
        assertTrue(raw.contains(program) && raw.contains(exe.toString()), raw);
        for (Mapping m : profile.getMappingList()) {
            String file = profile.getStringTable((int) m.getFilename());
            if (perf.containsKey(file)) {
                assertEquals(perf.get(file), profile.getStringTable((int) m.getBuildId()), file);
            }
        }
    }

    @Test
    void locationsAreTheSampledAddressesInsideTheirMappings() {
        Map<Long, Mapping> mappings = new HashMap<>();
        profile.getMappingList().forEach(m -> mappings.put(m.getId(), m));
        for (Location l : profile.getLocationList()) {
            Mapping m = mappings.get(l.getMappingId());
            assertTrue(m != null, "location " + l.getId() + " has a mapping");
            if (m.getMemoryLimit() != 0) {
                assertTrue(Long.compareUnsigned(l.getAddress(), m.getMemoryStart()) >= 0
                        && Long.compareUnsigned(l.getAddress(), m.getMemoryLimit()) < 0, l + " in " + m);
            }
            if (l.getLineCount() == 0) {
                assertTrue(m.getMemoryLimit() != 0 && l.getAddress() != 0, "a bare address lies in a placed mapping: " + l);
            }
        }
        assertFalse(profile.getFunctionList().stream()
                .anyMatch(f -> profile.getStringTable((int) f.getName()).endsWith(".so.6 (no symbols)")
                        || profile.getStringTable((int) f.getName()).endsWith("busy (no symbols)")),
                "no file's addresses are lumped into one function");
    }

    @Test
    void noTwoMappingsOfOneProcessOverlap() {
        Map<Long, Mapping> mappings = new HashMap<>();
        profile.getMappingList().forEach(m -> mappings.put(m.getId(), m));
        Map<String, Set<Long>> byProcess = new HashMap<>();
        Map<Long, Location> locations = new HashMap<>();
        profile.getLocationList().forEach(l -> locations.put(l.getId(), l));
        for (Sample s : profile.getSampleList()) {
            String pid = "kernel-and-unknown";
            for (Label label : s.getLabelList()) {
                if (profile.getStringTable((int) label.getKey()).equals("pid")) {
                    pid = Long.toString(label.getNum());
                }
            }
            for (long id : s.getLocationIdList()) {
                byProcess.computeIfAbsent(pid, k -> new java.util.HashSet<>()).add(locations.get(id).getMappingId());
            }
        }
        for (Map.Entry<String, Set<Long>> e : byProcess.entrySet()) {
            List<Mapping> ms = e.getValue().stream().map(mappings::get).filter(m -> m.getMemoryLimit() != 0).toList();
            for (int i = 0; i < ms.size(); i++) {
                for (int j = i + 1; j < ms.size(); j++) {
                    Mapping a = ms.get(i);
                    Mapping b = ms.get(j);
                    boolean overlap = Long.compareUnsigned(a.getMemoryStart(), b.getMemoryLimit()) < 0
                            && Long.compareUnsigned(b.getMemoryStart(), a.getMemoryLimit()) < 0;
                    assertFalse(overlap, "process " + e.getKey() + ": " + a + " and " + b);
                }
            }
        }
    }
}
