package org.hyperprof.profiler;

import java.util.Arrays;
import java.util.Locale;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;

/**
 * The words of one domain's driver and daemon for people: why a step was refused or cannot work,
 * what the driver did instead of what was asked, and which domain takes which step next, with the
 * opcontrol command that takes it. The driver's own mechanics stay in {@link DomainDaemon}; this
 * reads the daemon, Xen's session and the host's domains, and changes nothing.
 *
 * <p>Called from the daemon's steps, under the profiler's lock.
 */
final class DaemonGuide {

    private final DomainDaemon daemon;
    private final Host host;
    private final Xenoprof xenoprof;
    private final int domid;
    private final String name;

    DaemonGuide(DomainDaemon daemon, Host host, Xenoprof xenoprof) {
        this.daemon = daemon;
        this.host = host;
        this.xenoprof = xenoprof;
        this.domid = daemon.domid;
        this.name = daemon.name;
    }

    // ---------------------------------------------------------------- --start-daemon

    /** {@code --start-daemon} while the daemon runs. */
    String alreadyRunning() {
        return "The daemon of domain " + domid + " (" + name + ") is already running (state "
                + stateText() + "). Its settings, the domain lists included, only change with a new daemon:"
                + " run opcontrol --shutdown as domain " + domid + " first"
                + (daemon.primary() ? " (after the other domains' --shutdown), then --start-daemon with the new settings."
                        : ".");
    }

    /** A driver step of {@code --start-daemon} failed after the buffers were mapped. */
    String profileDeviceNotOpened() {
        return "The daemon of domain " + domid + " could not open the profile device and exited (\"Failed to"
                + " open profile device\"); the buffers stay mapped for the next --start-daemon.";
    }

    /**
     * The driver's view of a refused get_buffer, on top of Xen's explanation: whose pages, and the way out.
     *
     * @param disableRefused whether Xen refused the disable_virq of this domain's last daemon
     */
    void getBufferRefused(StepLog log, long result, boolean disableRefused) {
        log.line("The daemon of domain " + domid + " could not open the profile device (\"Failed to open profile"
                + " device: " + (result == Errno.EBUSY.ret() ? "Device or resource busy" : "error " + result) + "\").");
        if (result != Errno.EBUSY.ret()) {
            return;
        }
        int p = primaryId();
        boolean passive = false;
        try {
            for (int id : xenoprof.passiveList()) {
                passive |= id == domid;
            }
        } catch (RuntimeException e) {
            passive = false;
        }
        if (disableRefused) {
            log.line("  Its pages are still shared with it: Xen refused the disable_virq of its last daemon, which was"
                    + " shut down while the primary profiled. " + (p < 0 ? "The primary" : "Domain " + p) + " runs"
                    + " opcontrol --stop (if it profiles), then domain " + domid + " runs --shutdown (the driver retries"
                    + " disable_virq), then --start-daemon.");
        } else if (passive) {
            log.line("  Domain " + domid + " is in the passive list of " + (p < 0 ? "the primary" : "domain " + p)
                    + ", which shared its pages with itself by set_passive: a domain is profiled in one mode at a time."
                    + " Xen made domain " + domid + " IGNORED before refusing, so it is now profiled neither way."
                    + " Domain " + (p < 0 ? "0" : p) + " runs --shutdown, then --start-daemon with domain " + domid
                    + " in only one of --active-domains and --passive-domains.");
        }
    }

    /** In a non-primary domain the driver silently ignores the domain lists and the depth. */
    void ignoredInGuest(StepLog log, DomainDaemon.Settings settings) {
        String who = "only the primary (" + primaryText() + ")";
        if (settings.activeIds() != null) {
            log.note("domain " + domid + " is not the primary: its driver ignores active_domains, as the real"
                    + " oprofilefs file did; " + who + " lists the active domains");
            explainPrivileged(log, XenoprofOp.SET_ACTIVE);
        }
        if (settings.passiveIds() != null) {
            log.note("domain " + domid + " is not the primary: its driver ignores passive_domains; " + who
                    + " lists passive domains (opcontrol --start-daemon --passive-domains=... as the primary)");
            explainPrivileged(log, XenoprofOp.SET_PASSIVE);
        }
        if (settings.callgraph() > 0) {
            log.note("domain " + domid + " is not the primary: its driver passes no call-trace depth to Xen; " + who
                    + " sets it with --callgraph, and it applies to every profiled domain (now " + daemon.depthNow()
                    + ")");
            explainPrivileged(log, XenoprofOp.SET_BACKTRACE);
        }
    }

