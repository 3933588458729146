package org.hyperprof.pmu.kit;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.StringJoiner;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.UnitMask;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The shared part of {@link PmuModel#allocate(List)} for models whose events each name the
 * counters they may use (OProfile's {@code counters:} field, as on the x86 models): checks a
 * user's event specifications against the model's {@link EventTable} and places each event on a
 * counter it may use.
 *
 * <p>{@link #allocate} checks, in this order, and throws at the first failure with a message that
 * says what was given, what is allowed and what to do:
 * <ol>
 * <li>at least one event, and no more events than counters;</li>
 * <li>each event in order: present, named, an event of the table (a hint names the event whose
 * name differs only in case), the model's own {@link EventCheck}, a count between the event's
 * minimum and the largest count a counter accepts, kernel or user mode, a unit mask the event
 * allows ({@code -1} takes the event's default), and at least one of its counters present;</li>
 * <li>counters: events in order, each on the lowest free counter it may use, backtracking when a
 * later event needs a counter an earlier one took (as OProfile does: on a P6,
 * {@code CPU_CLK_UNHALTED,FLOPS} puts CPU_CLK_UNHALTED on counter 1 because FLOPS needs 0).</li>
 * </ol>
 *
 * <p>Instances are immutable; each {@code with...} method returns a copy with one more detail
 * for messages or checks, so a model builds its allocator once and shares it.
 */
public final class CounterAllocator {
    /** Counter masks are 64 bits wide ({@link EventDescriptor#counterMask()}). */
    private static final int MAX_COUNTERS = 64;
    private static final String DEFAULT_ADVICE = "choose events that can run on different counters";

    /**
     * A model's own rule for one event, beyond the table: for example whether CPUID reports the
     * event available on this CPU. The allocator calls {@link #check} for every event it finds in
     * the table, before it checks the count, mode and unit mask.
     */
    @ConsumerType
    @FunctionalInterface
    public interface EventCheck {
        /**
         * Refuses {@code event} as {@code spec} asks for it when the model's rule forbids it.
         *
         * @throws EventSpecException saying which rule refused the event and what to do instead
         */
        void check(EventDescriptor event, EventSpec spec) throws EventSpecException;

        /**
         * Whether this CPU counts {@code event} at all; messages list only the events it counts
         * as allowed. An event it does not count is refused even when {@link #check} lets it pass,
         * so {@link #check} is the place to say why. Every event by default.
         */
        default boolean offers(EventDescriptor event) {
            return true;
        }
    }

    private final EventTable table;
    private final String cpuType;
    private final String displayName;
    private final String defaultEvent;
    private final int counters;
    private final long maxCount;
    private final String maxCountReason;
    private final String counterNoun;
    /** Per counter its register's name for messages, or null to name counters by number only. */
    private final String[] counterNames;
    /** The model's extra rule, or null for none. */
    private final EventCheck check;
    private final String sharingAdvice;

    /**
     * An allocator for a model's counters, with plain messages: counters named by number, no
     * extra rule (add details with the {@code with...} methods).
     *
     * @param table          the model's event table
     * @param cpuType        OProfile's cpu_type, for messages ({@code i386/p6})
     * @param displayName    the processor's name, for messages ({@code PIII})
     * @param defaultEvent   the model's default event, suggested when no event is given
     * @param counters       the number of counters (1 to 64), numbered from 0
     * @param maxCount       the largest count a counter accepts
     * @param maxCountReason why no larger count works, one clause for messages (e.g. {@code the
     *                       handler takes bit 31 of the -count preload clearing as an overflow})
     * @throws IllegalArgumentException when counters is outside 1..64 or maxCount is not positive
     */
    public CounterAllocator(EventTable table, String cpuType, String displayName, String defaultEvent, int counters,
            long maxCount, String maxCountReason) {
        this(Objects.requireNonNull(table, "table"), Objects.requireNonNull(cpuType, "cpuType"),
                Objects.requireNonNull(displayName, "displayName"), Objects.requireNonNull(defaultEvent, "defaultEvent"),
                counters, maxCount, Objects.requireNonNull(maxCountReason, "maxCountReason"), "counters", null, null,
                DEFAULT_ADVICE);
        if (counters < 1 || counters > MAX_COUNTERS) {
            throw new IllegalArgumentException("a model has 1 to " + MAX_COUNTERS + " counters, got " + counters
                    + " for " + cpuType);
        }
        if (maxCount < 1) {
            throw new IllegalArgumentException("the largest count a counter of " + cpuType
                    + " accepts must be positive, got " + maxCount);
        }
    }

    private CounterAllocator(EventTable table, String cpuType, String displayName, String defaultEvent, int counters,
            long maxCount, String maxCountReason, String counterNoun, String[] counterNames, EventCheck check,
            String sharingAdvice) {
        this.table = table;
        this.cpuType = cpuType;
        this.displayName = displayName;
        this.defaultEvent = defaultEvent;
        this.counters = counters;
        this.maxCount = maxCount;
        this.maxCountReason = maxCountReason;
        this.counterNoun = counterNoun;
        this.counterNames = counterNames;
        this.check = check;
        this.sharingAdvice = sharingAdvice;
    }

    /**
     * This allocator, with the counters described by {@code noun} where a message says how many
     * the model has: {@code general-purpose counters (CPUID.0AH EAX[15:8])} gives "has only 2
     * general-purpose counters (CPUID.0AH EAX[15:8])". The default is {@code counters}.
     */
    public CounterAllocator withCounterNoun(String noun) {
        if (noun == null || noun.isBlank()) {
            throw new IllegalArgumentException("the counter noun of " + cpuType + " must not be empty");
        }
        return new CounterAllocator(table, cpuType, displayName, defaultEvent, counters, maxCount, maxCountReason,
                noun.strip(), counterNames, check, sharingAdvice);
    }

    /**
     * This allocator, with messages naming counter {@code i} as {@code i (names[i])}, e.g.
     * {@code 0 (BPU_COUNTER0)}: one name per counter.
     *
     * @throws IllegalArgumentException when the list does not hold one non-empty name per counter
     */
    public CounterAllocator withCounterNames(List<String> names) {
        if (names == null || names.size() != counters) {
            throw new IllegalArgumentException("give one name per counter of " + cpuType + ": " + counters
                    + " names, got " + (names == null ? "none" : Integer.toString(names.size())));
        }
        String[] copy = new String[counters];
        for (int c = 0; c < counters; c++) {
            String name = names.get(c);
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("counter " + c + " of " + cpuType + " has an empty name");
            }
            copy[c] = name.strip();
        }
        return new CounterAllocator(table, cpuType, displayName, defaultEvent, counters, maxCount, maxCountReason,
                counterNoun, copy, check, sharingAdvice);
    }

    /** This allocator, with the model's own rule for each event (replacing any earlier one). */
    public CounterAllocator withEventCheck(EventCheck eventCheck) {
        return new CounterAllocator(table, cpuType, displayName, defaultEvent, counters, maxCount, maxCountReason,
                counterNoun, counterNames, Objects.requireNonNull(eventCheck, "eventCheck"), sharingAdvice);
    }

    /**
     * This allocator, ending its "no free counter" message with {@code advice} instead of "choose
     * events that can run on different counters", for a model whose counters are shared by a rule
     * the user should know (events of one P4 counter group share that group's counters).
     */
    public CounterAllocator withSharingAdvice(String advice) {
        if (advice == null || advice.isBlank()) {
            throw new IllegalArgumentException("the sharing advice of " + cpuType + " must not be empty");
        }
        return new CounterAllocator(table, cpuType, displayName, defaultEvent, counters, maxCount, maxCountReason,
                counterNoun, counterNames, check, advice.strip());
    }

    /**
     * Checks {@code specs} and places each event on a counter.
     *
     * @return one configuration per spec, in the same order
     * @throws EventSpecException for the first spec or placement that fails, naming what was
     *                            given and what is allowed
     */
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        if (specs == null || specs.isEmpty()) {
            throw new EventSpecException("no event given for the " + model() + "; give at least one, e.g. the default "
                    + defaultEvent);
        }
        int n = specs.size();
        if (n > counters) {
            throw new EventSpecException(n + " events given, but the " + model() + " has only " + counters + " "
                    + counterNoun + (counterNames == null ? "" : ": " + counterList(presentMask(), ", "))
                    + "; give at most " + counters + " events");
        }
        EventDescriptor[] events = new EventDescriptor[n];
        long[] unitMasks = new long[n];
        for (int i = 0; i < n; i++) {
            EventSpec spec = specs.get(i);
            if (spec == null) {
                throw new EventSpecException("event " + (i + 1) + " of " + n + " is missing (null); give an event"
                        + " specification such as " + defaultEvent);
            }
            events[i] = checkedEvent(spec, i, n);
            unitMasks[i] = checkedUnitMask(spec, events[i]);
            checkHasCounter(events[i]);
        }
        int[] placed = new int[n];
        if (!place(events, 0, n, 0L, placed)) {
            throw new EventSpecException(noCounterMessage(events));
        }
        CounterConfig[] configs = new CounterConfig[n];
        for (int i = 0; i < n; i++) {
            EventSpec spec = specs.get(i);
            configs[i] = new CounterConfig(placed[i], events[i], spec.count(), unitMasks[i], spec.kernel(),
                    spec.user());
        }
        return configs;
    }

    /** An event of the table as a spec asks for it: the event, and the unit mask to program. */
    public record Checked(EventDescriptor event, long unitMask) {
    }

    /**
     * The checks {@link #allocate} makes of one event, in the same order and with the same
     * messages, for a model that places its events by a rule of its own (the 970's event groups).
     *
     * @param spec  the event specification, not null
     * @param index its position among the {@code n} specs given, from 0 (for messages)
     * @throws EventSpecException at the first check that fails
     */
    public Checked check(EventSpec spec, int index, int n) throws EventSpecException {
        EventDescriptor event = checkedEvent(Objects.requireNonNull(spec, "spec"), index, n);
        return new Checked(event, checkedUnitMask(spec, event));
    }

    /** OProfile's names of IBS-derived events: {@code IBS_FETCH_*} and {@code IBS_OP_*} (not IBS_OPS_TAGGED, a counter event). */
    private static boolean isIbsName(String name) {
        String n = name.strip().toUpperCase(Locale.ROOT);
        return n.startsWith("IBS_FETCH_") || n.startsWith("IBS_OP_");
    }

    private EventDescriptor checkedEvent(EventSpec spec, int index, int n) throws EventSpecException {
        String name = spec.eventName();
        if (name == null || name.isBlank()) {
            throw new EventSpecException("event " + (index + 1) + " of " + n + " has no name; allowed events for CPU"
                    + " type " + cpuType + " (" + displayName + "): " + offeredNames());
        }
        EventDescriptor event = table.find(name).orElse(null);
        if (event == null) {
            EventDescriptor caseless = table.find(name.strip().toUpperCase(Locale.ROOT)).orElse(null);
            String hint = caseless == null ? ""
                    : " (did you mean " + caseless.name() + "? names are upper case"
                            + (name.strip().length() == name.length() ? "" : ", without spaces") + ")";
            if (isIbsName(name)) {
                throw new EventSpecException(name.strip() + " is an AMD Instruction-Based Sampling (IBS) event, and the "
                        + displayName + " (" + cpuType + ") has no IBS: only AMD family 10h parts sample instructions"
                        + " (OProfile's x86-64/family10 IBS_FETCH_* and IBS_OP_* events); load a family 10h host, e.g."
                        + " hp:load --cpu x86-64/family10, or count one of: " + offeredNames());
            }
            throw new EventSpecException("unknown event '" + name + "' for CPU type " + cpuType + " (" + displayName
                    + ")" + hint + "; allowed events: " + offeredNames());
        }
        if (check != null) {
            check.check(event, spec);
            if (!check.offers(event)) {
                throw new EventSpecException(event.name() + " is in the " + cpuType + " event table, but this "
                        + displayName + " CPU does not count it; events it counts: " + offeredNames());
            }
        }
        long count = spec.count();
        if (count < event.minimumCount()) {
            throw new EventSpecException("count " + count + " for " + event.name() + " is below its minimum of "
                    + event.minimumCount() + " on " + cpuType + "; give a count of at least " + event.minimumCount());
        }
        if (count < 1) {
            throw new EventSpecException("count " + count + " for " + event.name() + " is not a sampling period"
                    + " (the counter is preloaded with -count); give a count of at least 1");
        }
        if (count > maxCount) {
            throw new EventSpecException("count " + count + " for " + event.name() + " is above " + maxCount + ": "
                    + maxCountReason + "; give a count of at most " + maxCount);
        }
        if (!spec.kernel() && !spec.user()) {
            throw new EventSpecException(event.name() + " counts in neither kernel nor user mode;"
                    + " set kernel or user to 1");
        }
        return event;
    }

    /**
     * The unit mask {@code spec} asks of {@code event}: the event's default when it gives none (-1),
     * else its own value when the event's unit mask allows it.
     *
     * @throws EventSpecException when the event's unit mask does not allow the value
     */
    public static long checkedUnitMask(EventSpec spec, EventDescriptor event) throws EventSpecException {
        UnitMask um = event.unitMask();
        if (spec.unitMask() == -1) {
            return um.defaultValue();
        }
        if (!um.allows(spec.unitMask())) {
            throw new EventSpecException(String.format("unit mask 0x%x is not valid for %s (unit mask '%s'); allowed:"
                    + " %s", spec.unitMask(), event.name(), um.name(), um.describeAllowed()));
        }
        return spec.unitMask();
    }

    /** Refuses an event whose table counters all lie beyond the counters this CPU has. */
    private void checkHasCounter(EventDescriptor event) throws EventSpecException {
        if ((event.counterMask() & presentMask()) == 0) {
            throw new EventSpecException(event.name() + " can use counter(s) " + event.countersText() + " only, but the "
                    + model() + " has counter(s) " + counterList(presentMask(), counterNames == null ? "," : ", ")
                    + "; choose an event that one of these counters counts");
        }
    }

    /**
     * Places events {@code index..end-1}, each on the lowest free counter it may use, backtracking
     * when a later event finds every counter it may use taken.
     */
    private boolean place(EventDescriptor[] events, int index, int end, long used, int[] placed) {
        if (index == end) {
            return true;
        }
        for (int c = 0; c < counters; c++) {
            if ((used & (1L << c)) == 0 && events[index].canUseCounter(c)) {
                placed[index] = c;
                if (place(events, index + 1, end, used | (1L << c), placed)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Explains a failed placement with the first event that no placement of the events before it
     * leaves a counter for, naming who holds its counters in the placement the allocator tried.
     */
    private String noCounterMessage(EventDescriptor[] events) {
        int[] placed = new int[events.length];
        int blocked = 1;
        while (blocked < events.length && place(events, 0, blocked + 1, 0L, placed)) {
            blocked++;
        }
        // Events 0..blocked-1 fit together (every event fits alone); place them again, because the
        // failed search for event "blocked" overwrote the placement.
        place(events, 0, blocked, 0L, placed);
        String[] takenBy = new String[counters];
        for (int j = 0; j < blocked; j++) {
            takenBy[placed[j]] = events[j].name();
        }
        EventDescriptor e = events[blocked];
        StringJoiner taken = new StringJoiner(", ");
        boolean movable = false;
        for (int c = 0; c < counters; c++) {
            if (e.canUseCounter(c)) {
                taken.add("counter " + c + " is taken by " + takenBy[c]);
                for (int j = 0; j < blocked; j++) {
                    if (placed[j] == c && Long.bitCount(events[j].counterMask() & presentMask()) > 1) {
                        movable = true;
                    }
                }
            }
        }
        StringJoiner usable = new StringJoiner("; ");
        for (int j = 0; j <= blocked; j++) {
            usable.add(events[j].name() + " can use counter(s) " + usableCounters(events[j]));
        }
        return "no free counter for " + e.name() + ": it can use counter(s) " + usableCounters(e) + " and " + taken
                + (movable ? ", and no other placement of the events before it frees one" : "") + " (" + usable
                + "); " + sharingAdvice;
    }

    /** The counters of {@code event} this CPU has: {@code 0,1} as OProfile writes them, or with names. */
    private String usableCounters(EventDescriptor event) {
        return counterList(event.counterMask() & presentMask(), counterNames == null ? "," : ", ");
    }

    private String counterList(long mask, String separator) {
        StringJoiner j = new StringJoiner(separator);
        for (int c = 0; c < counters; c++) {
            if ((mask & (1L << c)) != 0) {
                j.add(counterNames == null ? Integer.toString(c) : c + " (" + counterNames[c] + ")");
            }
        }
        return j.toString();
    }

    private long presentMask() {
        return counters == MAX_COUNTERS ? -1L : (1L << counters) - 1;
    }

    private String offeredNames() {
        if (check == null) {
            return table.namesText();
        }
        StringJoiner j = new StringJoiner(", ");
        for (EventDescriptor e : table.events()) {
            if (check.offers(e)) {
                j.add(e.name());
            }
        }
        return j.toString();
    }

    private String model() {
        return displayName + " (" + cpuType + ")";
    }

    @Override
    public String toString() {
        return "CounterAllocator[" + model() + ", " + counters + " " + counterNoun + ", counts 1.." + maxCount + "]";
    }
}
