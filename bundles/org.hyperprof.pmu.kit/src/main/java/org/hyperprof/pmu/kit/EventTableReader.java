package org.hyperprof.pmu.kit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.UnitMask;

/**
 * Reads a model's {@link EventTable} from two resources in OProfile's formats: {@code events}
 * ({@code event:0x79 counters:0,1 um:zero minimum:6000 name:CPU_CLK_UNHALTED signal:CYCLES : description})
 * and {@code unit_masks} ({@code name:zero type:mandatory default:0x0} followed by tab-indented
 * {@code value description} lines). The only addition to OProfile's syntax is the
 * {@code signal:} field that ties an event to a simulated {@link Signal}. As in OProfile, an event
 * that no counter counts names the extended feature that samples it instead of its counters
 * ({@code ext:ibs_fetch}, {@code ext:ibs_op}: AMD's instruction-based sampling); its counter mask is 0.
 *
 * <p>The reading is the models' business, kept once here; the table it yields is the API's value.
 */
public final class EventTableReader {
    private EventTableReader() {
    }

    /**
     * Reads a table.
     *
     * @param source    a name for messages (the model's cpu type and file)
     * @param events    the events file
     * @param unitMasks the unit_masks file
     * @throws EventTableException with file and line when a line is malformed or names an
     *                             unknown unit mask or signal
     */
    public static EventTable parse(String source, Reader events, Reader unitMasks) throws IOException {
        Map<String, UnitMask> masks = parseUnitMasks(source + "/unit_masks", unitMasks);
        Map<String, EventDescriptor> byName = new LinkedHashMap<>();
        String file = source + "/events";
        DataFile.records(events, (no, t) -> {
            String head = t;
            String description = "";
            int colon = t.indexOf(" : ");
            if (colon >= 0) {
                head = t.substring(0, colon);
                description = t.substring(colon + 3).strip();
            }
            Map<String, String> f = DataFile.fields(file, no, head, "event", "um", "minimum", "name", "signal");
            UnitMask um = masks.get(f.get("um"));
            if (um == null) {
                throw new EventTableException(file, no, "unit mask '" + f.get("um") + "' is not defined in unit_masks");
            }
            Signal signal;
            try {
                signal = Signal.valueOf(f.get("signal"));
            } catch (IllegalArgumentException e) {
                throw new EventTableException(file, no, "unknown signal '" + f.get("signal") + "'");
            }
            long counters = 0;
            boolean extended = f.containsKey("ext");
            if (extended == f.containsKey("counters")) {
                throw new EventTableException(file, no, "give either 'counters:' (the counters that count the event)"
                        + " or 'ext:' (the extended feature that samples it), not " + (extended ? "both" : "neither"));
            }
            for (String c : extended ? new String[0] : f.get("counters").split(",")) {
                int idx = (int) DataFile.number(file, no, c);
                if (idx < 0 || idx > 63) {
                    throw new EventTableException(file, no, "counter " + idx + " out of range 0..63");
                }
                counters |= 1L << idx;
            }
            String name = f.get("name");
            EventDescriptor d = new EventDescriptor(name, (int) DataFile.number(file, no, f.get("event")), counters,
                    DataFile.number(file, no, f.get("minimum")), um, signal, description);
            if (byName.put(name, d) != null) {
                throw new EventTableException(file, no, "event " + name + " is defined twice");
            }
        });
        return EventTable.of(List.copyOf(byName.values()), masks);
    }

    private static Map<String, UnitMask> parseUnitMasks(String file, Reader in) throws IOException {
        Map<String, UnitMask> masks = new LinkedHashMap<>();
        BufferedReader r = new BufferedReader(in);
        String line;
        int no = 0;
        String name = null;
        UnitMask.Kind kind = null;
        long dflt = 0;
        List<UnitMask.Value> values = new ArrayList<>();
        while ((line = r.readLine()) != null) {
            no++;
            if (line.isBlank() || line.strip().startsWith("#")) {
                continue;
            }
            if (Character.isWhitespace(line.charAt(0))) {
                if (name == null) {
                    throw new EventTableException(file, no, "value line before any 'name:' line");
                }
                String t = line.strip();
                int sp = t.indexOf(' ');
                String v = sp < 0 ? t : t.substring(0, sp);
                values.add(new UnitMask.Value(DataFile.number(file, no, v), sp < 0 ? "" : t.substring(sp + 1).strip()));
                continue;
            }
            if (name != null) {
                masks.put(name, finish(file, no, name, kind, dflt, values));
            }
            Map<String, String> f = DataFile.fields(file, no, line.strip());
            name = f.get("name");
            if (name == null || !f.containsKey("type") || !f.containsKey("default")) {
                throw new EventTableException(file, no, "expected 'name:X type:T default:V', got: " + line.strip());
            }
            try {
                kind = UnitMask.Kind.valueOf(f.get("type").toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new EventTableException(file, no, "unit mask type '" + f.get("type")
                        + "' is not one of mandatory, exclusive, bitmask");
            }
            dflt = DataFile.number(file, no, f.get("default"));
            values = new ArrayList<>();
        }
        if (name != null) {
            masks.put(name, finish(file, no, name, kind, dflt, values));
        }
        return masks;
    }

    private static UnitMask finish(String file, int no, String name, UnitMask.Kind kind, long dflt,
            List<UnitMask.Value> values) throws EventTableException {
        if (values.isEmpty()) {
            throw new EventTableException(file, no, "unit mask " + name + " has no values");
        }
        UnitMask um = new UnitMask(name, kind, dflt, values);
        if (!um.allows(dflt)) {
            throw new EventTableException(file, no, "unit mask " + name + " default 0x" + Long.toHexString(dflt)
                    + " is not among its values");
        }
        return um;
    }
}
