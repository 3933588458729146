package org.hyperprof.shell;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.command.kit.Table;

/** How a host and its Xenoprof session read on the shell. */
public final class HostText {
    private static final int WIDTH = 100;
    private static final String INDENT = "          ";

    private HostText() {
    }

    /** The host: scenario, CPU model, clock, pCPUs, policy and each domain with its images. */
    public static void printHost(Host host, PrintStream out) {
        PmuModel m = host.model();
        out.println("host      " + host.name());
        if (host.description() != null && !host.description().isBlank()) {
            wrap(out, INDENT, List.of(host.description().strip().split("\\s+")), " ");
        }
        out.printf("cpu       %s (%s): %d counters x %d bits, %d MHz, %d pCPU%s%n", m.cpuType(), m.displayName(),
                m.counterCount(), m.counterWidth(), host.mhz(), host.pcpuCount(), host.pcpuCount() == 1 ? "" : "s");
        out.println("policy    " + host.policy());
        out.println("domains   " + host.domains().size());
        for (DomainInfo d : host.domains()) {
            DomainState state = host.domainState(d.domid());
            out.printf("  dom%-3d %-12s %-3s %d vCPU%s%s%s%n", d.domid(), d.name(), d.hvm() ? "hvm" : "pv", d.vcpus(),
                    d.vcpus() == 1 ? "" : "s", d.hardwareDomain() ? "  hardware domain" : "",
                    state == DomainState.RUNNING ? "" : "  " + stateText(state));
            List<String> images = new ArrayList<>();
            for (Mapping mapping : d.memoryMap()) {
                images.add(mapping.image() + " (" + mapping.kind().name().toLowerCase(java.util.Locale.ROOT) + ")");
            }
            if (!images.isEmpty()) {
                wrap(out, "         ", images, ", ");
            }
        }
        if (host.stopReason() != null) {
            out.println("STOPPED   " + host.stopReason());
        }
    }

    /** Simulated time since the host was loaded. */
    public static String elapsed(Host host) {
        long cycles = host.cycles();
        return String.format("%d cycles per pCPU (%.3f ms simulated)", cycles,
                host.mhz() > 0 ? cycles / (host.mhz() * 1000.0) : 0.0);
    }

    /** The Xenoprof session: state, primary, both lists with ready flags, statistics, next step. */
    public static void printXenoprof(Host host, PrintStream out) {
        Xenoprof x = host.xenoprof();
        int primary = x.primary();
        String stopped = host.stopReason();
        // Xen's state is frozen where the host stopped: say the session is over, and why, first.
        out.printf("xenoprof  %sstate %s, primary %s, backtrace depth %d%s%n",
                stopped == null ? "" : "session ended: " + stopped + " (", x.state(),
                primary < 0 ? "none" : domain(host, primary), x.backtraceDepth(), stopped == null ? "" : " then)");
        int[] active = x.activeList();
        out.printf("active    adomains %d, activated %d%s%n", x.activeListSize(), x.activated(),
                active.length == 0 ? ": list empty" : "");
        for (int id : active) {
            boolean ready = x.domainType(id) == DomainType.ACTIVE;
            out.printf("            %-24s %s%n", domain(host, id),
                    ready ? "ready (enable_virq done)" : "not ready: no enable_virq yet");
        }
        int[] passive = x.passiveList();
        out.println("passive   " + (passive.length == 0 ? "list empty"
                : java.util.Arrays.stream(passive).mapToObj(id -> domain(host, id)).collect(Collectors.joining(", "))));
        printRoles(host, out);
        out.println("samples   " + statistics(x.statistics()));
        printCounters(host.counters(), out);
        out.println("next      " + nextStep(host));
    }

    /** Each domain's Xenoprof role and whether it runs, is paused or is destroyed. */
    static void printRoles(Host host, PrintStream out) {
        Table t = new Table("", "", "", "");
        boolean first = true;
        for (DomainInfo d : host.domains()) {
            // "domains " is 8 wide; with the table's 2 blanks the rows line up with "samples   " and the rest.
            t.row(first ? "domains " : "", domain(host, d.domid()), stateText(host.domainState(d.domid())),
                    role(host, d));
            first = false;
        }
        if (first) {
            out.println("domains   none");
        } else {
            t.print(out);
        }
    }

    /**
     * The domain's place in the Xenoprof session: primary, active (with its ready flag), passive,
     * or unlisted (its samples are not kept).
     */
    static String role(Host host, DomainInfo d) {
        Xenoprof x = host.xenoprof();
        int id = d.domid();
        List<String> roles = new ArrayList<>();
        if (id == x.primary()) {
            roles.add("primary");
        }
        if (contains(x.activeList(), id)) {
            roles.add(x.domainType(id) == DomainType.ACTIVE ? "active (ready)" : "active (no enable_virq yet)");
        }
        if (contains(x.passiveList(), id)) {
            roles.add("passive");
        }
        if (roles.isEmpty()) {
            // On x86 an HVM guest cannot be active: Xenoprof profiles it as a passive domain or not at all.
            roles.add(d.hvm() ? "unlisted (HVM: can only be passive)" : "unlisted");
        }
        return String.join(", ", roles);
    }

