package org.hyperprof.pmu.ppc970;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.pmu.kit.DataFile;
import org.hyperprof.pmu.kit.EventTableException;

/**
 * OProfile's 970 event groups: the MMCR0/MMCR1/MMCRA values of each group, read from the
 * {@code event_mappings} resource, and what each PMC counts under a given programming.
 *
 * <p>An OProfile 970 event number is {@code group * 16 + counter} (counter 0..7 = PMC1..PMC8), not
 * a hardware code: the hardware is programmed with the group's MMCR values, and each PMC counts
 * what its PMCnSEL field selects through the event-bus multiplexers of MMCR1's high word. The
 * selectors {@code 0x08} (nothing), {@code 0x09} (instructions completed) and {@code 0x0F}
 * (cycles) mean the same on every PMC; any other selector is identified by the triple (PMC,
 * selector, MMCR1 high word) of a table event, and a triple no table event has never counts.
 *
 * <p>{@code event_mappings} uses OProfile's line format
 * {@code event:0x013 mmcr0:0x0000051E mmcr1:0x000000000A46F18C mmcra:0x00002001}; the one addition
 * is an optional {@code state:hypervisor} for an event that counts only while MSR[HV]=1.
 */
final class Ppc970EventGroups {
    /** Flag in a decoded selector: the event counts only in hypervisor state. */
    static final int HYPERVISOR_ONLY = 1 << 16;
    /** Mask of the signal ordinal in a decoded selector. */
    static final int SIGNAL_MASK = 0xFFFF;
    /** A decoded selector that counts nothing. */
    static final int NO_SIGNAL = -1;

    /** The MMCR values OProfile's user space hands the kernel for one group. */
    record GroupMapping(int group, long mmcr0, long mmcr1, long mmcra) {
    }

    private final Map<Integer, GroupMapping> groups;
    /** Sorted keys {@code mmcr1High << 8 | counter << 5 | selector} and their decoded values. */
    private final long[] selectorKeys;
    private final int[] selectorValues;
    private final String groupsText;

    private Ppc970EventGroups(Map<Integer, GroupMapping> groups, long[] selectorKeys, int[] selectorValues,
            String groupsText) {
        this.groups = groups;
        this.selectorKeys = selectorKeys;
        this.selectorValues = selectorValues;
        this.groupsText = groupsText;
    }

    /** The group an OProfile 970 event number belongs to. */
    static int groupOf(int eventCode) {
        return eventCode >>> 4;
    }

    /** The counter (0..7 = PMC1..PMC8) an OProfile 970 event number is tied to. */
    static int counterOf(int eventCode) {
        return eventCode & 0xF;
    }

    /** The group's MMCR values, or null for a group the table does not describe. */
    GroupMapping group(int group) {
        return groups.get(group);
    }

    /** Every described group, by number, with its events and their counters: for messages. */
    String groupsText() {
        return groupsText;
    }

    /**
     * What PMC {@code counter} counts with selector {@code selector} under MMCR1 {@code mmcr1}: a
     * signal ordinal, possibly with {@link #HYPERVISOR_ONLY}, or {@link #NO_SIGNAL}. No allocation.
     */
    int decode(int counter, int selector, long mmcr1) {
        switch (selector) {
            case Ppc970Registers.SEL_NOTHING:
                return NO_SIGNAL;
            case Ppc970Registers.SEL_CYCLES:
                return Signal.CYCLES.ordinal();
            case Ppc970Registers.SEL_INSTRUCTIONS:
                return Signal.INSTRUCTIONS.ordinal();
            default:
                int i = Arrays.binarySearch(selectorKeys, key(counter, selector, mmcr1));
                return i >= 0 ? selectorValues[i] : NO_SIGNAL;
        }
    }

    private static long key(int counter, int selector, long mmcr1) {
        return ((mmcr1 >>> 32) << 8) | ((long) counter << 5) | selector;
    }

