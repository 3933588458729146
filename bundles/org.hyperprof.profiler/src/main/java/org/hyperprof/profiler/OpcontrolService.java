package org.hyperprof.profiler;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostListener;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.PublishedSession;

/**
 * The opcontrol service: one oprofiled per domain of the current host, driven by opcontrol steps
 * taken as that domain, and the simulated session the daemons feed.
 *
 * <p>The primary's daemon also reads the passive domains' buffers ({@code --passive-domains}) and
 * resolves their samples coarsely ({@code domain<N>-xen/-kernel/-modules/-apps}, or the kernel
 * image given with {@code --passive-images}); {@code --callgraph} turns on Xen's call traces.
 * Domains destroyed or paused during a session are noticed at every step and at the session's
 * end: a destroyed domain's daemon stops, a paused one cannot run, and the summary notes both.
 * {@code --hold} and {@code --release} are simulation controls (not real opcontrol options) that
 * make a daemon stop and resume draining.
 *
 * <p>The one-shot profile ({@link OneShotProfile}) takes its steps through {@link #run}, with the
 * profiler's lock held.
 */
final class OpcontrolService {

    private final HostService hostService;
    private final ConsumerFeed feed;
    private final Map<Integer, DomainDaemon> daemons = new TreeMap<>();
    private final HostListener hostListener = this::hostStopped;
    private Host boundHost;

    OpcontrolService(HostService hostService, ConsumerFeed feed) {
        this.hostService = hostService;
        this.feed = feed;
    }

    /** Whether the daemons are those of {@code host}. Lock held. */
    boolean boundTo(Host host) {
        return boundHost == host;
    }

    /** The domains whose daemons run. Lock held. */
    List<Integer> runningDaemons() {
        List<Integer> running = new ArrayList<>();
        for (DomainDaemon d : daemons.values()) {
            if (d.running()) {
                running.add(d.domid);
            }
        }
        return running;
    }

    /** The profiler stops: the session ends, the daemons let go of their VIRQs, the host of its listener. */
    void deactivate(String reason) {
        synchronized (feed.lock) {
            endSession(reason);
            for (DomainDaemon d : daemons.values()) {
                d.detach();
            }
            daemons.clear();
            if (boundHost != null) {
                boundHost.removeListener(hostListener);
                boundHost = null;
            }
        }
    }

    /** {@link org.hyperprof.api.profiler.Profiler#opcontrol}. */
    OpcontrolResult opcontrol(int domid, List<String> args) {
        synchronized (feed.lock) {
            if (feed.oneShotRunning) {
                return new OpcontrolResult(false, OpcontrolGuide.oneShotRunning());
            }
            Optional<Host> current = hostService.current();
            if (current.isEmpty()) {
                return new OpcontrolResult(false, OpcontrolGuide.noHost(domid));
            }
            return run(current.get(), domid, args == null ? List.of() : args);
        }
    }

