package org.hyperprof.study;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionSummary;

/**
 * Runs a scenario once per variant: loads it with the variant's policy and options, profiles it
 * for the given simulated time with the model's default event (system-wide with HVM guests
 * passive, or only the guests' own profilers), and measures the run against its ground truth.
 * A variant that fails is reported in one line and the study goes on.
 */
final class StudyRunner {

    /** Registers the study's sample consumer with the profiler until the returned handle is closed. */
    @FunctionalInterface
    interface ConsumerRegistry {
        AutoCloseable register(SampleConsumer consumer, String name);
    }

    /** How long the study waits for the sessions' last deliveries after a profile returned. */
    static final Duration DEFAULT_END_TIMEOUT = Duration.ofSeconds(30);

    private final HostService hosts;
    private final Profiler profiler;
    private final ConsumerRegistry registry;
    private final Duration endTimeout;
    /** How many runs may go on at once, each on a host and profiler of its own. */
    private final int jobs;
    /** The last {@link #runSeeds} ran on hosts of their own (the current host and the store saw none of it). */
    private boolean ranApart;

    StudyRunner(HostService hosts, Profiler profiler, ConsumerRegistry registry, Duration endTimeout) {
        this(hosts, profiler, registry, endTimeout, 1);
    }

    /** @param jobs how many runs may go on at once (1: one after another on the current host) */
    StudyRunner(HostService hosts, Profiler profiler, ConsumerRegistry registry, Duration endTimeout, int jobs) {
        this.hosts = hosts;
        this.profiler = profiler;
        this.registry = registry;
        this.endTimeout = endTimeout;
        this.jobs = jobs;
    }

    /**
     * Whether the last {@link #runSeeds} ran its runs side by side on hosts and profilers of their
     * own: then the current host is not the last variant's and no session reached the store.
     */
    boolean ranApart() {
        return ranApart;
    }

    /**
     * Runs every variant in order.
     *
     * @param progress hears one line as each variant starts
     * @param problems hears one line per variant that failed
     */
    Results.Study run(String scenario, List<Variant> variants, long ms, Consumer<String> progress,
            Consumer<String> problems) throws Exception {
        return run(scenario, variants, ms, progress, problems, StopRequests.Watch.UNWATCHED, id -> { });
    }

    /**
     * Runs every variant in order until {@code watch} hears a stop request (Ctrl-C): the run going
     * on then ends early with what it took, its figures say so, and the variants after it are not
     * run.
     *
     * @param made hears the id of each session a run made (to mark it as the study's in the session store)
     */
    Results.Study run(String scenario, List<Variant> variants, long ms, Consumer<String> progress,
            Consumer<String> problems, StopRequests.Watch watch, LongConsumer made) throws Exception {
        return run(scenario, variants, ms, 0, 1, progress, problems, watch, made, new long[variants.size()]);
    }

    /**
     * Runs every variant over seed offsets 0 to {@code seeds - 1} (seed by seed, every variant
     * under each, so a stop request leaves whole seeds behind it where it can), one study per seed.
     *
     * @param wallNanos summed per variant: the wall time its runs took
     */
    List<Results.Study> runSeeds(String scenario, List<Variant> variants, long ms, int seeds,
            Consumer<String> progress, Consumer<String> problems, StopRequests.Watch watch, LongConsumer made,
            long[] wallNanos) throws Exception {
        ranApart = false;
        int runs = seeds * variants.size();
        if (jobs > 1 && runs > 1) {
            List<Lane> lanes = lanes(Math.min(jobs, runs));
            if (!lanes.isEmpty()) {
                ranApart = true;
                try {
                    return new SideBySide(scenario, variants, ms, seeds, progress, watch, lanes).run(problems,
                            wallNanos);
                } finally {
                    lanes.forEach(Lane::close);
                }
            }
        }
        List<Results.Study> out = new ArrayList<>();
        for (int offset = 0; offset < seeds && !watch.stopRequested(); offset++) {
            out.add(run(scenario, variants, ms, offset, seeds, progress, problems, watch, made, wallNanos));
        }
        return out;
    }

