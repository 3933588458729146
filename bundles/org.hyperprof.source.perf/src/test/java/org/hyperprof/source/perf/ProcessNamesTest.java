package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * perf's rules for a sample's comm and thread (thread.c, comm.c, machine.c) on recordings written
 * here record by record: each rule with the samples that show it.
 */
class ProcessNamesTest {

    @TempDir
    Path dir;

    private static final int USER = 2;

    /**
     * The report by {@code keys} of the recording, counted from batches; the same import without
     * callchains, which counts each sample straight into the report, must give the same rows.
     */
    private SortedReport report(PerfDataWriter w, String keys) throws Exception {
        Path file = w.writeFile(dir, keys.replace(',', '-') + ".data");
        SortedReport batches = report(file, keys, true);
        assertEquals(batches.rows(), report(file, keys, false).rows(), "report-only import's rows");
        return batches;
    }

    private static SortedReport report(Path file, String keys, boolean callchains) throws Exception {
        try (PerfDataReader r = PerfDataReader.open(file)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(callchains),
                    false);
            imp.sortBy(SortKeys.parse(keys));
            imp.run(r, null, "perf.data", null, false);
            return imp.sorted();
        }
    }

    private static void samples(PerfDataWriter w, int pid, int tid, int n, long time) {
        for (int i = 0; i < n; i++) {
            Sample s = new Sample(USER, 0x401000, pid, time + i);
            s.tid = tid;
            w.sample(s);
        }
    }

    /** Each row as "name samples" (comm key) or "tid:name samples" (pid key). */
    private static String rows(SortedReport r) {
        return r.rows().stream().map(x -> (r.keys().process().equals("pid") ? x.tid() + ":" + x.threadName()
                : x.comm()) + " " + x.samples()).collect(Collectors.joining(", "));
    }

    private static PerfDataWriter recording() {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        w.comm(5, "shell", 1);
        samples(w, 5, 5, 4, 10);
        // prctl(PR_SET_NAME) in the middle of the run: the samples after it have the new name.
        w.comm(5, "renamed", 20);
        samples(w, 5, 5, 3, 30);
        // A thread met before any COMM of its own: its first name is its name from the start.
        samples(w, 9, 9, 2, 40);
        w.comm(9, "late", 50);
        samples(w, 9, 9, 1, 60);
        // A child takes its parent's name, until it execs.
        w.fork(6, 5, 70);
        samples(w, 6, 6, 5, 80);
        w.comm(6, "exec'd", 90);
        samples(w, 6, 6, 6, 100);
        // Its pid again after it exited: a new thread, named after its own parent.
        w.exit(6, 110);
        w.fork(6, 5, 120);
        w.comm(6, "again", 125);
        samples(w, 6, 6, 7, 130);
        // A thread never named: perf calls it :<tid>.
        samples(w, 8, 8, 8, 150);
        return w;
    }

    @Test
    void aSamplesCommIsItsThreadsNameAtTheSamplesTime() throws Exception {
        assertEquals(":8 8, renamed 8, again 7, exec'd 6, shell 4, late 3", rows(report(recording(), "comm")));
    }

    @Test
    void pidRowsAreByThreadIdWithTheLastNameOfTheFirstThreadOfThatId() throws Exception {
        // tid 6 is two threads; perf keys by the id alone and names the row by the first one's last name.
        assertEquals("6:exec'd 18, 8::8 8, 5:renamed 7, 9:late 3", rows(report(recording(), "pid")));
    }

    @Test
    void twoUnnamedThreadsOfOneTidAreTwoCommsWhenTheSecondIsNamedLater() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr());
        samples(w, 8, 8, 2, 10);
        w.exit(8, 20);
        // The same tid again, forked from a thread never named: :8 until its first COMM, which
        // names its samples before it too; the first thread's samples stay :8.
        w.fork(8, 77, 30);
        samples(w, 8, 8, 3, 40);
        w.comm(8, "named", 50);
        assertEquals("named 3, :8 2", rows(report(w, "comm")));
    }

    @Test
    void sortKeysPerfPrintsAlikeAreTakenAndOthersRefusedWithTheListAccepted() {
        assertEquals(new SortKeys("comm", true), SortKeys.parse("comm,dso,symbol"));
        assertEquals(new SortKeys("pid", false), SortKeys.parse("pid"));
        assertEquals(SortKeys.DSO_SYM, SortKeys.parse("dso,sym"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SortKeys.parse("sym,comm"));
        assertTrue(e.getMessage().contains("give one of " + SortKeys.ACCEPTED), e.getMessage());
        List.of("", "comm,", "cpu", "comm,dso").forEach(k -> assertThrows(IllegalArgumentException.class,
                () -> SortKeys.parse(k), k));
    }
}