    /** One opcontrol step on {@code host}; the caller holds the lock. */
    OpcontrolResult run(Host host, int domid, List<String> args) {
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
        String cannotRun = OpcontrolGuide.cannotRun(host, domain, cmd);
        if (cannotRun != null) {
            return new OpcontrolResult(false, "opcontrol " + String.join(" ", args) + "   [as domain " + domid + ", "
                    + domain.name() + "]" + System.lineSeparator() + cannotRun);
        }
        Xenoprof xen = host.xenoprof();
        StepLog log = new StepLog(xen, domid);
        log.line("opcontrol " + String.join(" ", args) + "   [as domain " + domid + ", " + domain.name() + "]");
        DomainDaemon daemon = daemons.computeIfAbsent(domid, id -> new DomainDaemon(host, domain, xen, () -> feed.session));
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
     * The image files opcontrol names must exist, as the real opcontrol checks before any step
     * ("The specified XenImage ... does not exist"): a typo would otherwise pass unnoticed.
     */
    private static void checkImage(StepLog log, String option, String file, String what) throws StepLog.StepFailed {
        Path p;
        try {
            p = Path.of(file);
        } catch (InvalidPathException e) {
            throw log.fail(option + "=" + file + ": '" + file + "' is not a file name this system accepts ("
                    + e.getReason() + ")");
        }
        if (Files.isRegularFile(p)) {
            return;
        }
        throw log.fail(option + "=" + file + ": the specified " + what + " " + p.toAbsolutePath().normalize()
                + (Files.exists(p) ? " is not a regular file" : " does not exist") + "; give the path of the file, or"
                + " leave " + option + " out (the images of each domain's memory map are used either way)");
    }

    private void startDaemon(Host host, DomainDaemon daemon, OpcontrolCommand cmd, StepLog log)
            throws StepLog.StepFailed {
        PublishedSession p = feed.published;
        if (p != null) {
            // Refused before any hypercall: a daemon started now would start or join a simulated session.
            throw log.fail(OpcontrolGuide.publishedSessionOpen(p));
        }
        CounterConfig[] configs = checkEvents(host.model(), cmd.events, log);
        int[] activeIds = parseList(cmd.activeDomains, OpcontrolCommand.ACTIVE_FILE, log);
        int[] passiveIds = parseList(cmd.passiveDomains, OpcontrolCommand.PASSIVE_FILE, log);
        if (cmd.xenImage != null) {
            checkImage(log, "--xen", cmd.xenImage, "Xen image");
            log.line("  --xen=" + cmd.xenImage + ": hypervisor samples are resolved with the xen image of each domain's"
                    + " memory map");
        }
        if (cmd.vmlinux != null) {
            checkImage(log, "--vmlinux", cmd.vmlinux, "vmlinux file");
            log.line("  --vmlinux=" + cmd.vmlinux + ": kernel samples are resolved with the kernel image of the"
                    + " domain's memory map");
        }
        boolean hadSession = feed.session != null;
        int depth = cmd.callgraph == OpcontrolCommand.NO_CALLGRAPH ? 0 : cmd.callgraph;
        daemon.startDaemon(log, new DomainDaemon.Settings(configs, activeIds, passiveIds, cmd.passiveImages,
                cmd.maxSamples, depth));
        if (!daemon.primary() && !cmd.events.isEmpty()) {
            log.note(OpcontrolGuide.eventsOnlyInPrimary(daemon));
            daemon.guide.explainPrivileged(log, XenoprofOp.COUNTER);
        }
        if (daemon.primary()) {
            if (hadSession) {
                endSession("superseded: the primary started a new daemon");
            }
            startSession(host, daemon, log);
        } else {
            Session s = feed.session;
            if (s != null && s.host == host) {
                s.track(daemon.domid, daemon.readers(), roleOf(host, daemon.domid));
                log.line("Domain " + daemon.domid + " joins session " + s.id + ".");
            } else {
                log.note(OpcontrolGuide.noSessionYet(daemon));
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
        Session s = feed.session;
        try {
            daemon.writeLists(log, activeIds, passiveIds);
        } finally {
            if (s != null && daemon.primary()) {
                s.refreshRoles();
                for (PassiveDomain p : daemon.passives()) {
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
        long id = feed.nextSessionId();
        Map<Integer, String> names = new LinkedHashMap<>();
        for (DomainInfo d : host.domains()) {
            names.put(d.domid(), d.name());
        }
        Dictionary dictionary = new Dictionary();
        PmuModel model = host.model();
        SessionInfo info = new SessionInfo(id, "simulator", host.name(),
                primary.cpuType().isEmpty() ? model.cpuType() : primary.cpuType(), model.displayName(), host.mhz(),
                primary.counters(), names, true, dictionary);
        BatchBuilder collector = new BatchBuilder(id, feed.batchSize(), BatchBuilder.Reuse.WHEN_RELEASED, 0,
                feed.dispatcher::publish);
        Session s = new Session(id, host, primary.domid, info, dictionary, collector, feed.symbolTables);
        for (DomainDaemon d : daemons.values()) {
            if (d.running()) {
                s.track(d.domid, d.readers(), roleOf(host, d.domid));
            }
        }
        for (PassiveDomain p : primary.passives()) {
            s.track(p.domid, p.readers, DomainType.PASSIVE);
        }
        feed.session = s;
        feed.dispatcher.sessionStarted(info);
        log.line("Session " + id + " started on host " + host.name() + " (" + model.displayName() + ", "
                + host.mhz() + " MHz); consumers: " + (feed.dispatcher.names().isEmpty() ? "none"
                        : String.join(", ", feed.dispatcher.names())));
    }

    static DomainType roleOf(Host host, int domid) {
        return Session.roleOf(host.xenoprof(), domid);
    }

    private void start(Host host, DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        boolean was = daemon.started();
        try {
            daemon.start(log);
        } catch (StepLog.StepFailed f) {
            if (daemon.primary()) {
                OpcontrolGuide.notReady(host, daemon, daemons, log);
            }
            throw f;
        }
        Session s = feed.session;
        if (!was && daemon.primary() && s != null) {
            s.samplingStarted();
            s.refreshRoles();
            log.line("  ground truth restarts now (session " + s.id + ")");
        }
    }

    private void stop(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        boolean was = daemon.started();
        Session s = feed.session;
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
            throw log.fail(OpcontrolGuide.nothingToDump(daemon));
        }
        if (daemon.held()) {
            log.line(OpcontrolGuide.heldIgnoresDump(daemon));
            return;
        }
        int n = daemon.drainAll(false);
        Session s = feed.session;
        if (s != null) {
            s.collector.flush();
        }
        log.line("Drained " + n + " entries from the buffers of domain " + daemon.domid
                + (s == null ? " (no session runs: they were dropped)" : " into session " + s.id) + ".");
    }

    private void release(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        daemon.release(log);
        Session s = feed.session;
        if (s != null) {
            s.collector.flush();
        }
    }

    private void shutdown(DomainDaemon daemon, StepLog log, boolean deinit) throws StepLog.StepFailed {
        boolean wasPrimaryDaemon = daemon.primary() && daemon.running();
        Session s = feed.session;
        if (s != null) {
            s.refreshRoles();
            if (daemon.held() && daemon.running()) {
                s.note("held:" + daemon.domid, OpcontrolGuide.heldText(daemon, "when it was shut down"));
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
        if (wasPrimaryDaemon && s != null && feed.session == s) {
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
                log.note(OpcontrolGuide.daemonsStillRun(still));
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void status(Host host, DomainDaemon daemon, StepLog log) {
        Session s = feed.session;
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
                    + " symbols; consumers " + feed.dispatcher.names());
            for (String p : s.symbolProblems()) {
                log.line("  symbol problem: " + p);
            }
        } else {
            log.line("No session runs.");
        }
    }

    private void reset(DomainDaemon daemon, StepLog log) throws StepLog.StepFailed {
        if (!daemon.running()) {
            throw log.fail(OpcontrolGuide.nothingToReset(daemon));
        }
        int drained = daemon.drainAll(false);
        Session s = feed.session;
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
        log.line(OpcontrolGuide.resetDone(daemon, s, discarded));
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
    void checkDomains(Host host) {
        Session s = feed.session;
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
            for (PassiveDomain p : d.passives()) {
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
                    s.note("paused:" + domid, OpcontrolGuide.pausedDuringSession(domid, passive));
                } else if (st == DomainState.DESTROYED && !s.noted("destroyed:" + domid)) {
                    s.note("destroyed:" + domid, OpcontrolGuide.destroyedDuringSession(domid));
                }
            }
        }
    }

    /** The domain's state now; a domain the host cannot say anything of is taken as running. */
    static DomainState domainState(Host host, int domid) {
        return DomainAnswers.ask(host, domid, Host::domainState, DomainState.RUNNING);
    }

    // ---------------------------------------------------------------- sessions and hosts

    /**
     * Ends the current session: final drains, last batch, the consumers' end, the summary.
     * Caller holds the lock (or is deactivating).
     */
    SessionSummary endSession(String reason) {
        Session s = feed.session;
        if (s == null) {
            return null;
        }
        s.samplingStopped();
        for (DomainDaemon d : daemons.values()) {
            try {
                if (d.held() && d.running()) {
                    s.note("held:" + d.domid, OpcontrolGuide.heldText(d, "when the session ended"));
                } else if (d.running() && domainState(s.host, d.domid) == DomainState.PAUSED) {
                    s.note("paused-at-end:" + d.domid, OpcontrolGuide.pausedAtEnd(d));
                }
                d.drainAll(true);
            } catch (RuntimeException e) {
                s.symbolProblem("(drain of domain " + d.domid + ")", "the final drain of domain " + d.domid
                        + " failed: " + e);
            }
        }
        s.collector.close();
        feed.session = null;
        SessionSummary summary = feed.dispatcher.sessionEnded(s.id, consumers -> s.summarize(reason, consumers),
                feed.endTimeoutNanos());
        feed.lastSummary = summary;
        return summary;
    }

    void bindHost(Host host) {
        if (boundHost == host) {
            return;
        }
        if (boundHost != null) {
            Host old = boundHost;
            old.removeListener(hostListener);
            Session s = feed.session;
            if (s != null && s.host == old) {
                endSession("host " + old.name() + " was replaced by " + host.name());
            }
            forgetDaemons();
        }
        boundHost = host;
        host.addListener(hostListener);
    }

    void forgetDaemons() {
        for (DomainDaemon d : daemons.values()) {
            d.abandon();
        }
        daemons.clear();
    }

    /** The host stopped (its model departed, or it was unloaded): end its session, keep what was collected. */
    private void hostStopped(Host host, String reason) {
        synchronized (feed.lock) {
            Session s = feed.session;
            if (s != null && s.host == host) {
                endSession(reason == null ? "host " + host.name() + " stopped" : reason);
            }
            if (boundHost == host) {
                forgetDaemons();
                boundHost = null;
            }
        }
    }

    static String stopReason(Host host) {
        try {
            return host.stopReason();
        } catch (RuntimeException e) {
            return "its state cannot be read (" + e + ")";
        }
    }
}
