package org.hyperprof.report.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.report.pprof.proto.Profile;
import org.hyperprof.testing.pprof.GoPprof;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens written profiles with the real pprof ({@code go tool pprof}, Debian's golang-go, which CI
 * installs) and checks that its totals, its flat and cumulative values per function and its label
 * breakdown equal what the workload generated. Skipped where {@code go} is not installed.
 */
class GoPprofTest {

    private static final Pattern SHOWING = Pattern.compile(
            "Showing nodes accounting for (\\d+), ([\\d.]+)% of (\\d+) total");
    /** A -top row: flat flat% sum% cum cum% name (the name may hold spaces). */
    private static final Pattern ROW = Pattern.compile(
            "^\\s*(\\d+)\\s+[\\d.]+%\\s+[\\d.]+%\\s+(\\d+)\\s+[\\d.]+%\\s+(.+)$");

    @TempDir
    static Path dir;

    private static boolean goAvailable;

    @BeforeAll
    static void findGo() {
        goAvailable = GoPprof.available();
    }

    /** Runs {@code go tool pprof ARGS FILE} and returns its standard output; fails on a non-zero exit. */
    static String pprof(Path file, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(file.toString());
        return GoPprof.run(dir, all.toArray(String[]::new));
    }

    /** The -top table: total (from the "Showing nodes" line), then flat and cum per function. */
    record Top(long accounted, long total, Map<String, Long> flat, Map<String, Long> cum) {
        static Top parse(String text) {
            Matcher m = SHOWING.matcher(text);
            assertTrue(m.find(), () -> "no 'Showing nodes accounting for' line in:\n" + text);
            Map<String, Long> flat = new TreeMap<>();
            Map<String, Long> cum = new TreeMap<>();
            boolean table = false;
            for (String line : text.split("\n")) {
                if (line.trim().startsWith("flat")) {
                    table = true;
                    continue;
                }
                Matcher row = ROW.matcher(line);
                if (table && row.matches()) {
                    String name = row.group(3).trim();
                    flat.put(name, Long.parseLong(row.group(1)));
                    cum.put(name, Long.parseLong(row.group(2)));
                }
            }
            return new Top(Long.parseLong(m.group(1)), Long.parseLong(m.group(3)), flat, cum);
        }

        Map<String, Long> nonZeroFlat() {
            Map<String, Long> f = new TreeMap<>(flat);
            f.values().removeIf(v -> v == 0);
            return f;
        }
    }

