package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.QueryRows;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoreInfo;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.output.OutputFilesComponent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * hp:report and hp:export of a session no report keeps ask the store to replay it first; a session a
 * report keeps, or the latest, is reported as it is, without the store.
 */
class ReportFromStoreTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Fakes.FakeRenderer opreport = new Fakes.FakeRenderer();
    private final Fakes.FakeWriter pprof = new Fakes.FakeWriter("pprof: gzipped profile.proto for go tool pprof");
    private final Store store = new Store();
    private final ReportCommands commands;

    @TempDir
    Path dir;

    /** A store that records what it was asked to replay, and fails when told. */
    private static final class Store implements SessionStore {
        final List<Long> replayed = new ArrayList<>();
        StoreException failure;

        @Override
        public Optional<SessionSummary> replay(long id) throws StoreException {
            replayed.add(id);
            if (failure != null) {
                throw failure;
            }
            return Optional.empty();
        }

        @Override
        public List<StoredSession> sessions(SessionQuery query) {
            return List.of();
        }

        @Override
        public Optional<StoredSession> session(long id) {
            return Optional.empty();
        }

        @Override
        public boolean delete(long id) {
            return false;
        }

        @Override
        public StoreInfo info() {
            return new StoreInfo("/nowhere", 0, 0, 2);
        }

        // What the report commands never ask of a store: it holds no session to diff, merge or archive.

        @Override
        public SessionDiff diff(DiffRequest request) throws StoreException {
            throw absent(request.baseline());
        }

        @Override
        public List<DiffStack> diffStacks(DiffRequest request) throws StoreException {
            throw absent(request.baseline());
        }

        @Override
        public long merge(List<Long> sessions, String name) throws StoreException {
            throw absent(sessions.get(0));
        }

        @Override
        public Content archive(long id) throws StoreException {
            throw absent(id);
        }

        @Override
        public StoredSession restore(Path archive) throws StoreException {
            throw new StoreException("this store restores nothing: " + archive);
        }

        @Override
        public Content samplesParquet(long id, int domain) throws StoreException {
            throw absent(id);
        }

        /** Session 9 is named "baseline". */
        @Override
        public Optional<StoredSession> named(String name) {
            return name.equals("baseline") ? Optional.of(new StoredSession(9, "h", "simulator", name, List.of(), "host",
                    "i386/p6", List.of(), java.time.Instant.EPOCH, java.time.Instant.EPOCH, StoredSession.COMPLETED, 1,
                    org.hyperprof.api.sample.Accounting.ZERO, 1, 0, List.of(), null, false)) : Optional.empty();
        }

        @Override
        public boolean name(long id, String name) {
            return false;
        }

        @Override
        public boolean label(long id, Collection<String> labels, boolean remove) {
            return false;
        }

        @Override
        public boolean markStudy(long id, String study) {
            return false;
        }

        @Override
        public Optional<String> prune() {
            return Optional.empty();
        }

        @Override
        public QueryRows query(String sql, int maxRows) throws StoreException {
            throw new StoreException("this store has no rows to query");
        }

        private static StoreException absent(long id) {
            return new StoreException("no stored session " + id);
        }
    }

    /** opreport keeps sessions 6 and 7, pprof session 7; the store is bound. */
    ReportFromStoreTest() {
        Plugins<ReportRenderer> renderers = new Plugins<>();
        renderers.add(opreport, opreport, "opreport", "org.hyperprof.report.opreport 0.1.0");
        Plugins<ReportFileWriter> writers = new Plugins<>();
        writers.add(pprof, pprof, "pprof", "org.hyperprof.report.pprof 0.1.0");
        commands = new ReportCommands(io.console, renderers, writers, new OutputFilesComponent());
        commands.store = store;
    }

    /**
     * A session no report keeps is replayed from the store, then reported and exported; it is given by
     * its id or by its name (hp:profile --name, hp:name), which finds it in the store.
     */
    @ParameterizedTest
    @ValueSource(strings = {"9", "baseline"})
    void aSessionNoReportKeepsIsReplayedFromTheStoreThenReported(String session) {
        commands.report("--session", session, "symbols");
        assertEquals(List.of(9L), store.replayed);
        assertEquals(List.of(new ReportRequest(9, ReportRequest.ALL_DOMAINS, java.util.Set.of("symbols"))),
                opreport.requests);
        commands.export("pprof", "pprof", dir.resolve(session + ".pb.gz").toString(), "--session", session);
        assertEquals(List.of(9L, 9L), store.replayed);
    }

    @Test
    void aSessionAReportKeepsAndTheLatestAreReportedWithoutTheStore() {
        commands.report("--session", "7");
        commands.report();
        commands.export("pprof", "pprof", dir.resolve("7.pb.gz").toString(), "--session", "7");
        assertEquals(List.of(), store.replayed);
        assertEquals(2, opreport.requests.size());
    }

    @Test
    void aStoreThatCannotReplayFailsTheCommandWithItsReason() {
        store.failure = new StoreException("session 9 cannot be replayed now: a simulated session is running");
        assertEquals(1, Fakes.fails(() -> commands.report("--session", "9")));
        assertTrue(io.err().contains("a simulated session is running"), io.err());
        assertEquals(List.of(), opreport.requests);
    }

    /** A name no stored session has, or a name with no store to look in, fails the command with the reason. */
    @Test
    void aSessionsNameNeedsTheStoreAndASessionOfThatName() {
        assertEquals(1, Fakes.fails(() -> commands.report("--session", "nosuch")));
        assertTrue(io.err().contains("no stored session is named 'nosuch' (hp:sessions lists them)"), io.err());
        commands.store = null;
        assertEquals(1, Fakes.fails(() -> commands.report("--session", "baseline")));
        assertTrue(io.err().contains("a session is found by its name in the session store, and none is active"),
                io.err());
    }

    /** hp:report --sort asks the sorted report (the perf source's) for the session, by its name too; no renderer prints. */
    @Test
    void sortedReportsArePrintedByTheSortedReporterOfTheSessionAsked() {
        List<String> asked = new ArrayList<>();
        assertEquals(1, Fakes.fails(() -> commands.report("--sort", "comm,dso,sym")));
        assertTrue(io.err().contains("--sort is printed by the perf source's sorted report, and none is active; start"
                + " the bundle org.hyperprof.source.perf"), io.err());
        commands.sorted = (request, keys, out) -> {
            asked.add(request.sessionId() + " " + keys + " " + request.options());
            out.append("# Samples: 1  of event 'cpu-clock'\n");
        };
        commands.report("--sort", "pid", "--session", "baseline", "top=3");
        commands.report("--sort", "comm,dso,sym");
        assertEquals(List.of("9 pid [top=3]", "-1 comm,dso,sym []"), asked);
        assertEquals("# Samples: 1  of event 'cpu-clock'\n# Samples: 1  of event 'cpu-clock'\n", io.out());
        assertEquals(List.of(), opreport.requests);
        assertEquals(List.of(), store.replayed, "the sorted report reads the store itself");
    }
}
