package org.hyperprof.pmu.x86_64;

import java.io.IOException;
import java.io.Reader;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.pmu.kit.DataFile;
import org.hyperprof.pmu.kit.EventTableException;
import org.hyperprof.pmu.kit.ModelResources;

/**
 * A model's resources, read once: the event table ({@code events}, {@code unit_masks}), OProfile's
 * {@code filter:} bits, the CPUID leaf 0x0A of the described part ({@code cpuid}), and the
 * signal each event select counts.
 */
final class ArchEventData {
    final String cpuType;
    final String displayName;
    final EventTable table;
    final CpuidLeaf0A cpuid;
    /** Event name to the CPUID.0AH EBX bit that must be clear for it (OProfile's filter:), if any. */
    final Map<String, Integer> filterBits;
    /**
     * Signal ordinal for an event select's event code and unit mask, indexed by
     * {@code code | umask << 8}; -1 where the table has no event with that code.
     */
    final int[] signalBySelect;

    private ArchEventData(String cpuType, String displayName, EventTable table, CpuidLeaf0A cpuid,
            Map<String, Integer> filterBits) {
        this.cpuType = cpuType;
        this.displayName = displayName;
        this.table = table;
        this.cpuid = cpuid;
        this.filterBits = filterBits;
        this.signalBySelect = signalsBySelect(table);
    }

    /** Reads the resources under {@code org/hyperprof/pmu/x86_64/<dir>/}. */
    static ArchEventData load(String cpuType, String dir) {
        String where = "resource org/hyperprof/pmu/x86_64/" + dir + "/cpuid";
        EventTable table = ModelResources.eventTable(ArchEventData.class, cpuType, dir + "/events",
                dir + "/unit_masks");
        Map<String, Integer> filters = ModelResources.parse(ArchEventData.class, dir + "/events",
                cpuType + " event filters", in -> filterBits(cpuType + "/events", in));
        return ModelResources.parse(ArchEventData.class, dir + "/cpuid", cpuType + " CPUID leaf", in -> {
            Properties p = new Properties();
            p.load(in);
            String display = required(p, where, "display");
            CpuidLeaf0A leaf;
            try {
                leaf = CpuidLeaf0A.decode(hex(p, where, "eax"), hex(p, where, "ebx"), hex(p, where, "edx"));
            } catch (IllegalArgumentException e) {
                throw new IOException(where + " describes an impossible leaf: " + e.getMessage(), e);
            }
            return new ArchEventData(cpuType, display, table, leaf, filters);
        });
    }

    private static String required(Properties p, String file, String key) throws IOException {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IOException(file + ": missing '" + key + "='");
        }
        return v.trim();
    }

    private static long hex(Properties p, String file, String key) throws IOException {
        String v = required(p, file, key);
        try {
            return v.startsWith("0x") || v.startsWith("0X") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IOException(file + ": " + key + "=" + v + " is not a number (decimal or 0x hex)");
        }
    }

    /** OProfile's {@code filter:N} field of each event line, which the API's table parser does not keep. */
    static Map<String, Integer> filterBits(String file, Reader events) throws IOException {
        Map<String, Integer> bits = new HashMap<>();
        DataFile.records(events, (no, t) -> {
            int colon = t.indexOf(" : ");
            String head = colon >= 0 ? t.substring(0, colon) : t;
            String name = null;
            String filter = null;
            for (String token : head.split("\\s+")) {
                if (token.startsWith("name:")) {
                    name = token.substring(5);
                } else if (token.startsWith("filter:")) {
                    filter = token.substring(7);
                }
            }
            if (filter != null) {
                int bit;
                try {
                    bit = Integer.parseInt(filter);
                } catch (NumberFormatException e) {
                    throw new EventTableException(file, no, "filter:" + filter + " is not a CPUID.0AH EBX bit number");
                }
                if (bit < 0 || bit >= CpuidLeaf0A.ARCHITECTURAL_EVENTS.length) {
                    throw new EventTableException(file, no, "filter:" + bit + " is not an architectural event number"
                            + " 0.." + (CpuidLeaf0A.ARCHITECTURAL_EVENTS.length - 1));
                }
                bits.put(name, bit);
            }
        });
        return Collections.unmodifiableMap(bits);
    }

    /**
     * For every (event code, unit mask) pair, the signal of the event the hardware counts: first an
     * event whose mandatory or exclusive unit mask lists exactly that value, then one whose bit
     * mask allows it, then the first event with that code (the code selects the event; an unlisted
     * unit mask still counts something of it).
     */
    private static int[] signalsBySelect(EventTable table) {
        int[] bySelect = new int[256 * 256];
        Arrays.fill(bySelect, -1);
        List<EventDescriptor> events = table.events();
        for (int pass = 0; pass < 3; pass++) {
            for (EventDescriptor e : events) {
                if (e.signal() == null || e.code() < 0 || e.code() > 0xFF) {
                    continue;
                }
                UnitMask um = e.unitMask();
                for (int umask = 0; umask < 256; umask++) {
                    int index = e.code() | umask << 8;
                    if (bySelect[index] >= 0) {
                        continue;
                    }
                    boolean exact = um.kind() != UnitMask.Kind.BITMASK && um.allows(umask);
                    boolean bitmask = um.kind() == UnitMask.Kind.BITMASK && um.allows(umask);
                    if ((pass == 0 && exact) || (pass == 1 && bitmask) || pass == 2) {
                        bySelect[index] = e.signal().ordinal();
                    }
                }
            }
        }
        return bySelect;
    }
}
