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
import org.hyperprof.api.host.DomainState;
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
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.Dispatcher;
import org.hyperprof.pipeline.PublishedSession;
import org.hyperprof.pipeline.SymbolTables;
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
 * <p>The primary's daemon also reads the passive domains' buffers ({@code --passive-domains}) and
 * resolves their samples coarsely ({@code domain<N>-xen/-kernel/-modules/-apps}, or the kernel
 * image given with {@code --passive-images}); {@code --callgraph} turns on Xen's call traces.
 * Domains destroyed or paused during a session are noticed at every step and at the session's
 * end: a destroyed domain's daemon stops, a paused one cannot run, and the summary notes both.
 * {@code --hold} and {@code --release} are simulation controls (not real opcontrol options) that
 * make a daemon stop and resume draining.
 *
 * <p>As a {@link SessionPublisher} it feeds the same consumers from other sample sources (a
 * perf.data import, a live {@code perf record}): one session at a time, simulated or published,
 * since every consumer sees one session's start, batches and end in order. Opening a published
 * session while a simulated one runs is refused, and so is starting a simulated one while a
 * published one is open.
 *
 * <p>Locks, always taken in this order: the profiler's lock (opcontrol steps, session start and
 * end), a daemon's monitor (draining one domain's buffers), a session's collector (appending
 * samples, publishing batches). A VIRQ handler never takes the profiler's lock, and no hypercall
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

    private final HostService hostService;
    private final int batchSize;
    private final long endTimeoutNanos;
    private final SymbolTables symbolTables = new SymbolTables();
    private final Dispatcher dispatcher;
    private final AtomicLong nextSessionId;

    private final Object lock = new Object();
    private final Map<Integer, DomainDaemon> daemons = new TreeMap<>();
    private final HostListener hostListener = this::hostStopped;
    private Host boundHost;
    private volatile Session session;
    /** The session a publisher feeds, or null. */
    private PublishedSession published;
    private volatile SessionSummary lastSummary;
    private boolean oneShotRunning;
    /** The session of the guests' own profilers during a one-shot profile, or null. */
    private GuestSession guestSession;

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
        this.dispatcher = new Dispatcher(queueCapacity);
        // Ids stay unique across restarts of the component within one framework run.
        this.nextSessionId = new AtomicLong(System.currentTimeMillis());
    }

    // ---------------------------------------------------------------- services coming and going

    @Reference(service = SampleConsumer.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindConsumer")
    void bindConsumer(SampleConsumer consumer, Map<String, Object> properties) {
        dispatcher.add(consumerName(consumer, properties), consumer,
                Delivery.of(properties.get(SampleConsumer.DELIVERY)));
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
        PublishedSession p;
        synchronized (lock) {
            p = published;
        }
        if (p != null) {
            p.endNow("the profiler stopped (its bundle was stopped or updated)");
        }
        GuestSession g;
        synchronized (lock) {
            g = guestSession;
        }
        if (g != null) {
            g.abort("the profiler stopped (its bundle was stopped or updated)");
        }
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
        checkDomains(host);
        String cannotRun = cannotRun(host, domain, cmd);
        if (cannotRun != null) {
            return new OpcontrolResult(false, "opcontrol " + String.join(" ", args) + "   [as domain " + domid + ", "
                    + domain.name() + "]" + System.lineSeparator() + cannotRun);
        }
        Xenoprof xen = host.xenoprof();
        StepLog log = new StepLog(xen, domid);
        log.line("opcontrol " + String.join(" ", args) + "   [as domain " + domid + ", " + domain.name() + "]");
        DomainDaemon daemon = daemons.computeIfAbsent(domid, id -> new DomainDaemon(host, domain, xen, () -> session));
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
                case START -> start(host, daemon, log);
                case STOP -> stop(daemon, log);
                case DUMP -> dump(daemon, log);
                case SHUTDOWN -> shutdown(daemon, log, false);
                case DEINIT -> shutdown(daemon, log, true);
                case STATUS -> status(host, daemon, log);
                case RESET -> reset(daemon, log);
                case HOLD -> daemon.hold(log);
                case RELEASE -> release(daemon, log);
                case WRITE_LISTS -> writeLists(daemon, cmd, log);
            }
        } catch (StepLog.StepFailed f) {
            return new OpcontrolResult(false, log.text());
        }
        return new OpcontrolResult(!log.failed(), log.text());
    }

    /**
     * Why nothing can run as this domain now, or null: a destroyed or paused domain runs no code,
     * and an HVM guest's kernel has no Xenoprof driver.
     */
    private String cannotRun(Host host, DomainInfo domain, OpcontrolCommand cmd) {
        int domid = domain.domid();
        DomainState state = domainState(host, domid);
        String primary = primaryText(host);
        if (state == DomainState.DESTROYED) {
            return "Domain " + domid + " (" + domain.name() + ") was destroyed: nothing runs in it any more, so it can"
                    + " take no opcontrol step (its daemon, if it had one, ended with it). The session goes on without"
                    + " it; " + primary + " ends it as usual (opcontrol --stop, then --shutdown as the primary).";
        }
        if (state == DomainState.PAUSED) {
            return "Domain " + domid + " (" + domain.name() + ") is paused (xl pause): its vCPUs are not scheduled, so"
                    + " nothing runs in it, opcontrol included, and its daemon cannot drain. Unpause it first"
                    + " (xl unpause " + domid + "), then run opcontrol " + cmd.action.flag + " as domain " + domid + ".";
        }
        if (domain.hvm() && cmd.action != OpcontrolCommand.Action.STATUS) {
            return "Domain " + domid + " (" + domain.name() + ") is an HVM guest. The Xenoprof driver is part of"
                    + " XenLinux, the PV kernel; an HVM guest's kernel has none, so its OProfile never issues a"
                    + " XENOPROF hypercall (it falls back to \"oprofile: using timer interrupt.\"). Were its"
                    + " get_buffer issued by hand, Xen would return 0 with no usable buffer address on x86"
                    + " (\"xenoprof unsupported with autotranslated guests\") and leave the pages shared with domain "
                    + domid + ", so that a later set_passive of it would fail with -16 (EBUSY). An HVM guest is"
                    + " profiled passively: " + primaryOrHardware(host) + " runs opcontrol --start-daemon"
                    + " --passive-domains=" + domid + " (it reads the guest's samples and resolves its kernel with"
                    + " --passive-images).";
        }
        return null;
    }

    private void startDaemon(Host host, DomainDaemon daemon, OpcontrolCommand cmd, StepLog log)
            throws StepLog.StepFailed {
        PublishedSession p = published;
        if (p != null) {
            // Refused before any hypercall: a daemon started now would start or join a simulated session.
            throw log.fail("Session " + p.sessionId() + " fed by " + p.source() + " is open: its consumers see"
                    + " one session at a time, so no daemon may start a simulated one now. Wait until " + p.source()
                    + " ends (its import or recording finishes), then run --start-daemon again.");
        }
        CounterConfig[] configs = checkEvents(host.model(), cmd.events, log);
        int[] activeIds = parseList(cmd.activeDomains, OpcontrolCommand.ACTIVE_FILE, log);
        int[] passiveIds = parseList(cmd.passiveDomains, OpcontrolCommand.PASSIVE_FILE, log);
        if (cmd.xenImage != null) {
            log.line("  --xen=" + cmd.xenImage + ": hypervisor samples are resolved with the xen image of each domain's"
                    + " memory map");
        }
        if (cmd.vmlinux != null) {
            log.line("  --vmlinux=" + cmd.vmlinux + ": kernel samples are resolved with the kernel image of the"
                    + " domain's memory map");
        }
        boolean hadSession = session != null;
        int depth = cmd.callgraph == OpcontrolCommand.NO_CALLGRAPH ? 0 : cmd.callgraph;
        daemon.startDaemon(log, new DomainDaemon.Settings(configs, activeIds, passiveIds, cmd.passiveImages,
                cmd.maxSamples, depth));
        if (!daemon.primary() && !cmd.events.isEmpty()) {
            log.note("--event only configures counters in the primary; domain " + daemon.domid + " uses the"
                    + " primary's counters");
            daemon.explainPrivileged(log, XenoprofOp.COUNTER);
        }
        if (daemon.primary()) {
            if (hadSession) {
                endSession("superseded: the primary started a new daemon");
            }
            startSession(host, daemon, log);
        } else {
            Session s = session;
            if (s != null && s.host == host) {
                s.track(daemon.domid, daemon.readers(), roleOf(host, daemon.domid));
                log.line("Domain " + daemon.domid + " joins session " + s.id + ".");
            } else {
                log.note("no session runs yet: domain " + daemon.domid + "'s samples join the session that the"
                        + " primary's --start-daemon starts");
            }
        }
    }

    /** A domain list as its oprofilefs file parses it; null when not given. */
    private static int[] parseList(String text, String file, StepLog log) throws StepLog.StepFailed {
        if (text == null) {
            return null;
        }
        try {
            return OpcontrolCommand.parseDomainList(text, file);
        } catch (OpcontrolCommand.DomainListException e) {
            throw log.fail("The write to " + file + " fails with " + StepLog.describe(-22) + ": " + e.getMessage());
        }
    }

    /** {@code opcontrol --active-domains=... [--passive-domains=...]} without an action. */
    private void writeLists(DomainDaemon daemon, OpcontrolCommand cmd, StepLog log) throws StepLog.StepFailed {
        int[] activeIds = parseList(cmd.activeDomains, OpcontrolCommand.ACTIVE_FILE, log);
        int[] passiveIds = parseList(cmd.passiveDomains, OpcontrolCommand.PASSIVE_FILE, log);
        Session s = session;
        try {
            daemon.writeLists(log, activeIds, passiveIds);
        } finally {
            if (s != null && daemon.primary()) {
                s.refreshRoles();
                for (DomainDaemon.PassiveDomain p : daemon.passives()) {
                    s.track(p.domid, p.readers, DomainType.PASSIVE);
                }
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
        Dictionary dictionary = new Dictionary();
        PmuModel model = host.model();
        SessionInfo info = new SessionInfo(id, "simulator", host.name(),
                primary.cpuType().isEmpty() ? model.cpuType() : primary.cpuType(), model.displayName(), host.mhz(),
                primary.counters(), names, true, dictionary);
        BatchBuilder collector = new BatchBuilder(id, batchSize, BatchBuilder.Reuse.WHEN_RELEASED, 0,
                dispatcher::publish);
        Session s = new Session(id, host, primary.domid, info, dictionary, collector, symbolTables);
        for (DomainDaemon d : daemons.values()) {
            if (d.running()) {
                s.track(d.domid, d.readers(), roleOf(host, d.domid));
            }
        }
        for (DomainDaemon.PassiveDomain p : primary.passives()) {
            s.track(p.domid, p.readers, DomainType.PASSIVE);
        }
        session = s;
        dispatcher.sessionStarted(info);
        log.line("Session " + id + " started on host " + host.name() + " (" + model.displayName() + ", "
                + host.mhz() + " MHz); consumers: " + (dispatcher.names().isEmpty() ? "none"
                        : String.join(", ", dispatcher.names())));
    }

    private static DomainType roleOf(Host host, int domid) {
        try {
            DomainType t = host.xenoprof().domainType(domid);
            return t == null ? DomainType.IGNORED : t;
        } catch (RuntimeException e) {
            return DomainType.IGNORED;
        }
    }

    private void start(Host host, DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        boolean was = daemon.started();
        try {
            daemon.start(log);
        } catch (StepLog.StepFailed f) {
            if (daemon.primary()) {
                notReady(host, daemon, log);
            }
            throw f;
        }
        Session s = session;
        if (!was && daemon.primary() && s != null) {
            s.samplingStarted();
            s.refreshRoles();
            log.line("  ground truth restarts now (session " + s.id + ")");
        }
    }

    /** After a refused start: which listed active domains are not ready, and who must act. */
    private void notReady(Host host, DomainDaemon primary, StepLog log) {
        Xenoprof xen = host.xenoprof();
        int[] listed;
        try {
            if (xen.state() != org.hyperprof.api.xenoprof.XenoprofState.READY) {
                return;
            }
            listed = xen.activeList();
        } catch (RuntimeException e) {
            return;
        }
        List<Integer> passiveNow = new ArrayList<>();
        try {
            for (int id : xen.passiveList()) {
                passiveNow.add(id);
            }
        } catch (RuntimeException e) {
            passiveNow.clear();
        }
        List<String> waiting = new ArrayList<>();
        for (int id : listed) {
            if (id < 0 || roleOf(host, id) == DomainType.ACTIVE) {
                continue;
            }
            DomainInfo d;
            try {
                d = host.domain(id);
            } catch (RuntimeException e) {
                waiting.add("domain " + id + " (no such domain any more)");
                continue;
            }
            DomainDaemon dd = daemons.get(id);
            String what;
            if (d.hvm()) {
                what = "an HVM guest, which can never call enable_virq: domain " + primary.domid + " runs --shutdown"
                        + " and --start-daemon with it in --passive-domains instead";
            } else if (passiveNow.contains(id)) {
                what = "also in the passive list: set_passive shared its pages with domain " + primary.domid + ", so"
                        + " its get_buffer fails with -16 (EBUSY); domain " + primary.domid + " runs --shutdown and"
                        + " --start-daemon with it in one list only";
            } else if (domainState(host, id) == DomainState.PAUSED) {
                what = "paused: unpause it (xl unpause " + id + "), then domain " + id + " runs opcontrol --start-daemon";
            } else if (dd != null && dd.running()) {
                what = "its daemon runs but is not ready in this session: domain " + id + " runs --shutdown and"
                        + " --start-daemon again";
            } else {
                what = "domain " + id + " runs opcontrol --start-daemon";
            }
            waiting.add("domain " + id + " (" + d.name() + "): " + what);
        }
        if (!waiting.isEmpty()) {
            log.line("  Listed active " + Arrays.toString(listed) + "; not ready yet:");
            for (String w : waiting) {
                log.line("    " + w);
            }
            log.line("  Then domain " + primary.domid + " runs opcontrol --start again. (The real opcontrol went on to"
                    + " claim the profiler was running, although nothing was profiled.)");
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

    private void dump(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        if (!daemon.running()) {
            throw log.fail("The daemon of domain " + daemon.domid + " (" + daemon.name + ") is not running, so nothing"
                    + " reads its buffers and --dump has nothing to ask. Run opcontrol --start-daemon as domain "
                    + daemon.domid + " first.");
        }
        if (daemon.held()) {
            log.line("The daemon of domain " + daemon.domid + " is held (--hold): it ignores --dump; "
                    + daemon.pendingEntries() + " entries wait in its buffers. opcontrol --release as domain "
                    + daemon.domid + " lets it read again.");
            return;
        }
        int n = daemon.drainAll(false);
        Session s = session;
        if (s != null) {
            s.collector.flush();
        }
        log.line("Drained " + n + " entries from the buffers of domain " + daemon.domid
                + (s == null ? " (no session runs: they were dropped)" : " into session " + s.id) + ".");
    }

    private void release(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        daemon.release(log);
        Session s = session;
        if (s != null) {
            s.collector.flush();
        }
    }

    private void shutdown(DomainDaemon daemon, StepLog log, boolean deinit) throws StepLog.StepFailed {
        boolean wasPrimaryDaemon = daemon.primary() && daemon.running();
        Session s = session;
        if (s != null) {
            s.refreshRoles();
            if (daemon.held() && daemon.running()) {
                s.note("held:" + daemon.domid, heldText(daemon, "when it was shut down"));
            }
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
            describeSummary(summary, log);
            if (!still.isEmpty()) {
                log.note("the daemons of domains " + still + " still run; shut them down first next time (domUs"
                        + " before dom0): what they drain now belongs to no session");
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static String heldText(DomainDaemon d, String when) {
        return "the daemon of domain " + d.domid + " (" + d.name + ") was held (opcontrol --hold, a simulation control)"
                + " " + when + ": it read nothing while held; " + d.pendingEntries() + " entries stayed in its"
                + " buffers (counted undrained), and the samples Xen could not write into its full rings are in their"
                + " lost counts";
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

    private void reset(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        if (!daemon.running()) {
            throw log.fail("No daemon runs in domain " + daemon.domid + " (" + daemon.name + "), so it has no samples"
                    + " of its own to reset (a passive domain's samples belong to the primary's daemon: the primary's"
                    + " --reset clears them). Run opcontrol --start-daemon as domain " + daemon.domid + " first.");
        }
        int drained = daemon.drainAll(false);
        Session s = session;
        if (s == null) {
            log.line("No session runs; drained and dropped " + drained + " entries from the buffers of domain "
                    + daemon.domid + ".");
            return;
        }
        int discarded = 0;
        for (int d : daemon.resetDomains()) {
            discarded += s.collector.discardDomain(d);
            DomainView v = s.existingView(d);
            PassiveView pv = d == daemon.domid ? null : s.existingPassiveView(d);
            synchronized (s.collector) {
                if (v != null && d == daemon.domid) {
                    v.resetTallies();
                }
                if (pv != null) {
                    pv.resetTallies();
                }
            }
        }
        log.line("Reset domain " + daemon.domid + (daemon.resetDomains().size() > 1 ? " and its passive domains" : "")
                + " in session " + s.id + ": discarded " + discarded + " samples not yet handed to consumers and"
                + " cleared its counts. Batches consumers already received stay theirs (a consumer has no way to"
                + " take samples back).");
    }

    private static void describeSummary(SessionSummary summary, StepLog log) {
        if (summary == null) {
            return;
        }
        log.line("  " + summary.accounting().line());
        log.line("  profiled " + summary.simulatedCycles() + " cycles per CPU; end: " + summary.endReason());
        for (ConsumerAccounting c : summary.consumers()) {
            log.line("  consumer " + c.consumer() + ": received " + c.received() + ", missed " + c.missed()
                    + (c.problem() == null ? "" : " (" + c.problem() + ")"));
        }
        for (String n : summary.notes()) {
            log.line("  note: " + n);
        }
    }

    // ---------------------------------------------------------------- domains coming and going

    /**
     * Notices domains destroyed or paused since the last look: a destroyed domain's daemon stops
     * (and the primary stops reading a destroyed passive domain), the session notes what happened,
     * and the other domains go on. Caller holds the lock.
     */
    private void checkDomains(Host host) {
        Session s = session;
        for (DomainDaemon d : daemons.values()) {
            if (!d.gone() && domainState(host, d.domid) == DomainState.DESTROYED) {
                boolean wasPrimaryDaemon = d.primary() && d.running();
                String text = d.destroyed();
                if (s != null) {
                    s.note("destroyed:" + d.domid, text);
                    if (wasPrimaryDaemon && s.primary == d.domid) {
                        endSession("the primary, domain " + d.domid + ", was destroyed; nobody can stop the session");
                        s = null;
                    }
                }
            }
            for (DomainDaemon.PassiveDomain p : d.passives()) {
                if (!p.gone && domainState(host, p.domid) == DomainState.DESTROYED) {
                    d.passiveDestroyed(p.domid);
                }
            }
        }
        if (s != null) {
            for (int domid : s.trackedDomains()) {
                DomainState st = domainState(host, domid);
                if (st == DomainState.PAUSED && !s.noted("paused:" + domid)) {
                    boolean passive = roleOf(host, domid) == DomainType.PASSIVE;
                    s.note("paused:" + domid, "domain " + domid + " was paused during the session (xl pause): its"
                            + " vCPUs ran no code while paused, so it has no samples for that time"
                            + (passive ? "; as a passive domain its buffers stayed readable by the primary"
                                    : "; its daemon could not run, so its VIRQs waited and its rings filled"));
                } else if (st == DomainState.DESTROYED && !s.noted("destroyed:" + domid)) {
                    s.note("destroyed:" + domid, "domain " + domid + " was destroyed during the session: Xen freed"
                            + " its buffers and dropped it from its lists; what they held is counted undrained");
                }
            }
        }
    }

    private static DomainState domainState(Host host, int domid) {
        try {
            DomainState s = host.domainState(domid);
            return s == null ? DomainState.RUNNING : s;
        } catch (RuntimeException e) {
            return DomainState.RUNNING;
        }
    }

    private static String primaryText(Host host) {
        int p = primaryId(host);
        return p < 0 ? "the hardware domain" : "domain " + p + " (the primary)";
    }

    private static String primaryOrHardware(Host host) {
        int p = primaryId(host);
        if (p >= 0) {
            return "domain " + p;
        }
        for (DomainInfo d : host.domains()) {
            if (d.hardwareDomain()) {
                return "domain " + d.domid();
            }
        }
        return "the hardware domain";
    }

    private static int primaryId(Host host) {
        try {
            return host.xenoprof().primary();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    // ---------------------------------------------------------------- SessionPublisher

    @Override
    public Channel open(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary, boolean live) {
        if (source == null || source.isBlank() || hostName == null || counters == null || domains == null
                || dictionary == null) {
            throw new IllegalArgumentException("a published session needs a source name, a host name, its counters,"
                    + " its domains and its dictionary (got source " + source + ", host " + hostName + ", counters "
                    + counters + ", domains " + domains + ", dictionary " + dictionary + ")");
        }
        synchronized (lock) {
            Session s = session;
            if (s != null || oneShotRunning) {
                throw new IllegalStateException("a simulated session" + (s != null ? " (session " + s.id + ")" : "")
                        + " is running, and the consumers see one session at a time; end it first (opcontrol"
                        + " --shutdown as the primary, or wait for the one-shot profile), then start " + source);
            }
            if (published != null) {
                throw new IllegalStateException("session " + published.sessionId() + " fed by " + published.source()
                        + " is still open; the consumers see one session at a time: wait until it ends, then start "
                        + source);
            }
            PublishedSession p = openChannel(source, hostName, cpuType, cpuName, mhz, counters, domains, dictionary,
                    false, !live, this::endPublished);
            published = p;
            return p;
        }
    }

    /**
     * Starts a published session for every consumer (the path of {@link #open}, and of the guests'
     * own profilers' session). The caller holds the lock and has checked that it may start.
     */
    private PublishedSession openChannel(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary,
            boolean groundTruth, boolean canWait, PublishedSession.Ending ending) {
        long id = nextSessionId.incrementAndGet();
        SessionInfo info = new SessionInfo(id, source, hostName, cpuType == null ? "unknown" : cpuType,
                cpuName == null ? "" : cpuName, mhz, counters, domains, groundTruth, dictionary);
        PublishedSession p = new PublishedSession(id, source, dispatcher, endTimeoutNanos, ending);
        dispatcher.sessionStarted(info, canWait);
        return p;
    }

    /** Ends a published session once: builds its summary under the lock and keeps it as the last one. */
    private SessionSummary endPublished(PublishedSession p, java.util.function.Supplier<SessionSummary> summarize) {
        synchronized (lock) {
            SessionSummary done = p.summary();
            if (done != null) {
                return done;
            }
            SessionSummary s = summarize.get();
            if (published == p) {
                published = null;
            }
            lastSummary = s;
            return s;
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
                if (d.held() && d.running()) {
                    s.note("held:" + d.domid, heldText(d, "when the session ended"));
                } else if (d.running() && domainState(s.host, d.domid) == DomainState.PAUSED) {
                    s.note("paused-at-end:" + d.domid, "domain " + d.domid + " (" + d.name + ") was paused when the"
                            + " session ended: its daemon could not run its last drain; " + d.pendingEntries()
                            + " entries stayed in its buffers (counted undrained)");
                }
                d.drainAll(true);
            } catch (RuntimeException e) {
                s.symbolProblem("(drain of domain " + d.domid + ")", "the final drain of domain " + d.domid
                        + " failed: " + e);
            }
        }
        s.collector.close();
        session = null;
        SessionSummary summary = dispatcher.sessionEnded(s.id, consumers -> s.summarize(reason, consumers),
                endTimeoutNanos);
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

    /** The domains of a one-shot profile, checked before any step. */
    private record Plan(int dom0, List<Integer> active, List<Integer> others, List<Integer> passive,
            List<String> images, int callgraph) {
    }

    /**
     * Puts in the session's notes why its run can be expected to take no sample (the host's
     * forecast from the scenario's values and the counters), so that the report says so.
     */
    private static void warnIfNoSamples(Host host, long micros, Session s) {
        List<String> reasons;
        try {
            reasons = host.noSamplesExpected(micros);
        } catch (RuntimeException e) {
            return; // the forecast is advice; a host that cannot give it runs all the same
        }
        for (int i = 0; i < reasons.size(); i++) {
            s.note("no-samples-" + i, "no samples can be expected from this run: " + reasons.get(i));
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Guests running a profiler of their own ({@link Host#guestProfilerBuffers}) get one more
     * session, of source {@value GuestSession#SOURCE}: their rings are restarted when sampling
     * starts, drained on every progress report and at the end, and the session ends with its own
     * books before the Xenoprof steps end the profile. With {@code systemWide} the summary returned
     * is Xenoprof's (the guests' session still reaches the consumers); without it no Xenoprof step
     * is taken, the host only runs, and the summary returned is the guests' session's.
     */
    @Override
    public SessionSummary profile(ProfileRequest request, ProgressListener progress) throws ProfileException {
        Host host;
        Plan plan = null;
        Session s = null;
        GuestSession guests;
        boolean systemWide = request.systemWide();
        synchronized (lock) {
            if (oneShotRunning) {
                throw new ProfileException("A one-shot profile is already running; wait for it to finish.");
            }
            if (published != null) {
                throw new ProfileException("Session " + published.sessionId() + " fed by " + published.source()
                        + " is open; the consumers see one session at a time. Wait until it ends, then profile.");
            }
            host = hostService.current().orElseThrow(() -> new ProfileException("No simulated host is loaded. Run"
                    + " hp:load first (hp:load " + HostService.DEFAULT_SCENARIO + " loads the default scenario)."));
            String stopped = stopReason(host);
            if (stopped != null) {
                throw new ProfileException("Host " + host.name() + " has stopped: " + stopped
                        + ". Load a scenario again with hp:load.");
            }
            if (request.micros() <= 0 || request.micros() > Host.MAX_RUN_MICROS) {
                throw new ProfileException("Profile duration " + request.micros() + " us: give 1 to "
                        + Host.MAX_RUN_MICROS + " simulated microseconds (one simulated hour) to run.");
            }
            bindHost(host);
            checkDomains(host);
            List<Integer> busy = new ArrayList<>();
            for (DomainDaemon d : daemons.values()) {
                if (d.running()) {
                    busy.add(d.domid);
                }
            }
            if (!busy.isEmpty()) {
                throw new ProfileException("Daemons already run in domains " + busy + " (a session set up with"
                        + " opcontrol, or a domain paused when the last profile ended). Finish it first: opcontrol"
                        + " --shutdown as each domU (unpaused), then as the primary.");
            }
            if (!systemWide) {
                guests = openGuestsOnly(host, request);
                oneShotRunning = true;
            } else {
                plan = plan(host, request);
                s = startSystemWide(host, request, plan);
                warnIfNoSamples(host, request.micros(), s);
                guests = openGuestsAlongside(host, s);
                oneShotRunning = true;
            }
        }
        ProgressListener told = progress == null ? ProgressListener.NONE : progress;
        GuestSession g = guests;
        ProgressListener listener = g == null ? told : new ProgressListener() {
            @Override
            public void progress(long done, long total, long samples) {
                g.drain();
                told.progress(done, total, samples);
            }

            @Override
            public boolean stopRequested() {
                return told.stopRequested();
            }
        };
        long startCycles = host.cycles();
        try {
            host.run(request.micros(), listener);
            noteStoppedEarly(host, request.micros(), host.cycles() - startCycles, s, guests);
        } catch (HostStoppedException e) {
            synchronized (lock) {
                oneShotRunning = false;
                SessionSummary guestSummary = closeGuests(guests, e.getMessage());
                if (!systemWide) {
                    if (boundHost == host) {
                        forgetDaemons();
                    }
                    return guestSummary;
                }
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
                closeGuests(guests, "the simulation failed: " + e);
                if (systemWide) {
                    teardown(host, plan.dom0(), plan.others());
                }
            }
            throw new ProfileException("The simulation failed while profiling: " + e
                    + ". The session was shut down; this is a defect of the hypervisor bundle.");
        }
        synchronized (lock) {
            oneShotRunning = false;
            SessionSummary guestSummary = closeGuests(guests, SessionSummary.COMPLETED);
            if (!systemWide) {
                return guestSummary;
            }
            return endSystemWide(host, plan, s);
        }
    }

    /**
     * A run the user stopped early (Ctrl-C) ended between two steps; the profile then ends as any
     * does, so its books are exact. Its sessions say how far it came.
     */
    private static void noteStoppedEarly(Host host, long askedMicros, long ranCycles, Session s, GuestSession g) {
        long ranMicros = host.mhz() > 0 ? ranCycles / host.mhz() : askedMicros;
        if (ranMicros >= askedMicros) {
            return;
        }
        String text = String.format(java.util.Locale.ROOT, "the run was stopped early on request after %.3f of %d ms"
                + " simulated; the samples taken until then are kept and counted", ranMicros / 1000.0,
                askedMicros / 1000);
        if (s != null) {
            s.note("stopped-early", text);
        }
        if (g != null) {
            g.note("stopped-early", text);
        }
    }

    /** The Xenoprof steps of a one-shot profile up to {@code --start}; returns its session. Lock held. */
    private Session startSystemWide(Host host, ProfileRequest request, Plan plan) throws ProfileException {
        List<String> args = new ArrayList<>();
        args.add("--start-daemon");
        for (String e : request.events()) {
            args.add("--event=" + e);
        }
        args.add("--active-domains=" + join(plan.active()));
        if (!plan.passive().isEmpty()) {
            args.add("--passive-domains=" + join(plan.passive()));
            if (!plan.images().isEmpty()) {
                args.add("--passive-images=" + String.join(",", plan.images()));
            }
        }
        if (plan.callgraph() > 0) {
            args.add("--callgraph=" + plan.callgraph());
        }
        expectOk(run(host, plan.dom0(), args), "setting up the primary, domain " + plan.dom0());
        List<Integer> started = new ArrayList<>();
        for (int d : plan.others()) {
            OpcontrolResult r = run(host, d, List.of("--start-daemon"));
            if (!r.ok()) {
                teardown(host, plan.dom0(), started);
                throw new ProfileException("Setting up domain " + d + " failed:" + System.lineSeparator() + r.output());
            }
            started.add(d);
        }
        OpcontrolResult r = run(host, plan.dom0(), List.of("--start"));
        if (!r.ok()) {
            teardown(host, plan.dom0(), started);
            throw new ProfileException("Starting the profile failed:" + System.lineSeparator() + r.output());
        }
        return session;
    }

    /** The Xenoprof steps that end a one-shot profile after its run; returns its summary. Lock held. */
    private SessionSummary endSystemWide(Host host, Plan plan, Session s) throws ProfileException {
        checkDomains(host);
        // Every step is taken even when one fails, so no daemon is left running.
        List<OpcontrolResult> failed = new ArrayList<>();
        if (session == s && !gone(host, plan.dom0())) {
            OpcontrolResult stop = run(host, plan.dom0(), List.of("--stop"));
            if (!stop.ok()) {
                failed.add(stop);
            }
        }
        // Documented order: the domUs' daemons end before the primary's. A destroyed domain's daemon
        // ended with it; a paused one cannot run its shutdown (the session notes say so).
        for (int d : plan.others()) {
            if (domainState(host, d) != DomainState.RUNNING) {
                continue;
            }
            OpcontrolResult r = run(host, d, List.of("--shutdown"));
            if (!r.ok()) {
                failed.add(r);
            }
        }
        if (!gone(host, plan.dom0())) {
            OpcontrolResult last = run(host, plan.dom0(), List.of("--shutdown"));
            if (!last.ok()) {
                failed.add(last);
            }
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
                    + plan.dom0() + ".");
        }
        return summary;
    }

    /**
     * {@code systemWide=false}: a new ground-truth interval, the guests' rings restarted, and their
     * session opened; no Xenoprof step. Lock held.
     *
     * @throws ProfileException when no guest runs a profiler of its own
     */
    private GuestSession openGuestsOnly(Host host, ProfileRequest request) throws ProfileException {
        host.resetGroundTruth();
        List<String> notes = new ArrayList<>();
        if (!request.events().isEmpty() || !request.activeDomains().isEmpty() || !request.passiveDomains().isEmpty()
                || !request.passiveImages().isEmpty() || request.callgraphDepth() > 0) {
            notes.add("the request's events, domain lists and call-graph depth configure Xenoprof, which this"
                    + " profile did not run (systemWide=false): each guest's profiler counts what it programmed");
        }
        GuestSession g = openGuestSession(host, true, notes);
        if (g == null) {
            String policy = policyOf(host);
            if ("systemwide".equals(policy)) {
                throw new ProfileException("Host " + host.name() + " runs the counter-virtualization policy"
                        + " 'systemwide': Xenoprof owns the PMU and guests have none, so no guest can run a profiler of"
                        + " its own and a profile without system-wide profiling (systemWide=false) has nothing to"
                        + " read. Profile system-wide (Xenoprof, dom0 as primary), or load a scenario whose vpmu.policy"
                        + " gives guests their PMU and has 'profiler' lines for the guests that should profile"
                        + " themselves.");
            }
            throw new ProfileException("Host " + host.name() + "'s policy " + (policy == null ? "" : "'" + policy
                    + "' ") + "gives guests the PMU, but no guest runs a profiler of its own, so a profile without"
                    + " system-wide profiling (systemWide=false) has nothing to read. Add 'profiler' lines to the"
                    + " scenario for the guests that should profile themselves, or profile system-wide (Xenoprof,"
                    + " dom0 as primary).");
        }
        return g;
    }

    /**
     * {@code systemWide=true}, after {@code --start} (the ground truth restarted): the guests' own
     * profilers' session, if any guest runs one. A failure to read them is noted in the Xenoprof
     * session and the profile goes on without them. Lock held.
     */
    private GuestSession openGuestsAlongside(Host host, Session s) {
        try {
            return openGuestSession(host, false, List.of());
        } catch (RuntimeException e) {
            if (s != null) {
                s.note("guest-profilers", "the guests' own profilers could not be read (" + e + "); this profile"
                        + " has Xenoprof's samples only. This is a defect of the hypervisor bundle.");
            }
            return null;
        }
    }

    /**
     * Restarts the guests' rings and, when some guest runs a profiler, opens their session through
     * the publisher path. Lock held.
     *
     * @param main whether the session is the profile's result (its summary becomes the last one)
     * @return the session, or null when no guest runs a profiler of its own
     */
    private GuestSession openGuestSession(Host host, boolean main, List<String> notes) {
        host.restartGuestProfilerBuffers();
        List<GuestSession.Guest> found = GuestSession.find(host);
        if (found.isEmpty()) {
            return null;
        }
        List<String> opening = new ArrayList<>(notes);
        List<CounterConfig> counters = GuestSession.union(found, opening);
        Dictionary dictionary = new Dictionary();
        PmuModel model = host.model();
        PublishedSession channel = openChannel(GuestSession.SOURCE, host.name(), model == null ? null
                : model.cpuType(), model == null ? null : model.displayName(), host.mhz(), counters,
                GuestSession.domains(found), dictionary, true, true, (p, summarize) -> endGuests(p, summarize, main));
        GuestSession g;
        try {
            g = new GuestSession(host, found, channel, dictionary, symbolTables, batchSize, opening);
        } catch (RuntimeException e) {
            channel.endNow("the guests' own profilers could not be read: " + e);
            throw e;
        }
        guestSession = g;
        return g;
    }

    /** Ends the guests' session once; its summary becomes the last one when it is the profile's result. */
    private SessionSummary endGuests(PublishedSession p, java.util.function.Supplier<SessionSummary> summarize,
            boolean main) {
        synchronized (lock) {
            SessionSummary done = p.summary();
            if (done != null) {
                return done;
            }
            SessionSummary s = summarize.get();
            GuestSession g = guestSession;
            if (g != null && g.channel() == p) {
                guestSession = null;
            }
            if (main) {
                lastSummary = s;
            }
            return s;
        }
    }

    /** Closes the guests' session (null: none); a failure ends it with what was published. Lock held. */
    private static SessionSummary closeGuests(GuestSession g, String reason) {
        if (g == null) {
            return null;
        }
        try {
            return g.close(reason == null || reason.isBlank() ? SessionSummary.COMPLETED : reason);
        } catch (RuntimeException e) {
            return g.abort("ending the guests' own profilers' session failed (" + e + "); " + reason);
        }
    }

    private static String policyOf(Host host) {
        try {
            return host.policy();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean gone(Host host, int domid) {
        return domainState(host, domid) == DomainState.DESTROYED;
    }

    private void teardown(Host host, int dom0, List<Integer> others) {
        for (int d : others) {
            if (domainState(host, d) == DomainState.RUNNING) {
                run(host, d, List.of("--shutdown"));
            }
        }
        run(host, dom0, List.of("--shutdown"));
    }

    private static void expectOk(OpcontrolResult r, String what) throws ProfileException {
        if (!r.ok()) {
            throw new ProfileException("The one-shot profile failed " + what + ":" + System.lineSeparator() + r.output());
        }
    }

    /**
     * Which domain does what: the hardware domain is the primary; the passive domains are the
     * request's; the active ones are the request's, or every domain that can be active (not HVM)
     * and is not passive.
     */
    private static Plan plan(Host host, ProfileRequest request) throws ProfileException {
        int dom0 = hardwareDomain(host);
        List<Integer> passive = new ArrayList<>();
        for (int id : request.passiveDomains()) {
            DomainInfo d = existing(host, id, "profile domain " + id + " passively");
            if (d.hardwareDomain()) {
                throw new ProfileException("Domain " + id + " is the hardware domain, the primary profiler: it is"
                        + " always active, and a domain is profiled in one mode at a time. Leave it out of the"
                        + " passive domains.");
            }
            if (gone(host, id)) {
                throw new ProfileException("Domain " + id + " was destroyed; it cannot be profiled. The host's domains"
                        + " are " + domainList(host) + ".");
            }
            if (!passive.contains(id)) {
                passive.add(id);
            }
        }
        if (request.passiveImages().size() > passive.size()) {
            throw new ProfileException(request.passiveImages().size() + " passive images given for "
                    + passive.size() + " passive domain(s) " + passive + ": give at most one kernel image per passive"
                    + " domain, in the same order.");
        }
        List<Integer> active = new ArrayList<>();
        if (request.activeDomains().isEmpty()) {
            for (DomainInfo d : host.domains()) {
                boolean canBeActive = !d.hvm() || d.hardwareDomain();
                if (canBeActive && !passive.contains(d.domid()) && !gone(host, d.domid())) {
                    active.add(d.domid());
                }
            }
        } else {
            for (int id : request.activeDomains()) {
                DomainInfo d = existing(host, id, "profile domain " + id + " actively");
                if (passive.contains(id)) {
                    throw new ProfileException("Domain " + id + " is asked for both as active and as passive: a domain"
                            + " is profiled in one mode at a time (its pages can be shared with only one domain)."
                            + " List it in one of the two.");
                }
                if (d.hvm() && !d.hardwareDomain()) {
                    throw new ProfileException("Domain " + id + " (" + d.name() + ") is an HVM guest: it cannot be"
                            + " active on x86 (no Xenoprof driver, no usable buffer address). Profile it passively.");
                }
                if (!active.contains(id)) {
                    active.add(id);
                }
            }
        }
        if (!active.contains(dom0)) {
            active.add(0, dom0);
        }
        List<Integer> others = new ArrayList<>();
        for (int d : active) {
            if (d != dom0) {
                others.add(d);
            }
        }
        return new Plan(dom0, active, others, passive, request.passiveImages(), request.callgraphDepth());
    }

    private static DomainInfo existing(Host host, int id, String what) throws ProfileException {
        try {
            return host.domain(id);
        } catch (IllegalArgumentException e) {
            throw new ProfileException("Cannot " + what + ": " + e.getMessage());
        }
    }

    private static String domainList(Host host) {
        return host.domains().stream().map(d -> d.domid() + " (" + d.name() + ")").toList().toString();
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

    private static String join(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","));
    }
}
