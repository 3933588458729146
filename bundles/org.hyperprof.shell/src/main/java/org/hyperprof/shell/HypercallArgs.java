package org.hyperprof.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.UsageException;

/**
 * Builds the argument of one raw {@code xenoprof_op} from words, reads the outputs Xen wrote back,
 * and prints results the way a C programmer reads them ({@code -1 (EPERM: ...)}).
 */
public final class HypercallArgs {
    /** The {@code max_samples} oprofiled asks for in {@code get_buffer}. */
    public static final int DAEMON_MAX_SAMPLES = 16;
    /** The {@code max_samples} the driver asks for in {@code set_passive}. */
    public static final int PASSIVE_MAX_SAMPLES = 2048;

    /**
     * The argument and the notes for the user, e.g. that a count is below the minimum OProfile
     * would accept (Xen does not check it, so the call is still made).
     */
    public record Built(Object arg, List<String> notes) {
        public Built {
            notes = List.copyOf(notes);
        }
    }

    private HypercallArgs() {
    }

    /**
     * @param op     the op (null for a number outside 0..17, which takes no argument)
     * @param words  the words after the op
     * @param events the current host's event table, for counter specs by name; null when unknown
     */
    public static Built build(XenoprofOp op, List<String> words, EventTable events) throws UsageException {
        if (op == null) {
            noArgs("an op outside 0..17", words);
            return new Built(null, List.of());
        }
        switch (op) {
            case INIT:
                noArgs(op, words);
                return new Built(new XenoprofInit(), List.of());
            case GET_BUFFER:
                atMost(op, words, 1, "[max_samples]");
                return new Built(new XenoprofGetBuffer(words.isEmpty() ? DAEMON_MAX_SAMPLES
                        : (int) Args.number(words.get(0), "max_samples", 0, Integer.MAX_VALUE)), List.of());
            case SET_ACTIVE:
                exactly(op, words, 1, "<domid>");
                return new Built(Integer.valueOf(Args.domid(words.get(0), "the domain to list as active")), List.of());
            case SET_PASSIVE:
                if (words.isEmpty() || words.size() > 2) {
                    throw new UsageException(op.cName() + " takes <domid> [max_samples], got " + describe(words));
                }
                return new Built(new XenoprofPassive(Args.domid(words.get(0), "the domain to list as passive"),
                        words.size() > 1 ? (int) Args.number(words.get(1), "max_samples", 0, Integer.MAX_VALUE)
                                : PASSIVE_MAX_SAMPLES),
                        List.of());
            case COUNTER:
                return counter(words, events);
            case SET_BACKTRACE:
                exactly(op, words, 1, "<depth>");
                return new Built(Long.valueOf(Args.number(words.get(0), "the backtrace depth", 0, Long.MAX_VALUE)),
                        List.of());
            case IBS_COUNTER:
                return ibsCounter(words);
            default:
                noArgs(op, words);
                return new Built(null, List.of());
        }
    }

    private static Built counter(List<String> words, EventTable events) throws UsageException {
        String usage = "counter <ind> <EVENT:count[:um[:kernel[:user]]]>"
                + " or counter <ind> <count> <event> <um> <kernel> <user>";
        if (words.size() != 2 && words.size() != 6) {
            throw new UsageException("expected " + usage + ", got " + describe(words));
        }
        XenoprofCounter c = new XenoprofCounter();
        // Xen itself answers -E2BIG for ind >= 8, so any non-negative index goes out.
        c.ind = (int) Args.number(words.get(0), "the counter index <ind>", 0, Integer.MAX_VALUE);
        c.enabled = 1;
        c.hypervisor = 0; // Xen ignores the field: it never copies it
        List<String> notes = new ArrayList<>();
        if (words.size() == 6) {
            c.count = Args.number(words.get(1), "the count (sampling period)", 0, Long.MAX_VALUE);
            c.event = (int) Args.number(words.get(2), "the event code", 0, 0xFFFF_FFFFL);
            c.unitMask = Args.number(words.get(3), "the unit mask", 0, Long.MAX_VALUE);
            c.kernel = flag(words.get(4), "kernel");
            c.user = flag(words.get(5), "user");
            return new Built(c, notes);
        }
        EventSpec spec;
        try {
            spec = EventSpec.parse(words.get(1));
        } catch (EventSpecException e) {
            throw new UsageException(e.getMessage());
        }
        if (events == null) {
            throw new UsageException("no host is loaded, so event names cannot be resolved: hp:load first,"
                    + " or give raw numbers: " + usage);
        }
        Optional<EventDescriptor> found = events.find(spec.eventName());
        if (found.isEmpty()) {
            throw new UsageException("event '" + spec.eventName() + "' is not in the host's event table;"
                    + " hp:events lists the events, or give the raw code: " + usage);
        }
        EventDescriptor d = found.get();
        c.count = spec.count();
        c.event = d.code();
        c.unitMask = spec.unitMask() < 0 ? d.unitMask().defaultValue() : spec.unitMask();
        c.kernel = spec.kernel() ? 1 : 0;
        c.user = spec.user() ? 1 : 0;
        // The raw hypercall goes out as asked (Xen checks none of this); these are what opcontrol refuses.
        if (spec.count() < d.minimumCount()) {
            notes.add("note: count " + spec.count() + " is below " + d.name() + "'s minimum " + d.minimumCount()
                    + "; opcontrol would refuse it, Xen does not check");
        }
        if (!d.unitMask().allows(c.unitMask)) {
            notes.add(String.format("note: unit mask 0x%x is not allowed for %s (%s); opcontrol would refuse it",
                    c.unitMask, d.name(), d.unitMask().describeAllowed()));
        }
        if (c.ind < 64 && !d.canUseCounter(c.ind)) {
            notes.add("note: " + d.name() + " can only be counted on counter(s) " + d.countersText() + ", not "
                    + c.ind);
        }
        return new Built(c, notes);
    }