    /** The host's named counters, e.g. {@code interrupts.taken 43419}, wrapped. */
    static void printCounters(Map<String, Long> counters, PrintStream out) {
        if (counters.isEmpty()) {
            out.println("counters  none reported by the host");
            return;
        }
        List<String> items = new ArrayList<>();
        new TreeMap<>(counters).forEach((name, value) -> items.add(name + " " + value));
        wrap(out, "counters  ", INDENT, items, ", ");
    }

    static String stateText(DomainState state) {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static boolean contains(int[] ids, int id) {
        for (int i : ids) {
            if (i == id) {
                return true;
            }
        }
        return false;
    }

    /** Xen's statistics as the accounting equation, e.g. {@code taken 10 = delivered 8 (...) + ...}. */
    public static String statistics(XenoprofStatistics s) {
        return String.format("taken %d = delivered %d (active %d + passive %d) + lost %d + dropped %d (others; idle %d)"
                + " + invalid %d (no buffer %d + corrupted %d): %s", s.totalSamples(), s.delivered(), s.activeSamples(),
                s.passiveSamples(), s.lostSamples(), s.dropped(), s.idleSamples(), s.invalid(),
                s.invalidBufferSamples(), s.corruptedBufferSamples(), s.balanced() ? "balanced" : "DOES NOT BALANCE");
    }

    /** Which domain must take which step next, read off the state as Xen keeps it. */
    public static String nextStep(Host host) {
        if (host.stopReason() != null) {
            return "the host stopped: hp:load loads a host again (hp:report still prints the ended session)";
        }
        Xenoprof x = host.xenoprof();
        int p = x.primary();
        if (p < 0) {
            int hw = host.domains().stream().filter(DomainInfo::hardwareDomain).mapToInt(DomainInfo::domid).findFirst()
                    .orElse(0);
            // An HVM guest cannot be active on x86: the example lists it as passive instead.
            String hvm = host.domains().stream().filter(DomainInfo::hvm).map(d -> Integer.toString(d.domid()))
                    .collect(Collectors.joining(","));
            return "no primary profiler: the hardware domain opens a session, e.g. hp:opcontrol " + hw
                    + " --start-daemon --active-domains=" + host.domains().stream().filter(d -> !d.hvm())
                            .map(d -> Integer.toString(d.domid())).collect(Collectors.joining(","))
                    + (hvm.isEmpty() ? "" : " --passive-domains=" + hvm)
                    + " (or hp:profile does a whole run)";
        }
        XenoprofState s = x.state();
        switch (s) {
            case IDLE:
            case INITIALIZED:
                return "dom" + p + " is primary and the session is being set up: set_active/set_passive, then"
                        + " reserve_counters (hp:opcontrol " + p + " --start-daemon makes these calls)";
            case COUNTERS_RESERVED:
                return "counters reserved: counter for each event (needs a non-empty active list), then setup_events"
                        + " (hp:opcontrol " + p + " --start-daemon makes these calls)";
            case READY:
                Set<Integer> waiting = new LinkedHashSet<>();
                for (int id : x.activeList()) {
                    if (x.domainType(id) != DomainType.ACTIVE) {
                        waiting.add(id);
                    }
                }
                if (!waiting.isEmpty()) {
                    return "start is refused (EPERM) until every listed domain has called enable_virq: "
                            + waiting.stream().map(id -> "hp:opcontrol " + id + " --start-daemon")
                                    .collect(Collectors.joining("; "));
                }
                if (x.activeListSize() == 0) {
                    return "the active list is empty: start would succeed but profile no domain; end the session"
                            + " (hp:opcontrol " + p + " --shutdown) and set it up again";
                }
                return "ready: hp:opcontrol " + p + " --start starts sampling; to end the session --shutdown the other"
                        + " active domains first, then dom" + p;
            case PROFILING:
            default:
                return "profiling: hp:run <ms> runs the host, then hp:opcontrol " + p + " --stop";
        }
    }

    /** {@code dom1 (domU-rcv)}, or {@code dom7} for an id the host does not know. */
    static String domain(Host host, int id) {
        for (DomainInfo d : host.domains()) {
            if (d.domid() == id) {
                return "dom" + id + " (" + d.name() + ")";
            }
        }
        return "dom" + id;
    }

    private static void wrap(PrintStream out, String indent, List<String> items, String separator) {
        wrap(out, indent, indent, items, separator);
    }

    /** Items joined by {@code separator}, in lines of at most 100 characters; the first starts with {@code first}. */
    static void wrap(PrintStream out, String firstPrefix, String indent, List<String> items, String separator) {
        StringBuilder line = new StringBuilder(firstPrefix);
        boolean first = true;
        for (String item : items) {
            String piece = first ? item : separator + item;
            if (!first && line.length() + piece.length() > WIDTH) {
                out.println(line.toString().stripTrailing() + separator.strip());
                line.setLength(0);
                line.append(indent).append(item);
            } else {
                line.append(piece);
            }
            first = false;
        }
        out.println(line);
    }
}
