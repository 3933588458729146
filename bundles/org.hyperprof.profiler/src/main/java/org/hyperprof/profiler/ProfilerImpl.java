package org.hyperprof.profiler;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.ProfileWatcher;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.SymbolTables;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The daemon side of Hyperprof: one oprofiled per domain of the current host, driven by opcontrol
 * steps taken as that domain, and the session that feeds the sample consumers.
 *
 * <p>Wired by DS (the host service and the pipeline's shared symbol tables statically, consumers
 * dynamically), or in plain Java: {@code new ProfilerImpl(hostService)}, then
 * {@link #addResolver}, {@link #addConsumer}.
 * The component binds the services and composes three parts that share the consumers
 * ({@link ConsumerFeed}): the opcontrol service ({@link OpcontrolService}: the per-domain daemons
 * and the steps a user drives), the one-shot profile ({@link OneShotProfile}) and the published
 * sessions ({@link PublishedSessions}).
 *
 * <p>As a {@link SessionPublisher} it feeds the same consumers from other sample sources (a
 * perf.data import, a live {@code perf record}): one session at a time, simulated or published,
 * since every consumer sees one session's start, batches and end in order. Opening a published
 * session while a simulated one runs is refused, and so is starting a simulated one while a
 * published one is open.
 *
 * <p>Locks, always taken in this order: the profiler's lock ({@link ConsumerFeed#lock}: opcontrol
 * steps, session start and end), a daemon's monitor (its {@link Oprofiled}'s: draining one domain's
 * buffers), a session's collector (appending samples, publishing batches). A VIRQ handler never takes the profiler's lock, and no hypercall
 * is made while a daemon's monitor or a collector is held.
 */
@Component(service = {Profiler.class, SessionPublisher.class}, configurationPid = ProfilerImpl.PID)
@Designate(ocd = ProfilerConfiguration.class)
public final class ProfilerImpl implements Profiler, SessionPublisher {

    /** Configuration Admin PID of the profiler's settings ({@link ProfilerConfiguration}). */
    public static final String PID = "org.hyperprof.profiler";

    /** Samples per batch handed to the consumers. */
    public static final int DEFAULT_BATCH_SIZE = 4096;
    /** Batches each consumer's queue holds before it starts missing samples. */
    public static final int DEFAULT_QUEUE_CAPACITY = 64;
    /** How long the end of a session waits for the consumers to take what is queued for them. */
    public static final Duration DEFAULT_END_TIMEOUT = Duration.ofSeconds(10);

    private static final System.Logger LOG = System.getLogger(ProfilerImpl.class.getName());
    private static final String STOPPED = "the profiler stopped (its bundle was stopped or updated)";

    private final ConsumerFeed feed;
    private final OpcontrolService opcontrol;
    private final OneShotProfile oneShot;
    private final PublishedSessions publisher;
    /**
     * Who hears every one-shot profile's progress besides its caller: an array replaced on each change, so a
     * progress report (thousands per run) walks it without allocating.
     */
    private volatile ProfileWatcher[] watchers = new ProfileWatcher[0];

    public ProfilerImpl(HostService hostService) {
        this(hostService, DEFAULT_BATCH_SIZE, DEFAULT_QUEUE_CAPACITY, DEFAULT_END_TIMEOUT);
    }

    /**
     * The DS constructor: the pipeline's shared symbol tables, settings from Configuration Admin,
     * defaults when none are set.
     */
    @Activate
    public ProfilerImpl(@Reference(name = "hostService") HostService hostService,
            @Reference(name = "symbolTables") SymbolTables symbolTables, ProfilerConfiguration config) {
        this(hostService, symbolTables, FeedSettings.of(config));
    }

    /** With symbol tables of its own, resolvers added by {@link #addResolver}. */
    public ProfilerImpl(HostService hostService, int batchSize, int queueCapacity, Duration endTimeout) {
        this(hostService, new SymbolTables(), new FeedSettings(batchSize, queueCapacity, endTimeout));
    }

    private ProfilerImpl(HostService hostService, SymbolTables symbolTables, FeedSettings settings) {
        if (hostService == null) {
            throw new IllegalArgumentException("a HostService is required: the profiler drives the current host");
        }
        this.feed = new ConsumerFeed(symbolTables, settings);
        this.opcontrol = new OpcontrolService(hostService, feed);
        this.oneShot = new OneShotProfile(hostService, feed, opcontrol);
        this.publisher = new PublishedSessions(feed);
    }

