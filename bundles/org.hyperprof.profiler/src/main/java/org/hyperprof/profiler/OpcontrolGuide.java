package org.hyperprof.profiler;

import static org.hyperprof.profiler.OpcontrolService.domainState;
import static org.hyperprof.profiler.OpcontrolService.roleOf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.pipeline.PublishedSession;

/**
 * The opcontrol service's and the one-shot profile's words for people: why a step cannot be taken
 * now, what the session's notes say about domains that were paused, destroyed or held, and which
 * domain takes which step next, with the opcontrol command that takes it. The steps themselves stay
 * in {@link OpcontrolService} and {@link OneShotProfile}; this reads the host and changes nothing.
 * (A domain's own driver and daemon speak through its {@link DaemonGuide}.)
 */
final class OpcontrolGuide {

    private OpcontrolGuide() {
    }

    // ---------------------------------------------------------------- opcontrol steps

    /** An opcontrol step while a one-shot profile runs. */
    static String oneShotRunning() {
        return "A one-shot profile is running on this host; opcontrol steps"
                + " would interfere with it. Wait until it has finished, then try again.";
    }

    /** An opcontrol step with no host loaded. */
    static String noHost(int domid) {
        return "No simulated host is loaded, so there is no domain " + domid
                + " to run opcontrol in. Run hp:load first (hp:load " + HostService.DEFAULT_SCENARIO
                + " loads the default scenario), then opcontrol as one of its domains.";
    }

    /** {@code --start-daemon} while a published session is open. */
    static String publishedSessionOpen(PublishedSession p) {
        return "Session " + p.sessionId() + " fed by " + p.source() + " is open: its consumers see"
                + " one session at a time, so no daemon may start a simulated one now. Wait until " + p.source()
                + " ends (its import or recording finishes), then run --start-daemon again.";
    }

    /** {@code --event} given to a daemon that is not the primary. */
    static String eventsOnlyInPrimary(DomainDaemon daemon) {
        return "--event only configures counters in the primary; domain " + daemon.domid + " uses the"
                + " primary's counters";
    }

    /** A domU's daemon started before the primary's. */
    static String noSessionYet(DomainDaemon daemon) {
        return "no session runs yet: domain " + daemon.domid + "'s samples join the session that the"
                + " primary's --start-daemon starts";
    }

    /** {@code --dump} with no daemon running. */
    static String nothingToDump(DomainDaemon daemon) {
        return "The daemon of domain " + daemon.domid + " (" + daemon.name + ") is not running, so nothing"
                + " reads its buffers and --dump has nothing to ask. Run opcontrol --start-daemon as domain "
                + daemon.domid + " first.";
    }

    /** {@code --dump} of a held daemon. */
    static String heldIgnoresDump(DomainDaemon daemon) {
        return "The daemon of domain " + daemon.domid + " is held (--hold): it ignores --dump; "
                + daemon.pendingEntries() + " entries wait in its buffers. opcontrol --release as domain "
                + daemon.domid + " lets it read again.";
    }

    /** The primary shut down before the domUs. */
    static String daemonsStillRun(List<Integer> still) {
        return "the daemons of domains " + still + " still run; shut them down first next time (domUs"
                + " before dom0): what they drain now belongs to no session";
    }

    /** {@code --reset} with no daemon running. */
    static String nothingToReset(DomainDaemon daemon) {
        return "No daemon runs in domain " + daemon.domid + " (" + daemon.name + "), so it has no samples"
                + " of its own to reset (a passive domain's samples belong to the primary's daemon: the primary's"
                + " --reset clears them). Run opcontrol --start-daemon as domain " + daemon.domid + " first.";
    }

    /** What {@code --reset} did, and what it cannot undo. */
    static String resetDone(DomainDaemon daemon, Session s, int discarded) {
        return "Reset domain " + daemon.domid + (daemon.resetDomains().size() > 1 ? " and its passive domains" : "")
                + " in session " + s.id + ": discarded " + discarded + " samples not yet handed to consumers and"
                + " cleared its counts. Batches consumers already received stay theirs (a consumer has no way to"
                + " take samples back).";
    }

    /** The session's note on a domain paused during it. */
    static String pausedDuringSession(int domid, boolean passive) {
        return "domain " + domid + " was paused during the session (xl pause): its"
                + " vCPUs ran no code while paused, so it has no samples for that time"
                + (passive ? "; as a passive domain its buffers stayed readable by the primary"
                        : "; its daemon could not run, so its VIRQs waited and its rings filled");
    }

    /** The session's note on a domain destroyed during it. */
    static String destroyedDuringSession(int domid) {
        return "domain " + domid + " was destroyed during the session: Xen freed"
                + " its buffers and dropped it from its lists; what they held is counted undrained";
    }

    /** The session's note on a domain paused when it ended. */
    static String pausedAtEnd(DomainDaemon d) {
        return "domain " + d.domid + " (" + d.name + ") was paused when the"
                + " session ended: its daemon could not run its last drain; " + d.pendingEntries()
                + " entries stayed in its buffers (counted undrained)";
    }

