package org.hyperprof.profiler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostListener;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The daemon side of Hyperprof: one oprofiled per domain of the current host, driven by opcontrol
 * steps taken as that domain, and the session that feeds the sample consumers.
 *
 * <p>Wired by DS (the host service statically, resolvers and consumers dynamically), or in plain
 * Java: {@code new ProfilerImpl(hostService)}, then {@link #addResolver}, {@link #addConsumer}.
 *
 * <p>Locks, always taken in this order: the profiler's lock (opcontrol steps, session start and
 * end), a daemon's monitor (draining one domain's buffers), a session's collector (appending
 * samples, publishing batches). A VIRQ handler never takes the profiler's lock, and no hypercall
 * is made while a daemon's monitor or a collector is held.
 */
@Component(service = Profiler.class, configurationPid = ProfilerImpl.PID)
@Designate(ocd = ProfilerConfiguration.class)
public final class ProfilerImpl implements Profiler {

    /** Configuration Admin PID of the profiler's settings ({@link ProfilerConfiguration}). */
    public static final String PID = "org.hyperprof.profiler";

    /** Samples per batch handed to the consumers. */
    public static final int DEFAULT_BATCH_SIZE = 4096;
    /** Batches each consumer's queue holds before it starts missing samples. */
    public static final int DEFAULT_QUEUE_CAPACITY = 64;
    /** How long the end of a session waits for the consumers to take what is queued for them. */
    public static final Duration DEFAULT_END_TIMEOUT = Duration.ofSeconds(10);

    private final HostService hostService;
    private final int batchSize;
    private final long endTimeoutNanos;
    private final SymbolTables symbolTables = new SymbolTables();
    private final ConsumerDispatcher dispatcher;
    private final AtomicLong nextSessionId;

    private final Object lock = new Object();
    private final Map<Integer, DomainDaemon> daemons = new TreeMap<>();
    private final HostListener hostListener = this::hostStopped;
    private Host boundHost;
    private volatile Session session;
    private volatile SessionSummary lastSummary;
    private boolean oneShotRunning;

    public ProfilerImpl(HostService hostService) {
        this(hostService, DEFAULT_BATCH_SIZE, DEFAULT_QUEUE_CAPACITY, DEFAULT_END_TIMEOUT);
    }

    /** The DS constructor: settings from Configuration Admin, defaults when none are set. */
    @Activate
    public ProfilerImpl(@Reference(name = "hostService") HostService hostService, ProfilerConfiguration config) {
        this(hostService, config.batch_size(), config.consumer_queue_batches(),
                Duration.ofSeconds(config.session_end_timeout_seconds()));
    }

    /**
     * @param batchSize     samples per batch
     * @param queueCapacity batches each consumer's queue holds
     * @param endTimeout    how long a session's end waits for slow consumers
     */
    public ProfilerImpl(HostService hostService, int batchSize, int queueCapacity, Duration endTimeout) {
        if (hostService == null) {
            throw new IllegalArgumentException("a HostService is required: the profiler drives the current host");
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size " + batchSize + " must be at least 1 sample");
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("consumer queue of " + queueCapacity + " batches must hold at least 1");
        }
        if (endTimeout.isNegative()) {
            throw new IllegalArgumentException("session end wait " + endTimeout + " must not be negative");
        }
        this.hostService = hostService;
        this.batchSize = batchSize;
        this.endTimeoutNanos = endTimeout.toNanos();
        this.dispatcher = new ConsumerDispatcher(queueCapacity);
        // Ids stay unique across restarts of the component within one framework run.
        this.nextSessionId = new AtomicLong(System.currentTimeMillis());
    }

    // ---------------------------------------------------------------- services coming and going