    /**
     * What Xen would answer to a privileged call the driver of a non-primary domain never makes:
     * the real return code and Xen's own explanation, without issuing the call.
     */
    void explainPrivileged(StepLog log, XenoprofOp op) {
        long wouldBe = Errno.EPERM.ret();
        String why;
        try {
            why = xenoprof.explain(domid, op, wouldBe);
        } catch (RuntimeException e) {
            why = null;
        }
        log.line("  (issued by hand, " + op.cName() + " by domain " + domid + " would return " + StepLog.describe(wouldBe)
                + (why == null || why.isBlank() ? ")" : ": " + why.strip().replace(System.lineSeparator(), " ") + ")"));
    }

    // ---------------------------------------------------------------- the domain lists

    /** Lists the driver accepts but that cannot work: an HVM guest listed as active. */
    void warnActiveList(StepLog log, int[] ids) {
        for (int id : ids) {
            DomainInfo d = daemon.domainOrNull(id);
            if (d != null && d.hvm()) {
                log.note("domain " + id + " (" + d.name() + ") is an HVM guest: it cannot be active on x86 (Xen gives"
                        + " a translated guest no usable buffer address, and its kernel has no Xenoprof driver), so it"
                        + " will never call enable_virq and domain " + domid + "'s --start will fail with -1 (EPERM)"
                        + " until the list changes; profile it passively: --passive-domains=" + id);
            }
        }
    }

    /** The primary listed itself as passive: Xen accepted it, the driver does not map its own pages. */
    String primaryListedAsPassive(int id) {
        return "  domain " + id + " is the primary itself: the driver always keeps the coordinator active, and"
                + " a domain is profiled in one mode at a time. set_passive shared domain " + id + "'s own pages"
                + " with it as passive, so its get_buffer would fail with -16 (EBUSY); the driver does not map"
                + " them. Domain " + domid + " writes --passive-domains again without " + id;
    }

    /** Where the kernel samples of the {@code k}-th passive domain go. */
    static String imageText(PassiveView.KernelImage[] images, int k, int id) {
        if (images == null || k >= images.length || images[k] == null) {
            return "; kernel samples go to " + PassiveView.kernelImageName(id);
        }
        return "; its kernel is resolved with " + images[k].name();
    }

    /** The driver's view of why a set_passive failed, on top of Xen's own explanation. */
    void passiveSetFailed(StepLog log, int id, long result) {
        DomainInfo d = daemon.domainOrNull(id);
        if (result == Errno.EINVAL.ret() && d == null) {
            log.line("  domain " + id + " does not exist on this host; the domains are " + domainList()
                    + ": domain " + domid + " lists only existing domains in --passive-domains");
        } else if (result == Errno.EBUSY.ret()) {
            log.line("  domain " + id + (d == null ? "" : " (" + d.name() + ")") + " shares its buffer pages already"
                    + " (it opened its own profile device with get_buffer, i.e. it is or was active): a domain is"
                    + " profiled in one mode at a time. Domain " + id + " runs opcontrol --shutdown, then domain "
                    + domid + " writes the passive list again");
        } else if (result == Errno.EPERM.ret() && daemon.xenState() != XenoprofState.INITIALIZED) {
            log.line("  set_passive is only legal before the counters are reserved (state INITIALIZED), and the"
                    + " session is " + daemon.xenState() + ": reset_passive_list (legal in any state) already emptied"
                    + " the passive list, so no domain is profiled passively now. To change the list: the active domUs"
                    + " run opcontrol --shutdown, then domain " + domid + " runs --shutdown and --start-daemon"
                    + " --passive-domains=...");
        }
    }

    /** Lists the driver accepts but that cannot work: a passive domain that is also active. */
    void warnPassiveList(StepLog log, int[] ids) {
        int[] active;
        try {
            active = xenoprof.activeList();
        } catch (RuntimeException e) {
            active = new int[0];
        }
        for (int id : ids) {
            boolean alsoActive = id == domid;
            for (int a : active) {
                alsoActive |= a == id;
            }
            if (alsoActive) {
                log.note("domain " + id + " is in both the active and the passive list: a domain is profiled in one"
                        + " mode at a time (§4.6). Its pages are now shared with domain " + domid + " by set_passive,"
                        + " so " + (id == domid ? "this domain's own get_buffer" : "domain " + id
                                + "'s --start-daemon (get_buffer)") + " will fail with -16 (EBUSY), and Xen will"
                        + " make it IGNORED; domain " + domid + " writes the lists again with the domain in one of"
                        + " them (the passive write begins with reset_passive_list)");
            }
        }
    }

