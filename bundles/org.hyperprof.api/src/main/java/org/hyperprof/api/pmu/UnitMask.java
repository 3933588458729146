package org.hyperprof.api.pmu;

import java.util.List;
import java.util.stream.Collectors;

/**
 * An OProfile unit mask: a named set of values an event's UMASK field may take.
 *
 * @param name         the unit mask's name ({@code zero}, {@code mesi}, ...)
 * @param kind         how values combine
 * @param defaultValue the value used when the user gives none
 * @param values       the allowed values (for a bit mask: the individual bits)
 */
public record UnitMask(String name, Kind kind, long defaultValue, List<Value> values) {

    /** How the values of a unit mask combine, as in OProfile's {@code type:} field. */
    public enum Kind {
        /** Exactly the single listed value. */
        MANDATORY,
        /** Exactly one of the listed values. */
        EXCLUSIVE,
        /** Any non-empty OR of the listed bits. */
        BITMASK
    }

    /** One allowed value and what it selects. */
    public record Value(long value, String description) {
    }

    public UnitMask {
        values = List.copyOf(values);
    }

    /** Whether {@code mask} is a value this unit mask allows. */
    public boolean allows(long mask) {
        switch (kind) {
            case MANDATORY:
            case EXCLUSIVE:
                return values.stream().anyMatch(v -> v.value() == mask);
            case BITMASK:
            default:
                long all = 0;
                for (Value v : values) {
                    all |= v.value();
                }
                return mask != 0 && (mask & ~all) == 0;
        }
    }

    /** The allowed values as a human-readable list, for error messages. */
    public String describeAllowed() {
        String list = values.stream()
                .map(v -> String.format("0x%02x %s", v.value(), v.description()))
                .collect(Collectors.joining("; "));
        return switch (kind) {
            case MANDATORY -> "only " + list;
            case EXCLUSIVE -> "one of: " + list;
            case BITMASK -> "any combination of the bits: " + list;
        };
    }
}
