package org.hyperprof.profiler;

import static org.hyperprof.profiler.OpcontrolService.domainState;
import static org.hyperprof.profiler.OpcontrolService.stopReason;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.PublishedSession;

/**
 * The one-shot profile ({@code hp:profile}): the opcontrol steps of the 2006 workflow taken for
 * the user (set up, start, run, stop, shut the domUs down before dom0), and the session of the
 * guests' own profilers beside it. No opcontrol step may be taken while it runs, and no published
 * session may open.
 */
final class OneShotProfile {

    /** The policy under which Xenoprof owns the counters and guests have none. */
    private static final String SYSTEMWIDE = "systemwide";

    private final HostService hostService;
    private final ConsumerFeed feed;
    private final OpcontrolService opcontrol;

    OneShotProfile(HostService hostService, ConsumerFeed feed, OpcontrolService opcontrol) {
        this.hostService = hostService;
        this.feed = feed;
        this.opcontrol = opcontrol;
    }

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
     * {@link org.hyperprof.api.profiler.Profiler#profile}, with the guests' own profilers' session
     * beside Xenoprof's (see {@link ProfilerImpl#profile}).
     */
    SessionSummary profile(ProfileRequest request, ProgressListener progress) throws ProfileException {
        Host host;
        Plan plan = null;
        Session s = null;
        GuestSession guests;
        boolean systemWide = request.systemWide();
        synchronized (feed.lock) {
            if (feed.oneShotRunning) {
                throw new ProfileException("A one-shot profile is already running; wait for it to finish.");
            }
            PublishedSession open = feed.published;
            if (open != null) {
                throw new ProfileException(OpcontrolGuide.publishedSessionOpenForProfile(open));
            }
            host = hostService.current().orElseThrow(() -> new ProfileException(OpcontrolGuide.noHostToProfile()));
            String stopped = stopReason(host);
            if (stopped != null) {
                throw new ProfileException("Host " + host.name() + " has stopped: " + stopped
                        + ". Load a scenario again with hp:load.");
            }
            if (request.micros() <= 0 || request.micros() > Host.MAX_RUN_MICROS) {
                throw new ProfileException(OpcontrolGuide.durationOutOfRange(request.micros()));
            }
            opcontrol.bindHost(host);
            opcontrol.checkDomains(host);
            List<Integer> busy = opcontrol.runningDaemons();
            if (!busy.isEmpty()) {
                throw new ProfileException(OpcontrolGuide.daemonsAlreadyRun(busy));
            }
            if (!systemWide) {
                guests = openGuestsOnly(host, request);
                feed.oneShotRunning = true;
            } else {
                plan = plan(host, request);
                s = startSystemWide(host, request, plan);
                warnIfNoSamples(host, request.micros(), s);
                guests = openGuestsAlongside(host, s);
                feed.oneShotRunning = true;
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
            noteGuestProfilers(host, s, guests);
        } catch (HostStoppedException e) {
            synchronized (feed.lock) {
                feed.oneShotRunning = false;
                SessionSummary guestSummary = closeGuests(guests, e.getMessage());
                if (!systemWide) {
                    if (opcontrol.boundTo(host)) {
                        opcontrol.forgetDaemons();
                    }
                    return guestSummary;
                }
                if (feed.session == s) {
                    opcontrol.endSession(e.getMessage());
                }
                if (opcontrol.boundTo(host)) {
                    opcontrol.forgetDaemons();
                }
                SessionSummary summary = s == null ? null : s.summary();
                if (summary == null) {
                    throw new ProfileException("The host stopped during the profile (" + e.getMessage()
                            + ") and no summary could be made.");
                }
                return summary;
            }
        } catch (RuntimeException e) {
            synchronized (feed.lock) {
                feed.oneShotRunning = false;
                closeGuests(guests, "the simulation failed: " + e);
                if (systemWide) {
                    teardown(host, plan.dom0(), plan.others());
                }
            }
            throw new ProfileException(OpcontrolGuide.simulationFailed(e));
        }
        synchronized (feed.lock) {
            feed.oneShotRunning = false;
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
        String text = OpcontrolGuide.stoppedEarly(ranMicros, askedMicros);
        if (s != null) {
            s.note("stopped-early", text);
        }
        if (g != null) {
            g.note("stopped-early", text);
        }
    }

    /**
     * A guest's own profiler that stopped or never started (the policy refused one of its writes)
     * is named with the reason in every session of the profile, so the report says it rather than
     * a host counter. Under systemwide guests have no PMU by design, which is no news.
     */
    private static void noteGuestProfilers(Host host, Session s, GuestSession g) {
        List<String> reasons;
        try {
            if (SYSTEMWIDE.equals(host.policy())) {
                return;
            }
            reasons = host.guestProfilerNotes();
        } catch (RuntimeException e) {
            return; // advice from the host; a profile goes on without it
        }
        for (int i = 0; i < reasons.size(); i++) {
            String text = "guest profiler: " + reasons.get(i);
            if (s != null) {
                s.note("guest-profiler-" + i, text);
            }
            if (g != null) {
                g.note("guest-profiler-" + i, text);
            }
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
        expectOk(opcontrol.run(host, plan.dom0(), args), "setting up the primary, domain " + plan.dom0());
        List<Integer> started = new ArrayList<>();
        for (int d : plan.others()) {
            OpcontrolResult r = opcontrol.run(host, d, List.of("--start-daemon"));
            if (!r.ok()) {
                teardown(host, plan.dom0(), started);
                throw new ProfileException("Setting up domain " + d + " failed:" + System.lineSeparator() + r.output());
            }
            started.add(d);
        }
        OpcontrolResult r = opcontrol.run(host, plan.dom0(), List.of("--start"));
        if (!r.ok()) {
            teardown(host, plan.dom0(), started);
            throw new ProfileException("Starting the profile failed:" + System.lineSeparator() + r.output());
        }
        return feed.session;
    }

    /** The Xenoprof steps that end a one-shot profile after its run; returns its summary. Lock held. */
    private SessionSummary endSystemWide(Host host, Plan plan, Session s) throws ProfileException {
        opcontrol.checkDomains(host);
        // Every step is taken even when one fails, so no daemon is left running.
        List<OpcontrolResult> failed = new ArrayList<>();
        if (feed.session == s && !gone(host, plan.dom0())) {
            OpcontrolResult stop = opcontrol.run(host, plan.dom0(), List.of("--stop"));
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
            OpcontrolResult r = opcontrol.run(host, d, List.of("--shutdown"));
            if (!r.ok()) {
                failed.add(r);
            }
        }
        if (!gone(host, plan.dom0())) {
            OpcontrolResult last = opcontrol.run(host, plan.dom0(), List.of("--shutdown"));
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
            notes.add(OpcontrolGuide.xenoprofSettingsUnused());
        }
        GuestSession g = openGuestSession(host, true, notes);
        if (g == null) {
            String policy = policyOf(host);
            if (SYSTEMWIDE.equals(policy)) {
                throw new ProfileException(OpcontrolGuide.guestsHaveNoPmu(host));
            }
            throw new ProfileException(OpcontrolGuide.noGuestProfiler(host, policy));
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
                s.note("guest-profilers", OpcontrolGuide.guestProfilersUnreadable(e));
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
        PublishedSession channel = feed.openChannel(GuestSession.SOURCE, host.name(), model == null ? null
                : model.cpuType(), model == null ? null : model.displayName(), host.mhz(), counters,
                GuestSession.domains(found), dictionary, true, true, (p, summarize) -> endGuests(p, summarize, main));
        GuestSession g;
        try {
            g = new GuestSession(host, found, channel, dictionary, feed.symbolTables, feed.batchSize(), opening);
        } catch (RuntimeException e) {
            channel.endNow("the guests' own profilers could not be read: " + e);
            throw e;
        }
        feed.guestSession = g;
        return g;
    }

    /** Ends the guests' session once; its summary becomes the last one when it is the profile's result. */
    private SessionSummary endGuests(PublishedSession p, Supplier<SessionSummary> summarize,
            boolean main) {
        synchronized (feed.lock) {
            SessionSummary done = p.summary();
            if (done != null) {
                return done;
            }
            SessionSummary s = summarize.get();
            GuestSession g = feed.guestSession;
            if (g != null && g.channel() == p) {
                feed.guestSession = null;
            }
            if (main) {
                feed.lastSummary = s;
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
                opcontrol.run(host, d, List.of("--shutdown"));
            }
        }
        opcontrol.run(host, dom0, List.of("--shutdown"));
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
                throw new ProfileException(OpcontrolGuide.hardwareDomainAsPassive(id));
            }
            if (gone(host, id)) {
                throw new ProfileException(OpcontrolGuide.destroyedDomain(id, host));
            }
            if (!passive.contains(id)) {
                passive.add(id);
            }
        }
        if (request.passiveImages().size() > passive.size()) {
            throw new ProfileException(OpcontrolGuide.tooManyPassiveImages(request.passiveImages().size(), passive));
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
                    throw new ProfileException(OpcontrolGuide.activeAndPassive(id));
                }
                if (d.hvm() && !d.hardwareDomain()) {
                    throw new ProfileException(OpcontrolGuide.hvmAsActive(id, d));
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

    private static int hardwareDomain(Host host) throws ProfileException {
        for (DomainInfo d : host.domains()) {
            if (d.hardwareDomain()) {
                return d.domid();
            }
        }
        throw new ProfileException(OpcontrolGuide.noHardwareDomain(host));
    }

    private static String join(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