    /**
     * A list written while the counters were reserved: the driver's resets emptied the active list.
     *
     * @param before Xen's state before the write
     */
    String listsResetWhileReserved(XenoprofState before) {
        return "  The lists only change before the counters are reserved (state INITIALIZED); the session"
                + " was " + before + ". reset_active_list is legal in any state, so the driver's two resets"
                + " made every ready domain, domain " + domid + " included, IGNORED again, with adomains and"
                + " activated 0: a following --start succeeds with nobody profiled. To profile other domains:"
                + " the active domUs run opcontrol --shutdown, then domain " + domid + " runs --shutdown and"
                + " --start-daemon with the new lists.";
    }

    // ---------------------------------------------------------------- --passive-images

    /** More kernel images than passive domains. */
    static String tooManyPassiveImages(int entries, int[] ids) {
        return "--passive-images gives " + entries + " images for " + ids.length + " passive"
                + " domain(s) " + DomainDaemon.joined(ids) + ": give at most one kernel image per passive domain, in"
                + " the order of --passive-domains (an empty entry leaves that kernel as "
                + PassiveView.kernelImageName(ids.length > 0 ? ids[0] : 1) + ")";
    }

    /** A passive image that names another image of the domain than its kernel. */
    static String notItsKernel(String entry, Mapping m, DomainInfo d, String kernelName) {
        return "--passive-images: '" + entry + "' is a " + String.valueOf(m.kind()).toLowerCase(Locale.ROOT)
                + " image of domain " + d.domid() + ", not its kernel: give each passive domain's kernel image"
                + " (domain " + d.domid() + "'s kernel is " + kernelName + "), or the path of its System.map";
    }

    /** The passive domain's kernel image has no symbols. */
    static String kernelWithoutSymbols(String entry, DomainInfo d) {
        return "the kernel image " + entry + " of domain " + d.domid() + " has no symbol file: its"
                + " samples are counted under " + entry + " with (no symbols)";
    }

    /** A passive image that is neither an image of the domain nor a readable file. */
    static String neitherImageNorFile(String entry, DomainInfo d, String kernelName) {
        return "--passive-images: '" + entry + "' for domain " + d.domid() + " is neither an image of that"
                + " domain (its kernel is " + kernelName + ") nor a readable symbol file. Give the kernel's image"
                + " name or the path of its System.map or vmlinux, or an empty entry to leave it as "
                + PassiveView.kernelImageName(d.domid());
    }

    /** A symbol file given for a passive domain whose memory map has no kernel. */
    static String noKernelInMap(String entry, DomainInfo d) {
        return "domain " + d.domid() + "'s memory map has no kernel image, so the primary cannot tell where its"
                + " kernel lies: its kernel-mode samples go to " + PassiveView.kernelImageName(d.domid())
                + " and " + entry + " is not used";
    }

    // ---------------------------------------------------------------- call traces

    /** Xen refused the depth the driver asked for. */
    static String depthRefused() {
        return "Xen refused the call-trace depth: the driver sets its backtrace_depth back to 0 and the"
                + " daemon starts without call traces";
    }

    /** No depth was asked for, but Xen still has one from an earlier session. */
    String depthStillSet(int now) {
        return "Xen's call-trace depth is still " + now + " from an earlier session: the driver passes a"
                + " depth only when --callgraph is above 0, and only XENOPROF_shutdown (--deinit in domain "
                + domid + ") clears it, so samples keep carrying call traces";
    }

    // ---------------------------------------------------------------- --start, --stop, --shutdown

    /** {@code --start} in a domain that is not the primary. */
    String startNotPrimary() {
        return "domain " + domid + " is not the primary: its driver makes no hypercall for --start; sampling"
                + " runs while the primary (" + primaryText() + ") has started it";
    }

    /** {@code --stop} in a domain that is not the primary. */
    String stopNotPrimary() {
        return "domain " + domid + " is not the primary: its driver makes no hypercall for --stop; sampling"
                + " goes on until the primary (" + primaryText() + ") stops it";
    }

