package org.hyperprof.store.duckdb;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.sample.TestDictionary;

/**
 * Sessions of the same three functions for the diff's tests, each with a dictionary of its own:
 * schedule and tcp_v4_rcv in the kernel of Domain-0, main in domU's /usr/bin/app. The compared
 * session names them in another order, so its ids differ from the baseline's while the names match.
 * Every sample stands for 1000 events; a session's samples span the seconds it is given.
 */
final class TwoSessions {
    static final long EVENTS_PER_SAMPLE = 1000;

    private TwoSessions() {
    }

    /**
     * A store in {@code folder} with the sessions whose shares the tests work out by hand: A (session
     * 1) with schedule 600, tcp_v4_rcv 300 and main 100 samples in 1 s; B (session 2, its ids in
     * another order) with 980, 620 and 400 in 4 s.
     */
    static StoreFixture handWorked(Path folder) {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        profile(f, 1, false, 600, 300, 100, 1);
        profile(f, 2, true, 980, 620, 400, 4);
        return f;
    }

    /**
     * Stores session {@code id}: {@code schedule}, {@code tcp} and {@code main} samples, schedule's
     * called from tcp_v4_rcv, over {@code seconds} of profiled time.
     */
    static void profile(StoreFixture f, long id, boolean reordered, int schedule, int tcp, int main, long seconds) {
        profile(f, id, reordered, schedule, tcp, main, seconds, StoreFixture.CYCLES);
    }

    static void profile(StoreFixture f, long id, boolean reordered, int schedule, int tcp, int main, long seconds,
            CounterConfig counter) {
        TestDictionary d = new TestDictionary();
        d.process(1, 700, "app");
        int app = reordered ? d.image(1, "/usr/bin/app", ImageKind.USER) : -1;
        int kernel = d.image(0, "vmlinux", ImageKind.KERNEL);
        if (!reordered) {
            app = d.image(1, "/usr/bin/app", ImageKind.USER);
        }
        int mainSymbol = reordered ? d.symbol(app, "main") : -1;
        int tcpSymbol = d.symbol(kernel, "tcp_v4_rcv");
        int scheduleSymbol = d.symbol(kernel, "schedule");
        if (!reordered) {
            mainSymbol = d.symbol(app, "main");
        }
        TestBatches b = new TestBatches(id);
        long last = seconds * 1_000_000_000L;
        int n = 0;
        int total = schedule + tcp + main;
        for (int i = 0; i < schedule; i++, n++) {
            b.sample(0, 0, (byte) 1, 0, 0xc0100000L, kernel, scheduleSymbol, EVENTS_PER_SAMPLE, time(n, total, last),
                    0, -1, -1).caller(0xc0200010L, kernel, tcpSymbol);
        }
        for (int i = 0; i < tcp; i++, n++) {
            b.sample(0, 0, (byte) 1, 0, 0xc0200004L, kernel, tcpSymbol, EVENTS_PER_SAMPLE, time(n, total, last), 0,
                    -1, -1);
        }
        for (int i = 0; i < main; i++, n++) {
            b.sample(1, 0, (byte) 0, 0, 0x400100L, app, mainSymbol, EVENTS_PER_SAMPLE, time(n, total, last), 0, 700,
                    700);
        }
        f.store.sessionStarted(new SessionInfo(id, "simulator", "default-host", "i386/p6", "PIII", 2000,
                List.of(counter), Map.of(0, "Domain-0", 1, "domU"), false, d));
        f.store.samples(b.build());
        f.store.sessionEnded(StoreFixture.ended(id, total, 0));
    }

    /** The first sample at 0, the last at {@code last}: the session profiled {@code last} ns. */
    private static long time(int n, int total, long last) {
        return n == total - 1 ? last : 0;
    }

    /** Another event than {@link StoreFixture#CYCLES}: instructions retired. */
    static final CounterConfig INSTRUCTIONS = new CounterConfig(0, new EventDescriptor("INST_RETIRED", 0xc0, 1, 1,
            StoreFixture.NO_MASK, null, "instructions"), 100000, 0, true, true);
}