    /**
     * Reads {@code event_mappings} and checks it against the event table: every table event has a
     * line, every line names a table event, the lines of one group agree, each event's number names
     * the counter its {@code counters:} field gives, and no two events claim one selector for
     * different signals.
     */
    static Ppc970EventGroups parse(String source, Reader mappings, EventTable table) throws IOException {
        String file = source + "/event_mappings";
        Map<Integer, EventDescriptor> byCode = new LinkedHashMap<>();
        for (EventDescriptor e : table.events()) {
            byCode.put(e.code(), e);
        }
        Map<Integer, GroupMapping> groups = new TreeMap<>();
        Map<Integer, Integer> lineOfCode = new LinkedHashMap<>();
        Map<Integer, Boolean> hypervisorOnly = new LinkedHashMap<>();
        int lines = DataFile.records(mappings, (no, t) -> {
            Map<String, String> f = DataFile.caselessFields(file, no, t, "event", "mmcr0", "mmcr1", "mmcra");
            int code = (int) DataFile.number(file, no, f.get("event"));
            EventDescriptor event = byCode.get(code);
            if (event == null) {
                throw new EventTableException(file, no, String.format(
                        "event 0x%03x has a mapping but is not in the events file", code));
            }
            if (lineOfCode.put(code, no) != null) {
                throw new EventTableException(file, no, String.format("event 0x%03x is mapped twice", code));
            }
            String state = f.getOrDefault("state", "any");
            if (!state.equals("any") && !state.equals("hypervisor")) {
                throw new EventTableException(file, no, "state '" + state + "' is not one of any, hypervisor");
            }
            hypervisorOnly.put(code, state.equals("hypervisor"));
            GroupMapping m = new GroupMapping(groupOf(code), DataFile.number(file, no, f.get("mmcr0")),
                    DataFile.number(file, no, f.get("mmcr1")), DataFile.number(file, no, f.get("mmcra")));
            if ((m.mmcr0() & ~Ppc970Registers.MMCR0_WRITABLE) != 0 || (m.mmcra() & ~Ppc970Registers.MMCRA_WRITABLE) != 0) {
                throw new EventTableException(file, no, "mmcr0 and mmcra are 32-bit values (low word), got " + t);
            }
            GroupMapping earlier = groups.putIfAbsent(m.group(), m);
            if (earlier != null && !earlier.equals(m)) {
                throw new EventTableException(file, no, String.format(
                        "group %d is mapped to mmcr0 0x%08x mmcr1 0x%016x mmcra 0x%08x on an earlier line;"
                                + " every event of a group shares one mapping",
                        m.group(), earlier.mmcr0(), earlier.mmcr1(), earlier.mmcra()));
            }
        });
        Map<Long, Integer> decoded = new TreeMap<>();
        Map<Long, String> claimedBy = new LinkedHashMap<>();
        for (EventDescriptor e : byCode.values()) {
            Integer at = lineOfCode.get(e.code());
            if (at == null) {
                throw new EventTableException(file, lines, String.format(
                        "event %s (0x%03x) has no line in event_mappings; OProfile needs its group's MMCR values",
                        e.name(), e.code()));
            }
            int counter = counterOf(e.code());
            if (counter >= Ppc970Registers.COUNTERS || e.counterMask() != 1L << counter) {
                throw new EventTableException(file, at, String.format(
                        "event %s number 0x%03x names counter %d, but its counters: field is %s;"
                                + " a 970 event number is group*16 + counter with counter 0..7",
                        e.name(), e.code(), counter, e.countersText()));
            }
            GroupMapping m = groups.get(groupOf(e.code()));
            int selector = Ppc970Registers.selector(counter, m.mmcr0(), m.mmcr1());
            int value = e.signal().ordinal() | (hypervisorOnly.get(e.code()) ? HYPERVISOR_ONLY : 0);
            int universal = universal(selector);
            if (universal != Integer.MIN_VALUE) {
                if (universal != value) {
                    throw new EventTableException(file, at, String.format(
                            "event %s puts selector 0x%02x on PMC%d, which counts %s on every PMC, but the event"
                                    + " says signal %s%s", e.name(), selector, counter + 1,
                            universal == NO_SIGNAL ? "nothing" : Signal.values()[universal], e.signal(),
                            hypervisorOnly.get(e.code()) ? " in hypervisor state only" : ""));
                }
                continue;
            }
            long key = key(counter, selector, m.mmcr1());
            Integer earlier = decoded.putIfAbsent(key, value);
            if (earlier != null && earlier != value) {
                throw new EventTableException(file, at, String.format(
                        "event %s and event %s select the same thing (PMC%d, selector 0x%02x, MMCR1 high word"
                                + " 0x%08x) but name different signals", e.name(), claimedBy.get(key), counter + 1,
                        selector, m.mmcr1() >>> 32));
            }
            claimedBy.putIfAbsent(key, e.name());
        }
        long[] keys = new long[decoded.size()];
        int[] values = new int[decoded.size()];
        int i = 0;
        for (Map.Entry<Long, Integer> d : decoded.entrySet()) {
            keys[i] = d.getKey();
            values[i] = d.getValue();
            i++;
        }
        return new Ppc970EventGroups(groups, keys, values, describe(byCode, groups));
    }

    /** The meaning of a selector every PMC shares, or {@link Integer#MIN_VALUE} for a PMC-specific one. */
    private static int universal(int selector) {
        return switch (selector) {
            case Ppc970Registers.SEL_NOTHING -> NO_SIGNAL;
            case Ppc970Registers.SEL_CYCLES -> Signal.CYCLES.ordinal();
            case Ppc970Registers.SEL_INSTRUCTIONS -> Signal.INSTRUCTIONS.ordinal();
            default -> Integer.MIN_VALUE;
        };
    }

    private static String describe(Map<Integer, EventDescriptor> byCode, Map<Integer, GroupMapping> groups) {
        List<String> parts = new ArrayList<>();
        for (int g : groups.keySet()) {
            StringBuilder b = new StringBuilder(g == 0 ? "group 0 (default):" : "group " + g + ":");
            String sep = " ";
            for (EventDescriptor e : byCode.values()) {
                if (groupOf(e.code()) == g) {
                    b.append(sep).append(e.name()).append(" on ").append(counterText(counterOf(e.code())));
                    sep = ", ";
                }
            }
            parts.add(b.toString());
        }
        return String.join("; ", parts);
    }

    /** {@code counter 1 (PMC2)}. */
    static String counterText(int counter) {
        return "counter " + counter + " (PMC" + (counter + 1) + ")";
    }
}