    /**
     * Takes changed settings of Configuration Admin without a restart: the service stays registered
     * (the shell's commands hold it statically and would leave with it), the daemons and an open
     * session run on, and the new batch size and end wait apply from the next session. A setting out
     * of range is refused with a warning and the settings in force stay.
     */
    @Modified
    void configure(ProfilerConfiguration config) {
        try {
            feed.settings(FeedSettings.of(config));
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "PID " + PID + ": " + e.getMessage() + "; the settings stay as they were");
        }
    }

    // ---------------------------------------------------------------- services coming and going

    @Reference(service = SampleConsumer.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindConsumer")
    void bindConsumer(SampleConsumer consumer, Map<String, Object> properties) {
        feed.dispatcher.add(consumer, properties);
    }

    void unbindConsumer(SampleConsumer consumer, Map<String, Object> properties) {
        feed.dispatcher.remove(consumer, properties);
    }

    @Reference(service = ProfileWatcher.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "removeWatcher")
    public synchronized void addWatcher(ProfileWatcher watcher) {
        ProfileWatcher[] more = java.util.Arrays.copyOf(watchers, watchers.length + 1);
        more[watchers.length] = watcher;
        watchers = more;
    }

    public synchronized void removeWatcher(ProfileWatcher watcher) {
        watchers = java.util.Arrays.stream(watchers).filter(w -> w != watcher).toArray(ProfileWatcher[]::new);
    }

    /** Binds a consumer; one arriving mid-session gets sessionStarted, then the batches from then on. */
    public void addConsumer(String name, SampleConsumer consumer) {
        feed.dispatcher.add(name, consumer);
    }

    /** Binds a consumer with its delivery (plain Java's {@code consumer.delivery}: a store is lossless). */
    public void addConsumer(String name, SampleConsumer consumer, Delivery delivery) {
        feed.dispatcher.add(name, consumer, delivery);
    }

    /** Unbinds a consumer; mid-session its thread stops and the session goes on. */
    public boolean removeConsumer(String name) {
        return feed.dispatcher.remove(name);
    }

    /** Binds a resolver in the profiler's symbol tables (for plain-Java wiring; DS binds them in the pipeline). */
    public void addResolver(String format, SymbolResolver resolver) {
        feed.symbolTables.addResolver(format, resolver);
    }

    public void removeResolver(String format, SymbolResolver resolver) {
        feed.symbolTables.removeResolver(format, resolver);
    }

    @Deactivate
    void deactivate() {
        feed.endOpenSessions(STOPPED);
        opcontrol.deactivate(STOPPED);
        feed.dispatcher.stopAll(1000);
    }

    // ---------------------------------------------------------------- Profiler

    @Override
    public List<String> consumers() {
        return feed.dispatcher.names();
    }

    @Override
    public Optional<SessionSummary> lastSummary() {
        return Optional.ofNullable(feed.lastSummary);
    }

    @Override
    public OpcontrolResult opcontrol(int domid, List<String> args) {
        return opcontrol.opcontrol(domid, args);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Guests running a profiler of their own ({@link org.hyperprof.api.host.Host#guestProfilerBuffers})
     * get one more session, of source {@value GuestSession#SOURCE}: their rings are restarted when
     * sampling starts, drained on every progress report and at the end, and the session ends with
     * its own books before the Xenoprof steps end the profile. With {@code systemWide} the summary
     * returned is Xenoprof's (the guests' session still reaches the consumers); without it no
     * Xenoprof step is taken, the host only runs, and the summary returned is the guests' session's.
     */
    @Override
    public SessionSummary profile(ProfileRequest request, ProgressListener progress) throws ProfileException {
        return oneShot.profile(request, watched(progress == null ? ProgressListener.NONE : progress));
    }

    /** The caller's listener, then every watcher; a watcher that throws misses that report only. */
    private ProgressListener watched(ProgressListener told) {
        return new ProgressListener() {
            @Override
            public void progress(long done, long total, long samples) {
                told.progress(done, total, samples);
                ProfileWatcher[] now = watchers;
                for (int i = 0; i < now.length; i++) {
                    ProfileWatcher w = now[i];
                    try {
                        w.progress(done, total, samples);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.DEBUG, "a profile watcher failed: " + e);
                    }
                }
            }

            @Override
            public boolean stopRequested() {
                return told.stopRequested();
            }
        };
    }

    /**
     * {@inheritDoc}
     *
     * <p>The lane shares this profiler's symbol tables and takes the settings in force now.
     */
    @Override
    public Optional<Lane> lane(HostService hosts, String consumerName, SampleConsumer consumer) {
        ProfilerImpl own = new ProfilerImpl(hosts, feed.symbolTables, feed.settings());
        own.addConsumer(consumerName, consumer);
        return Optional.of(new Lane() {
            @Override
            public Profiler profiler() {
                return own;
            }

            @Override
            public void close() {
                own.deactivate();
            }
        });
    }

    // ---------------------------------------------------------------- SessionPublisher

    @Override
    public Channel open(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary, boolean live) {
        return publisher.open(source, hostName, cpuType, cpuName, mhz, counters, domains, dictionary, live);
    }

    @Override
    public Replay replay(SessionInfo recorded) {
        return publisher.replay(recorded);
    }
}