    @Reference(service = SampleConsumer.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindConsumer")
    void bindConsumer(SampleConsumer consumer, Map<String, Object> properties) {
        addConsumer(consumerName(consumer, properties), consumer);
    }

    void unbindConsumer(SampleConsumer consumer, Map<String, Object> properties) {
        dispatcher.remove(consumerName(consumer, properties), consumer);
    }

    @Reference(service = SymbolResolver.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindResolver")
    void bindResolver(SymbolResolver resolver, Map<String, Object> properties) {
        addResolver(resolverFormat(resolver, properties), resolver);
    }

    void unbindResolver(SymbolResolver resolver, Map<String, Object> properties) {
        removeResolver(resolverFormat(resolver, properties), resolver);
    }

    /** Binds a consumer; one arriving mid-session gets sessionStarted, then the batches from then on. */
    public void addConsumer(String name, SampleConsumer consumer) {
        dispatcher.add(name, consumer);
    }

    /** Unbinds a consumer; mid-session its thread stops and the session goes on. */
    public boolean removeConsumer(String name) {
        return dispatcher.remove(name);
    }

    public void addResolver(String format, SymbolResolver resolver) {
        symbolTables.addResolver(format, resolver);
    }

    public void removeResolver(String format, SymbolResolver resolver) {
        symbolTables.removeResolver(format, resolver);
    }

    private static String consumerName(SampleConsumer consumer, Map<String, Object> properties) {
        Object n = properties.get(SampleConsumer.NAME);
        return n != null ? n.toString() : consumer.getClass().getName();
    }

    private static String resolverFormat(SymbolResolver resolver, Map<String, Object> properties) {
        Object f = properties.get(SymbolResolver.FORMAT);
        return f != null ? f.toString() : resolver.format();
    }

    @Deactivate
    void deactivate() {
        synchronized (lock) {
            endSession("the profiler stopped (its bundle was stopped or updated)");
            for (DomainDaemon d : daemons.values()) {
                d.detach();
            }
            daemons.clear();
            if (boundHost != null) {
                boundHost.removeListener(hostListener);
                boundHost = null;
            }
        }
        dispatcher.stopAll(1000);
    }

    // ---------------------------------------------------------------- Profiler

    @Override
    public List<String> consumers() {
        return dispatcher.names();
    }

    @Override
    public Optional<SessionSummary> lastSummary() {
        return Optional.ofNullable(lastSummary);
    }

    @Override
    public OpcontrolResult opcontrol(int domid, List<String> args) {
        synchronized (lock) {
            if (oneShotRunning) {
                return new OpcontrolResult(false, "A one-shot profile is running on this host; opcontrol steps"
                        + " would interfere with it. Wait until it has finished, then try again.");
            }
            Optional<Host> current = hostService.current();
            if (current.isEmpty()) {
                return new OpcontrolResult(false, "No simulated host is loaded, so there is no domain " + domid
                        + " to run opcontrol in. Run hp:load first (hp:load " + HostService.DEFAULT_SCENARIO
                        + " loads the default scenario), then opcontrol as one of its domains.");
            }
            return run(current.get(), domid, args == null ? List.of() : args);
        }
    }

    /** One opcontrol step on {@code host}; the caller holds the lock. */
    private OpcontrolResult run(Host host, int domid, List<String> args) {
        String stopped = stopReason(host);
        if (stopped != null) {
            return new OpcontrolResult(false, "Host " + host.name() + " has stopped: " + stopped
                    + ". Load a scenario again with hp:load to profile.");
        }
        bindHost(host);
        DomainInfo domain;
        try {
            domain = host.domain(domid);
        } catch (IllegalArgumentException e) {
            return new OpcontrolResult(false, "opcontrol cannot run as domain " + domid + ": " + e.getMessage());
        }
        OpcontrolCommand cmd;
        try {
            cmd = OpcontrolCommand.parse(args);
        } catch (OpcontrolCommand.UsageException e) {
            return new OpcontrolResult(false, e.getMessage());
        }
        Xenoprof xen = host.xenoprof();
        StepLog log = new StepLog(xen, domid);
        log.line("opcontrol " + String.join(" ", args) + "   [as domain " + domid + ", " + domain.name() + "]");
        DomainDaemon daemon = daemons.computeIfAbsent(domid, id -> new DomainDaemon(domain, xen, () -> session));
        try {
            switch (cmd.action) {
                case INIT -> {
                    if (daemon.loaded()) {
                        log.line("The Xenoprof driver of domain " + domid + " is already loaded.");
                    } else {
                        daemon.init(log);
                    }
                }
                case START_DAEMON -> startDaemon(host, daemon, cmd, log);
                case START -> start(daemon, log);
                case STOP -> stop(daemon, log);
                case DUMP -> dump(daemon, log);
                case SHUTDOWN -> shutdown(daemon, log, false);
                case DEINIT -> shutdown(daemon, log, true);
                case STATUS -> status(host, daemon, log);
                case RESET -> reset(daemon, log);
            }
        } catch (StepLog.StepFailed f) {
            return new OpcontrolResult(false, log.text());
        }
        return new OpcontrolResult(!log.failed(), log.text());
    }

    private void startDaemon(Host host, DomainDaemon daemon, OpcontrolCommand cmd, StepLog log)
            throws StepLog.StepFailed {
        CounterConfig[] configs = checkEvents(host.model(), cmd.events, log);
        int[] activeIds = null;
        if (cmd.activeDomains != null) {
            try {
                activeIds = OpcontrolCommand.parseActiveDomains(cmd.activeDomains);
            } catch (OpcontrolCommand.ActiveDomainsException e) {
                throw log.fail("The write to /dev/oprofile/active_domains fails with " + StepLog.describe(-22) + ": "
                        + e.getMessage());
            }
        }
        if (cmd.xenImage != null) {
            log.line("  --xen=" + cmd.xenImage + ": hypervisor samples are resolved with the xen image of each domain's"
                    + " memory map");
        }
        if (cmd.vmlinux != null) {
            log.line("  --vmlinux=" + cmd.vmlinux + ": kernel samples are resolved with the kernel image of the"
                    + " domain's memory map");
        }
        boolean hadSession = session != null;
        daemon.startDaemon(log, configs, activeIds, cmd.maxSamples);
        if (!daemon.primary() && !cmd.events.isEmpty()) {
            log.note("--event only configures counters in the primary; domain " + daemon.domid + " uses the"
                    + " primary's counters");
        }
        if (daemon.primary()) {
            if (hadSession) {
                endSession("superseded: the primary started a new daemon");
            }
            startSession(host, daemon, log);
        } else {
            Session s = session;
            if (s != null && s.host == host) {
                s.track(daemon.domid, daemon.readers());
                log.line("Domain " + daemon.domid + " joins session " + s.id + ".");
            } else {
                log.note("no session runs yet: domain " + daemon.domid + "'s samples join the session that the"
                        + " primary's --start-daemon starts");
            }
        }
    }

    /** The events to count, checked against the CPU model before any hypercall (as opcontrol did with ophelp). */
    private static CounterConfig[] checkEvents(PmuModel model, List<String> events, StepLog log)
            throws StepLog.StepFailed {
        if (model == null) {
            throw log.fail("The host has no CPU model, so no events can be counted; load a scenario whose cpu.type"
                    + " model bundle is installed.");
        }
        List<String> texts = events.isEmpty() ? List.of(model.defaultEvent()) : events;
        List<EventSpec> specs = new ArrayList<>();
        try {
            for (String t : texts) {
                specs.add(EventSpec.parse(t));
            }
            CounterConfig[] configs = model.allocate(specs);
            if (configs == null || configs.length != specs.size()) {
                throw log.fail("The " + model.cpuType() + " model did not assign a counter to every event " + texts
                        + "; its bundle is defective.");
            }
            return configs;
        } catch (EventSpecException e) {
            throw log.fail("Invalid event for " + model.displayName() + " (" + model.cpuType() + "): " + e.getMessage());
        }
    }

    private void startSession(Host host, DomainDaemon primary, StepLog log) {
        long id = nextSessionId.incrementAndGet();
        Map<Integer, String> names = new LinkedHashMap<>();
        for (DomainInfo d : host.domains()) {
            names.put(d.domid(), d.name());
        }
        SessionDictionaryImpl dictionary = new SessionDictionaryImpl();
        PmuModel model = host.model();
        SessionInfo info = new SessionInfo(id, "simulator", host.name(),
                primary.cpuType().isEmpty() ? model.cpuType() : primary.cpuType(), model.displayName(), host.mhz(),
                primary.counters(), names, true, dictionary);
        BatchCollector collector = new BatchCollector(id, batchSize, dispatcher::publish);
        Session s = new Session(id, host, primary.domid, info, dictionary, collector, symbolTables);
        for (DomainDaemon d : daemons.values()) {
            if (d.running()) {
                s.track(d.domid, d.readers());
            }
        }
        session = s;
        dispatcher.sessionStarted(info);
        log.line("Session " + id + " started on host " + host.name() + " (" + model.displayName() + ", "
                + host.mhz() + " MHz); consumers: " + (dispatcher.names().isEmpty() ? "none"
                        : String.join(", ", dispatcher.names())));
    }

    private void start(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        boolean was = daemon.started();
        daemon.start(log);
        Session s = session;
        if (!was && daemon.primary() && s != null) {
            s.samplingStarted();
            s.refreshRoles();
            log.line("  ground truth restarts now (session " + s.id + ")");
        }
    }

    private void stop(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        boolean was = daemon.started();
        Session s = session;
        if (s != null && daemon.primary()) {
            s.refreshRoles();
        }
        daemon.stop(log);
        if (was && daemon.primary() && s != null) {
            s.samplingStopped();
            s.collector.flush();
        }
    }

    private void dump(DomainDaemon daemon, StepLog log) {
        int n = daemon.drainAll();
        Session s = session;
        if (s != null) {
            s.collector.flush();
        }
        log.line("Drained " + n + " entries from the buffers of domain " + daemon.domid
                + (s == null ? " (no session runs: they were dropped)" : " into session " + s.id) + ".");
    }

    private void shutdown(DomainDaemon daemon, StepLog log, boolean deinit) throws StepLog.StepFailed {
        boolean wasPrimaryDaemon = daemon.primary() && daemon.running();
        Session s = session;
        if (s != null && daemon.primary()) {
            s.refreshRoles();
        }
        StepLog.StepFailed failure = null;
        try {
            if (deinit) {
                daemon.deinit(log);
            } else {
                daemon.shutdown(log);
            }
        } catch (StepLog.StepFailed f) {
            failure = f;
        }
        if (wasPrimaryDaemon && s != null && session == s) {
            List<Integer> still = new ArrayList<>();
            for (DomainDaemon d : daemons.values()) {
                if (d.running()) {
                    still.add(d.domid);
                }
            }
            SessionSummary summary = endSession(SessionSummary.COMPLETED);
            log.line("Session " + s.id + " ended.");
            describeSummary(summary, s, log);
            if (!still.isEmpty()) {
                log.note("the daemons of domains " + still + " still run; shut them down first next time (domUs"
                        + " before dom0): what they drain now belongs to no session");
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void status(Host host, DomainDaemon daemon, StepLog log) {
        Session s = session;
        daemon.status(log, s != null && s.host == host ? s : null);
        Xenoprof x = host.xenoprof();
        try {
            log.line("Xenoprof on host " + host.name() + ": state " + x.state() + ", primary "
                    + (x.primary() < 0 ? "none" : "domain " + x.primary()) + ", active list "
                    + Arrays.toString(x.activeList()) + " (" + x.activated() + " of " + x.activeListSize()
                    + " have called enable_virq), passive list " + Arrays.toString(x.passiveList())
                    + ", backtrace depth " + x.backtraceDepth());
            XenoprofStatistics st = x.statistics();
            log.line("  " + Session.accounting(st).line());
            log.line("  (active " + st.activeSamples() + ", passive " + st.passiveSamples() + ", others "
                    + st.othersSamples() + ", invalid buffer " + st.invalidBufferSamples() + ", corrupted buffer "
                    + st.corruptedBufferSamples() + ")");
        } catch (RuntimeException e) {
            log.line("Xenoprof state unavailable: " + e.getMessage());
        }
        if (s != null) {
            log.line("Session " + s.id + ": " + s.collector.publishedSamples() + " samples in "
                    + s.collector.publishedBatches() + " batches handed to consumers, " + s.collector.pending()
                    + " pending; " + s.dictionary.imageCount() + " images, " + s.dictionary.symbolCount()
                    + " symbols; consumers " + dispatcher.names());
            for (String p : s.symbolProblems()) {
                log.line("  symbol problem: " + p);
            }
        } else {
            log.line("No session runs.");
        }
    }

    private void reset(DomainDaemon daemon, StepLog log) {
        int drained = daemon.drainAll();
        Session s = session;
        if (s == null) {
            log.line("No session runs; drained and dropped " + drained + " entries from the buffers of domain "
                    + daemon.domid + ".");
            return;
        }
        int discarded = s.collector.discardDomain(daemon.domid);
        DomainView v = s.existingView(daemon.domid);
        if (v != null) {
            synchronized (s.collector) {
                v.resetTallies();
            }
        }
        log.line("Reset domain " + daemon.domid + " in session " + s.id + ": discarded " + discarded
                + " samples not yet handed to consumers and cleared its counts. Batches consumers already"
                + " received stay theirs (a consumer has no way to take samples back).");
    }

    private static void describeSummary(SessionSummary summary, Session s, StepLog log) {
        if (summary == null) {
            return;
        }
        log.line("  " + summary.accounting().line());
        log.line("  profiled " + summary.simulatedCycles() + " cycles per CPU; end: " + summary.endReason());
        for (ConsumerAccounting c : summary.consumers()) {
            log.line("  consumer " + c.consumer() + ": received " + c.received() + ", missed " + c.missed()
                    + (c.problem() == null ? "" : " (" + c.problem() + ")"));
        }
        for (String p : s.symbolProblems()) {
            log.line("  symbol problem: " + p);
        }
    }

    // ---------------------------------------------------------------- sessions and hosts

    /**
     * Ends the current session: final drains, last batch, the consumers' end, the summary.
     * Caller holds the lock (or is deactivating).
     */
    private SessionSummary endSession(String reason) {
        Session s = session;
        if (s == null) {
            return null;
        }
        s.samplingStopped();
        for (DomainDaemon d : daemons.values()) {
            try {
                d.drainAll();
            } catch (RuntimeException e) {
                s.symbolProblem("(drain of domain " + d.domid + ")", "the final drain of domain " + d.domid
                        + " failed: " + e);
            }
        }
        s.collector.close();
        session = null;
        SessionSummary summary = dispatcher.sessionEnded(consumers -> s.summarize(reason, consumers), endTimeoutNanos);
        lastSummary = summary;
        return summary;
    }

    private void bindHost(Host host) {
        if (boundHost == host) {
            return;
        }
        if (boundHost != null) {
            Host old = boundHost;
            old.removeListener(hostListener);
            Session s = session;
            if (s != null && s.host == old) {
                endSession("host " + old.name() + " was replaced by " + host.name());
            }
            forgetDaemons();
        }
        boundHost = host;
        host.addListener(hostListener);
    }

    private void forgetDaemons() {
        for (DomainDaemon d : daemons.values()) {
            d.abandon();
        }
        daemons.clear();
    }

    /** The host stopped (its model departed, or it was unloaded): end its session, keep what was collected. */
    private void hostStopped(Host host, String reason) {
        synchronized (lock) {
            Session s = session;
            if (s != null && s.host == host) {
                endSession(reason == null ? "host " + host.name() + " stopped" : reason);
            }
            if (boundHost == host) {
                forgetDaemons();
                boundHost = null;
            }
        }
    }

    private static String stopReason(Host host) {
        try {
            return host.stopReason();
        } catch (RuntimeException e) {
            return "its state cannot be read (" + e + ")";
        }
    }

    // ---------------------------------------------------------------- one-shot profile

    @Override
    public SessionSummary profile(ProfileRequest request, ProgressListener progress) throws ProfileException {
        Host host;
        int dom0;
        List<Integer> others = new ArrayList<>();
        Session s;
        synchronized (lock) {
            if (oneShotRunning) {
                throw new ProfileException("A one-shot profile is already running; wait for it to finish.");
            }
            host = hostService.current().orElseThrow(() -> new ProfileException("No simulated host is loaded. Run"
                    + " hp:load first (hp:load " + HostService.DEFAULT_SCENARIO + " loads the default scenario)."));
            String stopped = stopReason(host);
            if (stopped != null) {
                throw new ProfileException("Host " + host.name() + " has stopped: " + stopped
                        + ". Load a scenario again with hp:load.");
            }
            if (request.micros() <= 0) {
                throw new ProfileException("Profile duration " + request.micros()
                        + " us: give a positive number of simulated microseconds to run.");
            }
            bindHost(host);
            List<Integer> busy = new ArrayList<>();
            for (DomainDaemon d : daemons.values()) {
                if (d.running()) {
                    busy.add(d.domid);
                }
            }
            if (!busy.isEmpty()) {
                throw new ProfileException("Daemons already run in domains " + busy + " (a session set up with"
                        + " opcontrol). Finish it first: opcontrol --shutdown as each domU, then as the primary.");
            }
            dom0 = hardwareDomain(host);
            List<Integer> active = activeDomains(host, request);
            for (int d : active) {
                if (d != dom0) {
                    others.add(d);
                }
            }
            List<String> args = new ArrayList<>();
            args.add("--start-daemon");
            for (String e : request.events()) {
                args.add("--event=" + e);
            }
            args.add("--active-domains=" + join(active));
            expectOk(run(host, dom0, args), "setting up the primary, domain " + dom0);
            List<Integer> started = new ArrayList<>();
            for (int d : others) {
                OpcontrolResult r = run(host, d, List.of("--start-daemon"));
                if (!r.ok()) {
                    teardown(host, dom0, started);
                    throw new ProfileException("Setting up domain " + d + " failed:" + System.lineSeparator() + r.output());
                }
                started.add(d);
            }
            OpcontrolResult r = run(host, dom0, List.of("--start"));
            if (!r.ok()) {
                teardown(host, dom0, started);
                throw new ProfileException("Starting the profile failed:" + System.lineSeparator() + r.output());
            }
            s = session;
            oneShotRunning = true;
        }
        try {
            host.run(request.micros(), progress == null ? ProgressListener.NONE : progress);
        } catch (HostStoppedException e) {
            synchronized (lock) {
                oneShotRunning = false;
                if (session == s) {
                    endSession(e.getMessage());
                }
                if (boundHost == host) {
                    forgetDaemons();
                }
                SessionSummary summary = s == null ? null : s.summary();
                if (summary == null) {
                    throw new ProfileException("The host stopped during the profile (" + e.getMessage()
                            + ") and no summary could be made.");
                }
                return summary;
            }
        } catch (RuntimeException e) {
            synchronized (lock) {
                oneShotRunning = false;
                teardown(host, dom0, others);
            }
            throw new ProfileException("The simulation failed while profiling: " + e
                    + ". The session was shut down; this is a defect of the hypervisor bundle.");
        }
        synchronized (lock) {
            oneShotRunning = false;
            // Every step is taken even when one fails, so no daemon is left running.
            List<OpcontrolResult> failed = new ArrayList<>();
            OpcontrolResult stop = run(host, dom0, List.of("--stop"));
            if (!stop.ok()) {
                failed.add(stop);
            }
            // Documented order: the domUs' daemons end before the primary's.
            for (int d : others) {
                OpcontrolResult r = run(host, d, List.of("--shutdown"));
                if (!r.ok()) {
                    failed.add(r);
                }
            }
            OpcontrolResult last = run(host, dom0, List.of("--shutdown"));
            if (!last.ok()) {
                failed.add(last);
            }
            if (!failed.isEmpty()) {
                StringBuilder b = new StringBuilder("The one-shot profile ran, but ending it failed:");
                for (OpcontrolResult r : failed) {
                    b.append(System.lineSeparator()).append(r.output());
                }
                throw new ProfileException(b.toString());
            }
            SessionSummary summary = s == null ? null : s.summary();
            if (summary == null) {
                throw new ProfileException("The session ended without a summary; see opcontrol --status as domain "
                        + dom0 + ".");
            }
            return summary;
        }
    }

    private void teardown(Host host, int dom0, List<Integer> others) {
        for (int d : others) {
            run(host, d, List.of("--shutdown"));
        }
        run(host, dom0, List.of("--shutdown"));
    }

    private static void expectOk(OpcontrolResult r, String what) throws ProfileException {
        if (!r.ok()) {
            throw new ProfileException("The one-shot profile failed " + what + ":" + System.lineSeparator() + r.output());
        }
    }

    private static int hardwareDomain(Host host) throws ProfileException {
        for (DomainInfo d : host.domains()) {
            if (d.hardwareDomain()) {
                return d.domid();
            }
        }
        throw new ProfileException("Host " + host.name() + " has no hardware domain, and only the hardware domain"
                + " may become the primary profiler; the scenario must mark one domain (dom0) as hardware domain.");
    }

    /** The request's domains, or every domain that can be active (HVM guests cannot on x86). */
    private static List<Integer> activeDomains(Host host, ProfileRequest request) throws ProfileException {
        List<Integer> out = new ArrayList<>();
        if (request.activeDomains().isEmpty()) {
            for (DomainInfo d : host.domains()) {
                if (!d.hvm() || d.hardwareDomain()) {
                    out.add(d.domid());
                }
            }
            return out;
        }
        for (int id : request.activeDomains()) {
            try {
                host.domain(id);
            } catch (IllegalArgumentException e) {
                throw new ProfileException("Cannot profile domain " + id + ": " + e.getMessage());
            }
            if (!out.contains(id)) {
                out.add(id);
            }
        }
        return out;
    }

    private static String join(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","));
    }
}