    private static Path write(RandomWorkload w, String name) throws Exception {
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(w.info);
        for (SampleBatch b : w.batches) {
            pprof.samples(b);
        }
        return Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve(name));
    }

    private static final String[] ALL_NODES = {"-top", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0"};

    private static String[] top(String... more) {
        List<String> args = new ArrayList<>(List.of(ALL_NODES));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void pprofTotalsAndFlatSamplesPerFunctionEqualOurs() throws Exception {
        assumeTrue(goAvailable, GoPprof.MISSING);
        RandomWorkload w = new RandomWorkload(1, 42, 12, 4096, NetworkProfile.CYCLES_100000);
        Path file = write(w, "random.pb.gz");

        Top samples = Top.parse(pprof(file, top("-sample_index=samples")));
        assertEquals(12 * 4096, w.totals[0]);
        assertEquals(w.totals[0], samples.total());
        assertEquals(w.totals[0], samples.accounted());
        assertEquals(w.flat.get(0), samples.nonZeroFlat());
        assertEquals(w.cum.get(0), samples.cum(), "cumulative values count each sample once per function on its stack");

        Top events = Top.parse(pprof(file, top("-sample_index=events")));
        assertEquals(w.totals[0] * 100000, events.total());
        w.flat.get(0).forEach((fn, n) -> assertEquals(n * 100000, events.flat().get(fn), fn));
    }

    @Test
    void pprofSeesTheSameTotalsAsProtobufJava() throws Exception {
        assumeTrue(goAvailable, GoPprof.MISSING);
        RandomWorkload w = new RandomWorkload(2, 7, 4, 4096, NetworkProfile.CYCLES_100000);
        Path file = write(w, "roundtrip.pb.gz");
        Profile parsed = Profiles.read(file);
        Top top = Top.parse(pprof(file, top()));
        assertEquals(Profiles.total(parsed, "events"), top.total(), "the default sample type is events");
        assertEquals(Profiles.flat(parsed, "events"), top.nonZeroFlat());
    }

    @Test
    void pprofSplitsSamplesByTheDomainLabel() throws Exception {
        assumeTrue(goAvailable, GoPprof.MISSING);
        RandomWorkload w = new RandomWorkload(3, 99, 3, 4096, NetworkProfile.CYCLES_100000);
        Path file = write(w, "domains.pb.gz");
        String tags = pprof(file, "-tags", "-sample_index=samples");
        Map<String, Long> domains = new TreeMap<>();
        Matcher m = Pattern.compile("domain: Total [\\d.]+\\n((?:\\s+[\\d.]+ \\(\\s*[\\d.]+%\\): .+\\n)+)")
                .matcher(tags);
        assertTrue(m.find(), () -> "no domain label breakdown in:\n" + tags);
        for (String line : m.group(1).split("\n")) {
            Matcher row = Pattern.compile("\\s+([\\d.]+) \\(\\s*[\\d.]+%\\): (.+)").matcher(line);
            assertTrue(row.matches(), line);
            domains.put(row.group(2).trim(), (long) Double.parseDouble(row.group(1)));
        }
        assertEquals(w.perDomain, domains);
        for (String domain : List.of("Domain-0", "guest5")) {
            Top focused = Top.parse(pprof(file, top("-sample_index=samples", "-tagfocus=domain=" + domain)));
            assertEquals(w.perDomain.get(domain), focused.accounted(), domain);
        }
        Top dom0 = Top.parse(pprof(file, top("-sample_index=samples", "-tagfocus=domain_id=0")));
        assertEquals(w.perDomain.get("Domain-0"), dom0.accounted(), "numeric label domain_id 0 survives");
    }

    /**
     * A source that names threads (a perf.data import) labels each sample with its pid, tid and
     * comm: pprof's -tagfocus slices by them.
     */
    @Test
    void pprofSlicesAnImportsSamplesByCommPidAndTid() throws Exception {
        assumeTrue(goAvailable, GoPprof.MISSING);
        RandomWorkload w = new RandomWorkload(5, 17, 3, 4096, NetworkProfile.CYCLES_100000);
        String[] names = {"make", "cc1", "worker-renamed"};
        int[] ids = new int[names.length];
        for (int c = 0; c < names.length; c++) {
            ids[c] = w.dictionary.comm(names[c]);
        }
        Map<String, Long> perComm = new TreeMap<>();
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(w.info);
        for (SampleBatch b : w.batches) {
            int[] pid = new int[b.size];
            int[] tid = new int[b.size];
            int[] comm = new int[b.size];
            for (int i = 0; i < b.size; i++) {
                int c = i % 3;
                pid[i] = 100 + Math.min(c, 1);
                tid[i] = 100 + c;
                comm[i] = ids[c];
                perComm.merge(names[c], 1L, Long::sum);
            }
            pprof.samples(new SampleBatch(b.sessionId, b.size, b.domain, b.vcpu, b.mode, b.counter, b.pc, b.image,
                    b.symbol, b.weight, b.time, b.cpu, pid, tid, comm, b.flags, b.chainStart, b.chainPc, b.chainImage,
                    b.chainSymbol, b.chainMode));
        }
        Path file = Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("threads.pb.gz"));
        for (String name : names) {
            Top focused = Top.parse(pprof(file, top("-sample_index=samples", "-tagfocus=comm=" + name)));
            assertEquals(perComm.get(name), focused.accounted(), name);
        }
        Top process = Top.parse(pprof(file, top("-sample_index=samples", "-tagfocus=pid=101")));
        assertEquals(perComm.get("cc1") + perComm.get("worker-renamed"), process.accounted(), "pid 101");
        Top thread = Top.parse(pprof(file, top("-sample_index=samples", "-tagfocus=tid=102")));
        assertEquals(perComm.get("worker-renamed"), thread.accounted(), "tid 102");
    }

    @Test
    void pprofSelectsEachCounterOfAMultiCounterSessionByName() throws Exception {
        assumeTrue(goAvailable, GoPprof.MISSING);
        RandomWorkload w = new RandomWorkload(4, 5, 4, 4096, NetworkProfile.CYCLES_100000,
                NetworkProfile.INSTRUCTIONS_50000);
        Path file = write(w, "two-counters.pb.gz");
        Top instructions = Top.parse(pprof(file, top("-sample_index=samples:INST_RETIRED")));
        assertEquals(w.totals[1], instructions.total());
        assertEquals(w.flat.get(1), instructions.nonZeroFlat());
        Top cycles = Top.parse(pprof(file, top("-sample_index=events:CPU_CLK_UNHALTED")));
        assertEquals(w.totals[0] * 100000, cycles.total());
    }

    @Test
    void pprofReadsTheProfilesCommentsPeriodAndDuration() throws Exception {
        assumeTrue(goAvailable, GoPprof.MISSING);
        NetworkProfile net = new NetworkProfile(11);
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(net.info);
        pprof.samples(net.batch(0));
        pprof.sessionEnded(net.summary());
        Path file = Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("net.pb.gz"));
        String raw = pprof(file, "-raw");
        assertTrue(raw.contains("PeriodType: events count"), raw);
        assertTrue(raw.contains("Period: 100000"), raw);
        assertTrue(raw.contains("Duration: 1s"), raw);
        assertTrue(raw.contains("Comment: session ended: completed;"), raw);
        assertTrue(raw.contains("samples/count events/count[dflt]"), raw);
    }
}