    private Results.Study run(String scenario, List<Variant> variants, long ms, int offset, int seeds,
            Consumer<String> progress, Consumer<String> problems, StopRequests.Watch watch, LongConsumer made,
            long[] wallNanos) throws Exception {
        SessionTally tally = new SessionTally();
        List<Results.Run> runs = new ArrayList<>();
        String name = scenario;
        Long seed = null;
        try (AutoCloseable registration = registry.register(tally, StudyKeys.CONSUMER_NAME)) {
            for (int i = 0; i < variants.size(); i++) {
                Variant v = variants.get(i);
                if (watch.stopRequested()) {
                    progress.accept("stopped by " + watch.stopReason() + ": " + v.label() + " and the variants after it"
                            + " are not run");
                    break;
                }
                progress.accept("running " + v.label() + (seeds > 1 ? ", seed " + (offset + 1) + " of " + seeds : "")
                        + " (" + ms + " ms simulated)");
                long started = System.nanoTime();
                Loaded loaded = runOne(hosts, profiler, scenario, v, offset, ms, tally,
                        watch.listener(ProgressListener.NONE), made);
                wallNanos[i] += System.nanoTime() - started;
                Results.Run run = finished(loaded, v, ms, watch, problems);
                if (loaded.host != null) {
                    name = loaded.host.name();
                    if (seed == null) {
                        seed = loaded.host.counters().get(StudyKeys.SEED);
                    }
                }
                runs.add(run);
            }
        }
        return new Results.Study(name, seed, ms, runs);
    }

    /** A run's figures, marked when a stop request cut it short; a failure is told to {@code problems}. */
    private static Results.Run finished(Loaded loaded, Variant v, long ms, StopRequests.Watch watch,
            Consumer<String> problems) {
        Results.Run run = loaded.run;
        if (run.ok() && loaded.ranMicros < ms * 1000) {
            run = stoppedEarly(run, watch.stopReason(), loaded.ranMicros, ms);
        }
        if (!run.ok()) {
            problems.accept(v.label() + ": " + run.failure());
        }
        return run;
    }

    /** A host service and profiler of their own, and the study's tally on them. */
    private record Lane(HostService hosts, Profiler.Lane profiler, SessionTally tally) implements AutoCloseable {
        @Override
        public void close() {
            profiler.close();
        }
    }

