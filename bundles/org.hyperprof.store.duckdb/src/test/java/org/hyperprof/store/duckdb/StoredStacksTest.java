package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredStack;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.testing.sample.TestBatches;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stacks the store sums in one query are the stacks a replay of the same session delivers, sample
 * for sample: the same domains, processes and frames from the outermost caller, the same counts.
 */
class StoredStacksTest {
    private static final long ID = 77L;

    @TempDir
    Path folder;

    private final Dictionary names = new Dictionary();
    private final int kernel = names.addImage("vmlinux", ImageKind.KERNEL, 0);
    private final int app = names.addImage("/usr/bin/app", ImageKind.USER, 1);
    private final int schedule = names.addSymbol("schedule", kernel);
    private final int tcp = names.addSymbol("tcp_v4_rcv", kernel);
    private final int main = names.addSymbol("main", app);
    private final int run = names.addSymbol("_ZN3app3runEv", app);
    private final int bash = names.addComm("bash", 0);
    private final int worker = names.addComm("worker", 1);

    private SessionStoreComponent stored() {
        SessionStoreComponent store = new SessionStoreComponent(
                new StoreSettings(folder.resolve("store.duckdb"), true, "testhost", 2000), Engine.CLASS_PATH,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), TransactionHook.NONE);
        store.sessionStarted(new SessionInfo(ID, "perf.data", "host", "x86_64", "cpu", 0,
                List.of(StoreFixture.CYCLES), Map.of(0, "Domain-0", 1, "domU"), false, names));
        TestBatches t = new TestBatches(ID);
        int[] comms = new int[40];
        int n = 0;
        for (int i = 0; i < 17; i++, n++) { // deep chains: run <- main <- [app], recursion of run kept
            t.sample(1, 0, (byte) 0, 0, 0x400200L + i % 3, app, run, 1 + i % 4, i * 1_000_000L, 0, 700, 700)
                    .caller(0x400150L, app, run).caller(0x400100L, app, main).caller(0x400010L, app, -1);
            comms[n] = bash;
        }
        for (int i = 0; i < 9; i++, n++) { // another thread's name, same pid: another process frame
            t.sample(1, 1, (byte) 0, 0, 0x400100L, app, main, 1, i * 2_000_000L, 1, 700, 701)
                    .caller(0x400010L, app, -1);
            comms[n] = worker;
        }
        for (int i = 0; i < 11; i++, n++) { // kernel stacks of no thread's name: no process frame
            t.sample(0, i % 2, (byte) 1, 0, 0xc0100000L + i, kernel, schedule).caller(0xc0200010L, kernel, tcp);
            comms[n] = SampleBatch.UNKNOWN;
        }
        for (int i = 0; i < 3; i++, n++) { // no call chain at all
            t.sample(0, 0, (byte) 1, 0, 0xc0200004L, kernel, tcp);
            comms[n] = SampleBatch.UNKNOWN;
        }
        SampleBatch b = t.build();
        System.arraycopy(comms, 0, b.comm, 0, n);
        store.samples(b);
        store.sessionEnded(StoreFixture.ended(ID, n, 0));
        return store;
    }

    /** Each stack as one folded line (domain;process;frames) with its samples. */
    private static Map<String, Long> folded(List<StoredStack> stacks) {
        Map<String, Long> out = new TreeMap<>();
        for (StoredStack s : stacks) {
            StringBuilder line = new StringBuilder(s.domainId() + ":" + s.domain());
            if (s.process() != null) {
                line.append(';').append(s.process());
            }
            for (DiffStack.Frame f : s.frames()) {
                line.append(';').append(f.symbol() == null ? "[" + f.image() + "]" : f.symbol())
                        .append('/').append(f.kind());
            }
            out.merge(line.toString(), s.samples(), Long::sum);
        }
        return out;
    }

    /** What a replay delivers, folded the same way: every sample counted once. */
    private static final class Folding implements SampleConsumer {
        final Map<String, Long> lines = new TreeMap<>();
        SessionInfo info;

        @Override
        public void sessionStarted(SessionInfo session) {
            info = session;
        }

        @Override
        public void samples(SampleBatch b) {
            SessionDictionary d = info.dictionary();
            for (int i = 0; i < b.size; i++) {
                StringBuilder line = new StringBuilder(b.domain[i] + ":" + info.domainName(b.domain[i]));
                if (b.comm[i] != SampleBatch.UNKNOWN) {
                    line.append(';').append(d.commName(b.comm[i])).append(" (").append(b.pid[i]).append(')');
                }
                for (int c = b.chainStart[i + 1] - 1; c >= b.chainStart[i]; c--) {
                    line.append(';').append(frame(d, b.chainImage[c], b.chainSymbol[c]));
                }
                line.append(';').append(frame(d, b.image[i], b.symbol[i]));
                lines.merge(line.toString(), 1L, Long::sum);
            }
        }

        private static String frame(SessionDictionary d, int image, int symbol) {
            return (symbol >= 0 ? d.shownName(symbol) : "[" + d.imageName(image) + "]") + "/"
                    + d.imageKind(image);
        }

        @Override
        public void sessionEnded(org.hyperprof.api.sample.SessionSummary s) {
        }
    }

    @Test
    void theStacksSummedByTheStoreAreTheStacksAReplayDelivers() throws Exception {
        SessionStoreComponent store = stored();
        Folding replay = new Folding();
        store.replay(ID, replay).orElseThrow();

        Map<String, Long> summed = folded(store.stacks(ID, 0, -1));

        assertEquals(replay.lines, summed, "every stack, its samples exactly");
        assertEquals(40L, summed.values().stream().mapToLong(Long::longValue).sum());
        assertEquals(17L, summed.get("1:domU;bash (700);[/usr/bin/app]/USER;main/USER;app::run()/USER;app::run()/USER"),
                "the outermost caller first, the sampled function last, recursion kept");
        assertEquals(11L, summed.get("0:Domain-0;tcp_v4_rcv/KERNEL;schedule/KERNEL"),
                "samples of no thread's name have no process frame");
    }

    @Test
    void namesAreShownAsTheSessionsReportsShowedThem() throws Exception {
        assertTrue(folded(stored().stacks(ID, 0, 1)).keySet().stream().anyMatch(k -> k.endsWith(";app::run()/USER")),
                "demangled, as reports show names by default");
        names.demangle(false);
        folder = java.nio.file.Files.createTempDirectory(folder, "raw");
        Map<String, Long> raw = folded(stored().stacks(ID, 0, 1));
        assertTrue(raw.keySet().stream().anyMatch(k -> k.endsWith(";_ZN3app3runEv/USER")),
                "a session whose reports showed raw names keeps them: " + raw);
    }

    @Test
    void oneDomainsStacksAreThatDomainsOnly() throws Exception {
        SessionStoreComponent store = stored();
        Map<String, Long> domU = folded(store.stacks(ID, 0, 1));
        assertEquals(26L, domU.values().stream().mapToLong(Long::longValue).sum());
        assertTrue(domU.keySet().stream().allMatch(k -> k.startsWith("1:domU;")), domU.toString());
    }

    @Test
    void anUnknownSessionOrEventIsRefusedByName() {
        SessionStoreComponent store = stored();
        StoreException none = assertThrows(StoreException.class, () -> store.stacks(ID + 1, 0, -1));
        assertTrue(none.getMessage().contains("no stored session " + (ID + 1)), none.getMessage());
        StoreException event = assertThrows(StoreException.class, () -> store.stacks(ID, 3, -1));
        assertTrue(event.getMessage().contains("there is no event 3"), event.getMessage());
    }
}
