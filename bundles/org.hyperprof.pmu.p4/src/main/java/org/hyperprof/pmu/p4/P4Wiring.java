package org.hyperprof.pmu.p4;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.pmu.kit.DataFile;
import org.hyperprof.pmu.kit.EventTableException;


/**
 * The Pentium 4's fixed wiring, read from the {@code wiring} resource: OProfile's eight virtual
 * counters, the 45 ESCRs with their group, half and CCCR ESCR-select value, and OProfile's
 * 39-entry event binding table. The loader cross-checks the three: every binding's ESCR must feed
 * the hardware counter behind its virtual counter with the binding's ESCR-select value.
 */
final class P4Wiring {
    /** OProfile's P4 event numbers run 1..39. */
    static final int EVENTS = 39;
    static final int VIRTUAL_COUNTERS = 8;

    /** One entry of OProfile's binding table; {@code vcounters[i]} counts through {@code escrs[i]}. */
    record Binding(int number, String name, int escrSelect, int eventSelect, int[] vcounters, int[] escrs) {
        /** The ESCR index this event uses on OProfile virtual counter {@code vcounter}, or -1. */
        int escrFor(int vcounter) {
            for (int i = 0; i < vcounters.length; i++) {
                if (vcounters[i] == vcounter) {
                    return escrs[i];
                }
            }
            return -1;
        }
    }

    private final int[] hardwareCounter = new int[VIRTUAL_COUNTERS];
    private final List<String> escrName = new ArrayList<>();
    private final List<Integer> escrAddress = new ArrayList<>();
    private final List<Integer> escrGroup = new ArrayList<>();
    private final List<Integer> escrHalf = new ArrayList<>();
    private final List<Integer> escrSelect = new ArrayList<>();
    private final List<Integer> escrUnit = new ArrayList<>();
    private final List<int[]> escrModels = new ArrayList<>();
    private final List<String> units = new ArrayList<>();
    private final int[] escrAtAddress = new int[P4Registers.LAST_ESCR - P4Registers.FIRST_ESCR + 1];
    /** [group][half][select] to ESCR index, -1 where no ESCR answers. */
    private final int[][][] escrBySelect = new int[4][2][8];
    private final Binding[] bindings = new Binding[EVENTS + 1];

    private P4Wiring() {
        Arrays.fill(hardwareCounter, -1);
        Arrays.fill(escrAtAddress, -1);
        for (int[][] g : escrBySelect) {
            for (int[] h : g) {
                Arrays.fill(h, -1);
            }
        }
    }

    /** The hardware counter (0-17) behind OProfile virtual counter {@code vcounter} (0-7). */
    int hardwareCounter(int vcounter) {
        return hardwareCounter[vcounter];
    }

    int escrCount() {
        return escrName.size();
    }

    String escrName(int escr) {
        return escrName.get(escr);
    }

    int escrAddress(int escr) {
        return escrAddress.get(escr);
    }

    int escrHalf(int escr) {
        return escrHalf.get(escr);
    }

    /** The unit (pair of ESCRs sharing one event-select code space) of an ESCR. */
    int escrUnit(int escr) {
        return escrUnit.get(escr);
    }

    int unitCount() {
        return units.size();
    }

    /** Whether the ESCR exists on family 0Fh model {@code cpuModel}. */
    boolean escrPresent(int escr, int cpuModel) {
        int[] m = escrModels.get(escr);
        return cpuModel >= m[0] && cpuModel <= m[1];
    }

    /** The ESCR at an MSR address, or -1. */
    int escrAt(int address) {
        int i = address - P4Registers.FIRST_ESCR;
        return i >= 0 && i < escrAtAddress.length ? escrAtAddress[i] : -1;
    }

    /** The ESCR that CCCR ESCR-select value {@code select} names for hardware counter {@code counter}, or -1. */
    int escrFeeding(int counter, int select) {
        return escrBySelect[P4Registers.group(counter)][P4Registers.half(counter)][select];
    }

    /** The binding of OProfile event number {@code number}, or null outside 1..39. */
    Binding binding(int number) {
        return number >= 1 && number <= EVENTS ? bindings[number] : null;
    }

    /** Reads and cross-checks the wiring. */
    static P4Wiring parse(String file, Reader in) throws IOException {
        P4Wiring w = new P4Wiring();
        Map<String, Integer> escrByName = new HashMap<>();
        Map<String, Integer> unitByName = new HashMap<>();
        int no = DataFile.records(in, (line, t) -> {
            String[] f = t.split("\\s+");
            switch (f[0]) {
                case "vcounter" -> w.vcounter(file, line, f);
                case "escr" -> w.escr(file, line, f, escrByName, unitByName);
                case "binding" -> w.binding(file, line, f, escrByName);
                default -> throw new EventTableException(file, line, "expected a 'vcounter', 'escr' or 'binding'"
                        + " line, got: " + t);
            }
        });
        for (int v = 0; v < VIRTUAL_COUNTERS; v++) {
            if (w.hardwareCounter[v] < 0) {
                throw new EventTableException(file, no, "virtual counter " + v + " has no 'vcounter' line");
            }
        }
        for (int e = 1; e <= EVENTS; e++) {
            if (w.bindings[e] == null) {
                throw new EventTableException(file, no, "event number " + e + " has no 'binding' line; OProfile's"
                        + " table has all of 1.." + EVENTS);
            }
        }
        return w;
    }