    private static Built ibsCounter(List<String> words) throws UsageException {
        if (!words.isEmpty() && words.size() != 6) {
            throw new UsageException("ibs_counter takes no argument (all zero) or six numbers: op_enabled fetch_enabled"
                    + " max_cnt_fetch max_cnt_op rand_en dispatched_ops; got " + describe(words));
        }
        XenoprofIbsCounter c = new XenoprofIbsCounter();
        if (words.size() == 6) {
            c.opEnabled = Args.number(words.get(0), "op_enabled", 0, Long.MAX_VALUE);
            c.fetchEnabled = Args.number(words.get(1), "fetch_enabled", 0, Long.MAX_VALUE);
            c.maxCntFetch = Args.number(words.get(2), "max_cnt_fetch", 0, Long.MAX_VALUE);
            c.maxCntOp = Args.number(words.get(3), "max_cnt_op", 0, Long.MAX_VALUE);
            c.randEn = Args.number(words.get(4), "rand_en", 0, Long.MAX_VALUE);
            c.dispatchedOps = Args.number(words.get(5), "dispatched_ops", 0, Long.MAX_VALUE);
        }
        return new Built(c, List.of());
    }

    /** What Xen wrote into the argument, one line, or null for an op without outputs. */
    public static String outputs(XenoprofOp op, Object arg) {
        if (arg instanceof XenoprofInit i) {
            return "num_events " + i.numEvents + ", is_primary " + i.isPrimary + ", cpu_type " + i.cpuType;
        }
        if (arg instanceof XenoprofGetBuffer b) {
            return String.format("nbuf %d, bufsize %d, buf_gmaddr 0x%x", b.nbuf, b.bufsize, b.bufGmaddr);
        }
        if (arg instanceof XenoprofPassive p) {
            return String.format("domain %d: nbuf %d, bufsize %d, buf_gmaddr 0x%x", p.domainId, p.nbuf, p.bufsize,
                    p.bufGmaddr);
        }
        return null;
    }

    /** What was sent, for the echo line: {@code ind 0 count 100000 event 0x79 ...}. */
    public static String inputs(Object arg) {
        if (arg instanceof XenoprofCounter c) {
            return String.format("ind %d, count %d, event 0x%x, unit_mask 0x%x, kernel %d, user %d, enabled %d",
                    c.ind, c.count, c.event, c.unitMask, c.kernel, c.user, c.enabled);
        }
        if (arg instanceof XenoprofGetBuffer b) {
            return "max_samples " + b.maxSamples;
        }
        if (arg instanceof XenoprofPassive p) {
            return "domain_id " + p.domainId + ", max_samples " + p.maxSamples;
        }
        if (arg instanceof Integer domid) {
            return "domid " + domid;
        }
        if (arg instanceof Long depth) {
            return "depth " + depth;
        }
        if (arg instanceof XenoprofIbsCounter c) {
            return String.format("op_enabled %d, fetch_enabled %d, max_cnt_fetch %d, max_cnt_op %d, rand_en %d,"
                    + " dispatched_ops %d", c.opEnabled, c.fetchEnabled, c.maxCntFetch, c.maxCntOp, c.randEn,
                    c.dispatchedOps);
        }
        return null;
    }

    /** {@code 0}, {@code 5}, or {@code -1 (EPERM: Operation not permitted)}. */
    public static String resultText(long result) {
        if (result >= 0) {
            return Long.toString(result);
        }
        Errno e = Errno.ofResult(result);
        return result + (e == null ? " (unknown error)" : " (" + e.name() + ": " + e.text() + ")");
    }

    private static int flag(String word, String what) throws UsageException {
        return (int) Args.number(word, "the " + what + " flag (0 or 1)", 0, 1);
    }

    private static void noArgs(Object op, List<String> words) throws UsageException {
        if (!words.isEmpty()) {
            throw new UsageException(name(op) + " takes no argument, got " + describe(words));
        }
    }

    private static void exactly(XenoprofOp op, List<String> words, int n, String what) throws UsageException {
        if (words.size() != n) {
            throw new UsageException(op.cName() + " takes " + what + ", got " + describe(words));
        }
    }

    private static void atMost(XenoprofOp op, List<String> words, int n, String what) throws UsageException {
        if (words.size() > n) {
            throw new UsageException(op.cName() + " takes " + what + ", got " + describe(words));
        }
    }

    private static String name(Object op) {
        return op instanceof XenoprofOp o ? o.cName() : op.toString();
    }

    private static String describe(List<String> words) {
        return words.isEmpty() ? "nothing" : "'" + String.join(" ", words) + "'";
    }
}