    /** {@code --shutdown} of a daemon whose last disable_virq Xen refused. */
    String retryingDisable() {
        return "Daemon not running (domain " + domid + "), but Xen refused its disable_virq when it was shut down:"
                + " Hyperprof's driver issues it again (the XenLinux driver had no way to), so that Xen unshares the"
                + " pages of domain " + domid + ".";
    }

    /** The XenLinux driver's WARN_ON when an active guest's disable_virq is refused while profiling. */
    void activeGuestWarning(StepLog log) {
        int p = primaryId();
        String primaryText = p < 0 ? "the primary" : "domain " + p;
        log.line("  WARNING: xenoprof_shutdown: XENOPROF_disable_virq failed (the guest kernel WARNs and goes on)");
        log.line("  Domain " + domid + " unmaps its buffer, but Xen keeps its pages shared and the domain ACTIVE"
                + " while " + primaryText + " profiles: its samples keep landing in a ring nobody reads (lost once it"
                + " is full), and its next --start-daemon will fail with -16 (EBUSY) at get_buffer, because the pages"
                + " are still shared. The documented order stops the domUs after the primary's --stop: "
                + primaryText + " runs opcontrol --stop, then domain " + domid + " runs --shutdown again (Hyperprof's"
                + " driver then retries disable_virq; the XenLinux driver could not).");
    }

    /** A step that needs the daemon, asked of a domain whose daemon does not run. */
    String notRunning(String step) {
        return "The daemon of domain " + domid + " (" + name + ") is not running, so " + step
                + " has nothing to act on. Run opcontrol --start-daemon as domain " + domid + " first"
                + (daemon.primary() || !daemon.loaded() ? "."
                        : " (after the primary, " + primaryText() + ", has listed it in --active-domains).");
    }

    // ---------------------------------------------------------------- --hold, --release

    String alreadyHeld() {
        return "The daemon of domain " + domid + " is already held; opcontrol --release as domain " + domid
                + " lets it read again.";
    }

    /** {@code --hold} took effect. */
    String held(boolean hasPassives, String passiveIds) {
        return "Held (Hyperprof simulation control, not an opcontrol option): the daemon of domain " + domid
                + " stops reading its buffers" + (hasPassives ? " and those of its passive domains " + passiveIds
                        : "") + ". It ignores VIRQ_XENOPROF, --dump and the session's last drain; Xen keeps writing,"
                + " and once a ring is full it counts the samples as lost. opcontrol --release as domain " + domid
                + " resumes.";
    }

    String notHeld() {
        return "The daemon of domain " + domid + " is not held (opcontrol --hold as domain " + domid
                + " holds it); nothing to release.";
    }

    // ---------------------------------------------------------------- domains destroyed

    /** The session's note on this daemon's domain, destroyed during the session. */
    String destroyed(boolean wasRunning, long drained, long left) {
        return "domain " + domid + " (" + name + ") was destroyed during the session: "
                + (wasRunning ? "its daemon stopped with it; it had drained " + drained + " entries, and " + left
                        + " entries stayed in its buffers (counted undrained)" : "its daemon was not running")
                + "; Xen dropped it from its active and passive lists, and the other domains went on";
    }

    /** The session's note on a passive domain of this primary, destroyed during the session. */
    String passiveDestroyed(PassiveDomain p, long drained, long left) {
        return "passive domain " + p.domid + " (" + p.name + ") was destroyed during the session: the primary,"
                + " domain " + domid + ", stopped reading its freed buffers; it had drained " + drained + " entries,"
                + " and " + left + " entries stayed in them (counted undrained)";
    }

    // ---------------------------------------------------------------- Xen and the host, for messages

    String primaryText() {
        int p = primaryId();
        return p < 0 ? "no domain is primary yet; the hardware domain becomes primary with its --start-daemon"
                : "domain " + p;
    }

    private int primaryId() {
        try {
            return xenoprof.primary();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    String stateText() {
        return String.valueOf(daemon.xenState());
    }

    String xenoprofListsText() {
        try {
            return "active " + Arrays.toString(xenoprof.activeList()) + ", passive "
                    + Arrays.toString(xenoprof.passiveList());
        } catch (RuntimeException e) {
            return "(lists unavailable: " + e.getMessage() + ")";
        }
    }

    private String domainList() {
        return host.domains().stream().map(d -> d.domid() + " (" + d.name() + ")").toList().toString();
    }
}