    private void vcounter(String file, int no, String[] f) throws EventTableException {
        expectFields(file, no, f, 3, 3, "vcounter <OProfile counter> <hardware counter>");
        int v = (int) DataFile.number(file, no, f[1], 0, VIRTUAL_COUNTERS - 1);
        int hw = (int) DataFile.number(file, no, f[2], 0, P4Registers.HARDWARE_COUNTERS - 1);
        if (hardwareCounter[v] >= 0) {
            throw new EventTableException(file, no, "virtual counter " + v + " is defined twice");
        }
        hardwareCounter[v] = hw;
    }

    private void escr(String file, int no, String[] f, Map<String, Integer> byName, Map<String, Integer> unitByName)
            throws EventTableException {
        expectFields(file, no, f, 7, 8, "escr <name> <MSR> <group> <half> <ESCR-select> <unit> [models:A-B]");
        String name = f[1];
        int address = (int) DataFile.number(file, no, f[2], P4Registers.FIRST_ESCR, P4Registers.LAST_ESCR);
        int group = Arrays.asList(P4Registers.GROUP_NAMES).indexOf(f[3]);
        if (group < 0) {
            throw new EventTableException(file, no, "group '" + f[3] + "' is not one of "
                    + String.join(", ", P4Registers.GROUP_NAMES));
        }
        int half = (int) DataFile.number(file, no, f[4], 0, 1);
        int select = (int) DataFile.number(file, no, f[5], 0, 7);
        int[] models = {0, 6};
        if (f.length == 8) {
            if (!f[7].startsWith("models:") || f[7].indexOf('-') < 0) {
                throw new EventTableException(file, no, "expected models:A-B, got '" + f[7] + "'");
            }
            String[] ab = f[7].substring(7).split("-");
            models = new int[] {(int) DataFile.number(file, no, ab[0], 0, 15), (int) DataFile.number(file, no, ab[1], 0, 15)};
        }
        if (byName.containsKey(name) || escrAtAddress[address - P4Registers.FIRST_ESCR] >= 0) {
            throw new EventTableException(file, no, "ESCR " + name + " or its address is defined twice");
        }
        if (escrBySelect[group][half][select] >= 0) {
            throw new EventTableException(file, no, "ESCR-select " + select + " in " + f[3] + " half " + half
                    + " already names " + escrName.get(escrBySelect[group][half][select]));
        }
        int index = escrName.size();
        Integer unit = unitByName.get(f[6]);
        if (unit == null) {
            unit = units.size();
            units.add(f[6]);
            unitByName.put(f[6], unit);
        }
        escrName.add(name);
        escrAddress.add(address);
        escrGroup.add(group);
        escrHalf.add(half);
        escrSelect.add(select);
        escrUnit.add(unit);
        escrModels.add(models);
        byName.put(name, index);
        escrAtAddress[address - P4Registers.FIRST_ESCR] = index;
        escrBySelect[group][half][select] = index;
    }

    private void binding(String file, int no, String[] f, Map<String, Integer> byName) throws EventTableException {
        expectFields(file, no, f, 6, 7,
                "binding <number> <name> <ESCR-select> <event-select> <vcounter>:<ESCR> [<vcounter>:<ESCR>]");
        int number = (int) DataFile.number(file, no, f[1], 1, EVENTS);
        if (bindings[number] != null) {
            throw new EventTableException(file, no, "event number " + number + " is bound twice");
        }
        int select = (int) DataFile.number(file, no, f[3], 0, 7);
        int eventSelect = (int) DataFile.number(file, no, f[4], 0, 0x3F);
        int n = f.length - 5;
        int[] vcounters = new int[n];
        int[] escrs = new int[n];
        for (int i = 0; i < n; i++) {
            String[] pair = f[5 + i].split(":");
            if (pair.length != 2) {
                throw new EventTableException(file, no, "expected <vcounter>:<ESCR>, got '" + f[5 + i] + "'");
            }
            int v = (int) DataFile.number(file, no, pair[0], 0, VIRTUAL_COUNTERS - 1);
            Integer escr = byName.get(pair[1]);
            if (escr == null) {
                throw new EventTableException(file, no, "ESCR '" + pair[1] + "' is not defined by an 'escr' line above");
            }
            if (hardwareCounter[v] < 0) {
                throw new EventTableException(file, no, "virtual counter " + v + " is not defined above");
            }
            int hw = hardwareCounter[v];
            if (escrGroup.get(escr) != P4Registers.group(hw) || escrHalf.get(escr) != P4Registers.half(hw)) {
                throw new EventTableException(file, no, pair[1] + " does not feed virtual counter " + v + " ("
                        + P4Registers.counterName(hw) + "): it is wired to " + P4Registers.GROUP_NAMES[escrGroup.get(escr)]
                        + " half " + escrHalf.get(escr));
            }
            if (escrSelect.get(escr) != select) {
                throw new EventTableException(file, no, "ESCR-select " + select + " of " + f[2] + " does not name "
                        + pair[1] + ", whose select value is " + escrSelect.get(escr));
            }
            vcounters[i] = v;
            escrs[i] = escr;
        }
        bindings[number] = new Binding(number, f[2], select, eventSelect, vcounters, escrs);
    }

    private static void expectFields(String file, int no, String[] f, int min, int max, String form)
            throws EventTableException {
        if (f.length < min || f.length > max) {
            throw new EventTableException(file, no, "expected '" + form + "', got " + f.length + " fields");
        }
    }
}