    /** {@code count} lanes, or none when the host service or the profiler cannot make them. */
    private List<Lane> lanes(int count) {
        List<Lane> lanes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SessionTally tally = new SessionTally();
            HostService own = hosts.independent().orElse(null);
            Profiler.Lane lane = own == null ? null
                    : profiler.lane(own, StudyKeys.CONSUMER_NAME, tally).orElse(null);
            if (lane == null) {
                lanes.forEach(Lane::close);
                return List.of();
            }
            lanes.add(new Lane(own, lane, tally));
        }
        return lanes;
    }

    /**
     * The runs of every seed and variant, taken in order by the lanes as each finishes its last:
     * each run depends only on its scenario, variant and seed, and its figures go to its own place,
     * so what the study prints does not depend on which lane ran what or when. The calling thread
     * is one of the lanes. A stop request ends the runs going on early and starts no other.
     */
    private final class SideBySide {
        private final String scenario;
        private final List<Variant> variants;
        private final long ms;
        private final int seeds;
        private final Consumer<String> progress;
        private final StopRequests.Watch watch;
        private final List<Lane> lanes;
        private final Loaded[] done;
        private final long[] nanos;
        private int next;
        /** The calling thread was interrupted: no run starts any more. */
        private boolean abandoned;

        SideBySide(String scenario, List<Variant> variants, long ms, int seeds, Consumer<String> progress,
                StopRequests.Watch watch, List<Lane> lanes) {
            this.scenario = scenario;
            this.variants = variants;
            this.ms = ms;
            this.seeds = seeds;
            this.progress = progress;
            this.watch = watch;
            this.lanes = lanes;
            this.done = new Loaded[seeds * variants.size()];
            this.nanos = new long[done.length];
        }

        List<Results.Study> run(Consumer<String> problems, long[] wallNanos) throws Exception {
            List<Thread> others = new ArrayList<>();
            Throwable[] failed = new Throwable[lanes.size()];
            for (int l = 1; l < lanes.size(); l++) {
                int lane = l;
                Thread t = new Thread(() -> failed[lane] = drive(lanes.get(lane)), "hyperprof-study-lane-" + l);
                t.setDaemon(true);
                t.start();
                others.add(t);
            }
            failed[0] = drive(lanes.get(0));
            try {
                for (Thread t : others) {
                    t.join();
                }
            } catch (InterruptedException e) {
                synchronized (this) {
                    abandoned = true; // the runs going on end with their lanes, closed by the caller
                }
                throw e;
            }
            for (Throwable t : failed) {
                if (t instanceof Exception x) {
                    throw x;
                } else if (t != null) {
                    throw (Error) t;
                }
            }
            return studies(problems, wallNanos);
        }

        /** The next run to start, told as it starts; -1 when none is left or a stop was asked for. */
        private synchronized int take() {
            if (abandoned || next >= done.length || watch.stopRequested()) {
                return -1;
            }
            int run = next++;
            Variant v = variants.get(run % variants.size());
            progress.accept("running " + v.label() + (seeds > 1 ? ", seed " + (run / variants.size() + 1) + " of "
                    + seeds : "") + " (" + ms + " ms simulated)");
            return run;
        }

        /** Runs what {@link #take} gives until nothing is left; what went wrong unexpectedly, or null. */
        private Throwable drive(Lane lane) {
            try {
                for (int run = take(); run >= 0; run = take()) {
                    long started = System.nanoTime();
                    Loaded loaded = runOne(lane.hosts(), lane.profiler().profiler(), scenario,
                            variants.get(run % variants.size()), run / variants.size(), ms, lane.tally(),
                            watch.listener(ProgressListener.NONE), id -> { });
                    long took = System.nanoTime() - started;
                    synchronized (this) {
                        done[run] = loaded;
                        nanos[run] = took;
                    }
                }
                return null;
            } catch (Throwable t) {
                synchronized (this) {
                    abandoned = true; // thrown once every lane stopped: no other run starts meanwhile
                }
                return t;
            }
        }

        /** One study per seed, in order, each with its variants up to the first that did not run. */
        private synchronized List<Results.Study> studies(Consumer<String> problems, long[] wallNanos) {
            List<Results.Study> out = new ArrayList<>();
            boolean told = false;
            for (int offset = 0; offset < seeds; offset++) {
                List<Results.Run> runs = new ArrayList<>();
                String name = scenario;
                Long seed = null;
                for (int i = 0; i < variants.size(); i++) {
                    int run = offset * variants.size() + i;
                    Loaded loaded = done[run];
                    if (loaded == null) {
                        if (!told) {
                            told = true;
                            progress.accept("stopped by " + watch.stopReason() + ": " + variants.get(i).label()
                                    + (seeds > 1 ? ", seed " + (offset + 1) + " and the runs after it are not run"
                                            : " and the variants after it are not run"));
                        }
                        break;
                    }
                    wallNanos[i] += nanos[run];
                    runs.add(finished(loaded, variants.get(i), ms, watch, problems));
                    if (loaded.host != null) {
                        name = loaded.host.name();
                        if (seed == null) {
                            seed = loaded.host.counters().get(StudyKeys.SEED);
                        }
                    }
                }
                if (runs.isEmpty()) {
                    break;
                }
                out.add(new Results.Study(name, seed, ms, runs));
                if (runs.size() < variants.size()) {
                    break;
                }
            }
            return out;
        }
    }

    /** @param ranMicros how long the profile's run went on: less than asked when a stop request cut it short */
    private record Loaded(Host host, Results.Run run, long ranMicros) {
        Loaded(Host host, Results.Run run) {
            this(host, run, Long.MAX_VALUE);
        }
    }

    /** A run a stop request cut short says so beside its figures. */
    private static Results.Run stoppedEarly(Results.Run run, String reason, long ranMicros, long ms) {
        List<String> notes = new ArrayList<>(run.notes());
        notes.add(String.format(java.util.Locale.ROOT, "stopped by %s after %.3f of %d ms simulated: its figures cover"
                + " only the time it ran", reason, ranMicros / 1000.0, ms));
        return new Results.Run(run.variant(), run.failure(), run.overhead(), run.lost(), run.guests(), notes);
    }

    private Loaded runOne(HostService hosts, Profiler profiler, String scenario, Variant v, int seedOffset, long ms,
            SessionTally tally, ProgressListener listener, LongConsumer made) throws InterruptedException {
        Host host;
        try {
            Map<String, String> options = new java.util.LinkedHashMap<>(v.hostOptions());
            if (seedOffset != 0) {
                options.put(StudyKeys.HOST_OPTION_SEED_OFFSET, Integer.toString(seedOffset));
            }
            host = hosts.load(scenario, null, options, null);
        } catch (ScenarioException e) {
            return new Loaded(null, Results.Run.failed(v, "loading " + scenario + " failed: " + oneLine(e)));
        } catch (RuntimeException e) {
            return new Loaded(null, Results.Run.failed(v, "loading " + scenario + " failed unexpectedly: " + oneLine(e)));
        }
        List<Integer> passive = new ArrayList<>();
        List<String> passiveImages = new ArrayList<>();
        if (v.systemWide()) {
            for (DomainInfo d : host.domains()) {
                if (d.hvm()) {
                    // HVM guests can only be passive; dom0 resolves their kernel with its image (as
                    // opcontrol --passive-images does), their user code stays coarse (domain<N>-apps).
                    passive.add(d.domid());
                    passiveImages.add(kernelImage(d));
                }
            }
        }
        ProfileRequest request = new ProfileRequest(List.of(), ms * 1000, List.of(), passive, passiveImages, 0,
                v.systemWide());
        tally.clear();
        SessionSummary returned;
        long startCycles = host.cycles();
        try {
            returned = profiler.profile(request, listener);
        } catch (ProfileException e) {
            return new Loaded(host, Results.Run.failed(v, "the profile failed: " + oneLine(e)));
        } catch (RuntimeException e) {
            return new Loaded(host, Results.Run.failed(v, "the profile failed unexpectedly: " + oneLine(e)));
        }
        List<SessionTally.Seen> sessions = tally.awaitEnded(returned.sessionId(), endTimeout);
        sessions.forEach(s -> made.accept(s.info().sessionId()));
        long ranMicros = (host.cycles() - startCycles) / Math.max(1, host.mhz());
        return new Loaded(host, measure(host, v, returned, sessions), ranMicros);
    }

    /** The figures of one run, from what the profile returned and what the tally saw. */
    static Results.Run measure(Host host, Variant v, SessionSummary returned, List<SessionTally.Seen> sessions) {
        List<String> notes = new ArrayList<>();
        if (!returned.completed()) {
            notes.add("the session ended early: " + returned.endReason());
        }
        GroundTruth truth = returned.groundTruth() != null ? returned.groundTruth() : host.groundTruth();
        Map<String, Long> counters = returned.hostCounters().isEmpty() ? host.counters() : returned.hostCounters();
        long lost = 0;
        SessionTally.Seen own = null;
        SessionTally.Seen xenoprof = null;
        for (SessionTally.Seen s : sessions) {
            if (s.summary() == null) {
                notes.add("session " + s.info().sessionId() + " (" + s.info().source()
                        + ") had not ended when the study read it; its figures are partial");
            } else {
                lost += s.summary().accounting().lost();
            }
            if (s.missed() > 0) {
                notes.add("the study's consumer missed " + s.missed() + " samples of session "
                        + s.info().sessionId() + " (" + s.info().source() + "); errors are computed without them");
            }
            if (s.guestProfiler() && own == null) {
                own = s;
            } else if (s.xenoprof() && xenoprof == null) {
                xenoprof = s;
            }
        }
        if (sessions.isEmpty()) {
            lost = returned.accounting().lost();
            notes.add("the study's consumer saw no session; every profile is empty");
        }
        // A guest's own profiler the policy refused (or that found no PMU) says so here; its guest's
        // profile then comes from Xenoprof if Xenoprof ran, else there is none.
        notes.addAll(host.guestProfilerNotes());
        List<Results.Guest> guests = new ArrayList<>();
        for (DomainInfo d : host.domains()) {
            guests.add(guest(host, d, own, xenoprof, truth, notes));
        }
        return new Results.Run(v, null, Overhead.of(truth, counters), lost, guests, notes);
    }

    private static Results.Guest guest(Host host, DomainInfo d, SessionTally.Seen own, SessionTally.Seen xenoprof,
            GroundTruth truth, List<String> notes) {
        int id = d.domid();
        SessionTally.Seen from;
        String source;
        CounterConfig counter;
        if (own != null && own.guestModeSamples(id) > 0) {
            from = own;
            source = "own";
            List<CounterConfig> its = host.guestProfilerCounters(id);
            counter = !its.isEmpty() ? its.get(0) : first(own);
        } else if (xenoprof != null && xenoprof.guestModeSamples(id) > 0) {
            from = xenoprof;
            source = "xenoprof";
            counter = first(xenoprof);
        } else {
            return new Results.Guest(id, d.name(), "none", 0, "", null, null);
        }
        if (counter == null) {
            notes.add(d.name() + ": its " + source + " session names no counter; its profile is not compared");
            return new Results.Guest(id, d.name(), source, from.guestModeSamples(id), "", null, null);
        }
        Map<SymbolKey, Long> sampled = from.profile(id, counter.counter());
        long samples = 0;
        for (long n : sampled.values()) {
            samples += n;
        }
        Signal signal = counter.event().signal();
        if (signal == null) {
            notes.add(d.name() + ": event " + counter.event().name() + " counts nothing the simulator emits;"
                    + " its profile is not compared");
            return new Results.Guest(id, d.name(), source, samples, counter.event().name(), null, null);
        }
        return new Results.Guest(id, d.name(), source, samples, counter.event().name(),
                ProfileError.of(sampled, Truth.guestOnly(truth, id, signal)),
                ProfileError.of(sampled, Truth.withHypervisorOnBehalf(truth, id, signal)));
    }

    private static CounterConfig first(SessionTally.Seen s) {
        return s.info().counters().isEmpty() ? null : s.info().counters().get(0);
    }

    /** An exception's message as one line: its kind when it has none. */
    static String oneLine(Throwable e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        String line = m.strip().replaceAll("\\s*\\R\\s*", "; ");
        return e instanceof RuntimeException && !(e instanceof IllegalArgumentException)
                && !(e instanceof IllegalStateException) ? e.getClass().getSimpleName() + ": " + line : line;
    }

    /** The name of a domain's kernel image, or "" (left coarse) when it has none. */
    private static String kernelImage(DomainInfo d) {
        for (org.hyperprof.api.host.Mapping m : d.memoryMap()) {
            if (m.kind() == org.hyperprof.api.sample.ImageKind.KERNEL) {
                return m.image();
            }
        }
        return "";
    }
}