    /**
     * Why nothing can run as this domain now, or null: a destroyed or paused domain runs no code,
     * and an HVM guest's kernel has no Xenoprof driver.
     */
    static String cannotRun(Host host, DomainInfo domain, OpcontrolCommand cmd) {
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

    /** After a refused start: which listed active domains are not ready, and who must act. */
    static void notReady(Host host, DomainDaemon primary, Map<Integer, DomainDaemon> daemons, StepLog log) {
        Xenoprof xen = host.xenoprof();
        int[] listed;
        try {
            if (xen.state() != XenoprofState.READY) {
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

    static String heldText(DomainDaemon d, String when) {
        return "the daemon of domain " + d.domid + " (" + d.name + ") was held (opcontrol --hold, a simulation control)"
                + " " + when + ": it read nothing while held; " + d.pendingEntries() + " entries stayed in its"
                + " buffers (counted undrained), and the samples Xen could not write into its full rings are in their"
                + " lost counts";
    }

    static String primaryText(Host host) {
        int p = primaryId(host);
        return p < 0 ? "the hardware domain" : "domain " + p + " (the primary)";
    }

    static String primaryOrHardware(Host host) {
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

    static int primaryId(Host host) {
        try {
            return host.xenoprof().primary();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    // ---------------------------------------------------------------- the one-shot profile

    /** A one-shot profile while a published session is open. */
    static String publishedSessionOpenForProfile(PublishedSession open) {
        return "Session " + open.sessionId() + " fed by " + open.source()
                + " is open; the consumers see one session at a time. Wait until it ends, then profile.";
    }

    /** A one-shot profile with no host loaded. */
    static String noHostToProfile() {
        return "No simulated host is loaded. Run"
                + " hp:load first (hp:load " + HostService.DEFAULT_SCENARIO + " loads the default scenario).";
    }

    /** A one-shot profile of no time, or of more than a simulated hour. */
    static String durationOutOfRange(long micros) {
        return "Profile duration " + micros + " us: give 1 to "
                + Host.MAX_RUN_MICROS + " simulated microseconds (one simulated hour) to run.";
    }

    /** A one-shot profile while daemons run. */
    static String daemonsAlreadyRun(List<Integer> busy) {
        return "Daemons already run in domains " + busy + " (a session set up with"
                + " opcontrol, or a domain paused when the last profile ended). Finish it first: opcontrol"
                + " --shutdown as each domU (unpaused), then as the primary.";
    }

    /** The simulation threw during a one-shot profile. */
    static String simulationFailed(RuntimeException e) {
        return "The simulation failed while profiling: " + e
                + ". The session was shut down; this is a defect of the hypervisor bundle.";
    }

    /** The sessions' note on a run stopped early (Ctrl-C). */
    static String stoppedEarly(long ranMicros, long askedMicros) {
        return String.format(Locale.ROOT, "the run was stopped early on request after %.3f of %d ms"
                + " simulated; the samples taken until then are kept and counted", ranMicros / 1000.0,
                askedMicros / 1000);
    }

    /** A profile without system-wide profiling given Xenoprof's settings. */
    static String xenoprofSettingsUnused() {
        return "the request's events, domain lists and call-graph depth configure Xenoprof, which this"
                + " profile did not run (systemWide=false): each guest's profiler counts what it programmed";
    }

    /** A profile without system-wide profiling on a host whose guests have no PMU. */
    static String guestsHaveNoPmu(Host host) {
        return "Host " + host.name() + " runs the counter-virtualization policy"
                + " 'systemwide': Xenoprof owns the PMU and guests have none, so no guest can run a profiler of"
                + " its own and a profile without system-wide profiling (systemWide=false) has nothing to"
                + " read. Profile system-wide (Xenoprof, dom0 as primary), or load a scenario whose vpmu.policy"
                + " gives guests their PMU and has 'profiler' lines for the guests that should profile"
                + " themselves.";
    }

    /** A profile without system-wide profiling on a host where no guest profiles itself. */
    static String noGuestProfiler(Host host, String policy) {
        return "Host " + host.name() + "'s policy " + (policy == null ? "" : "'" + policy
                + "' ") + "gives guests the PMU, but no guest runs a profiler of its own, so a profile without"
                + " system-wide profiling (systemWide=false) has nothing to read. Add 'profiler' lines to the"
                + " scenario for the guests that should profile themselves, or profile system-wide (Xenoprof,"
                + " dom0 as primary).";
    }

    /** The session's note when the guests' own profilers cannot be read. */
    static String guestProfilersUnreadable(RuntimeException e) {
        return "the guests' own profilers could not be read (" + e + "); this profile"
                + " has Xenoprof's samples only. This is a defect of the hypervisor bundle.";
    }

    /** The hardware domain asked for as passive. */
    static String hardwareDomainAsPassive(int id) {
        return "Domain " + id + " is the hardware domain, the primary profiler: it is"
                + " always active, and a domain is profiled in one mode at a time. Leave it out of the"
                + " passive domains.";
    }

    /** A destroyed domain asked for. */
    static String destroyedDomain(int id, Host host) {
        return "Domain " + id + " was destroyed; it cannot be profiled. The host's domains"
                + " are " + domainList(host) + ".";
    }

    /** More passive images than passive domains. */
    static String tooManyPassiveImages(int images, List<Integer> passive) {
        return images + " passive images given for "
                + passive.size() + " passive domain(s) " + passive + ": give at most one kernel image per passive"
                + " domain, in the same order.";
    }

    /** A domain asked for both as active and as passive. */
    static String activeAndPassive(int id) {
        return "Domain " + id + " is asked for both as active and as passive: a domain"
                + " is profiled in one mode at a time (its pages can be shared with only one domain)."
                + " List it in one of the two.";
    }

    /** An HVM guest asked for as active. */
    static String hvmAsActive(int id, DomainInfo d) {
        return "Domain " + id + " (" + d.name() + ") is an HVM guest: it cannot be"
                + " active on x86 (no Xenoprof driver, no usable buffer address). Profile it passively.";
    }

    /** A host without a hardware domain. */
    static String noHardwareDomain(Host host) {
        return "Host " + host.name() + " has no hardware domain, and only the hardware domain"
                + " may become the primary profiler; the scenario must mark one domain (dom0) as hardware domain.";
    }

    static String domainList(Host host) {
        return host.domains().stream().map(d -> d.domid() + " (" + d.name() + ")").toList().toString();
    }
}
