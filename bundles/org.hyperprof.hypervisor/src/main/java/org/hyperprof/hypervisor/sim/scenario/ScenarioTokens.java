package org.hyperprof.hypervisor.sim.scenario;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/**
 * The pieces of a scenario line, read and checked: counts of arguments, {@code key=value} tokens and
 * attributes, integers, addresses, decimal weights and fractions, signal rates and {@code ee=} flags.
 * Every error names {@code file:line}, what was found and what was expected.
 */
final class ScenarioTokens {
    /** Decimals a weight or a load may have: both are kept in millionths. */
    static final int WEIGHT_DECIMALS = 6;

    private final String location;

    ScenarioTokens(String location) {
        this.location = location;
    }

    void rate(String token, long[] rates, int line) throws ScenarioException {
        String[] kv = keyValue(token, line, "<SIGNAL>=<events per 1000 cycles>");
        Signal signal;
        try {
            signal = Signal.valueOf(kv[0]);
        } catch (IllegalArgumentException e) {
            throw error(line, "'" + kv[0] + "' is not a signal; expected one of " + Arrays.toString(Signal.values()));
        }
        long value = number(kv[1], line, "rate of " + kv[0], 0, 1_000_000);
        if (signal == Signal.CYCLES && value != SignalRates.SCALE) {
            throw error(line, "CYCLES=" + value + ": running code emits exactly " + SignalRates.SCALE
                    + " unhalted cycles per " + SignalRates.SCALE + " cycles (halted time is the idle domain's)");
        }
        rates[signal.ordinal()] = value;
    }

    Map<String, String> attributes(String[] t, int from, int line, String expected, Set<String> allowed)
            throws ScenarioException {
        Map<String, String> out = new HashMap<>();
        for (int i = from; i < t.length; i++) {
            String[] kv = keyValue(t[i], line, expected);
            if (!allowed.contains(kv[0])) {
                throw error(line, "unknown attribute '" + kv[0] + "'; expected '" + expected + "'");
            }
            if (out.put(kv[0], kv[1]) != null) {
                throw error(line, "attribute '" + kv[0] + "' is given twice");
            }
        }
        return out;
    }

    String required(Map<String, String> attrs, String key, int line, String expected)
            throws ScenarioException {
        String v = attrs.get(key);
        if (v == null) {
            throw error(line, "missing " + key + "=...; expected '" + expected + "'");
        }
        return v;
    }

    String[] keyValue(String token, int line, String expected) throws ScenarioException {
        int eq = token.indexOf('=');
        if (eq <= 0 || eq == token.length() - 1) {
            throw error(line, "'" + token + "' is not <key>=<value>; expected '" + expected + "'");
        }
        return new String[] {token.substring(0, eq), token.substring(eq + 1)};
    }

    long number(String s, int line, String what, long min, long max) throws ScenarioException {
        long v;
        try {
            v = s.startsWith("0x") || s.startsWith("0X") ? Long.parseUnsignedLong(s.substring(2), 16)
                    : Long.parseLong(s.replace("_", ""));
        } catch (NumberFormatException e) {
            throw error(line, what + " '" + s + "' is not an integer (decimal, or hexadecimal with 0x)");
        }
        if (v < min || v > max) {
            throw error(line, what + " " + s + " is out of range; expected " + min + " to " + max);
        }
        return v;
    }

    long address(String s, int line) throws ScenarioException {
        if (!(s.startsWith("0x") || s.startsWith("0X")) || s.length() < 3) {
            throw error(line, "address '" + s + "' must be hexadecimal with 0x, e.g. 0xc0100000");
        }
        try {
            return Long.parseUnsignedLong(s.substring(2), 16);
        } catch (NumberFormatException e) {
            throw error(line, "address '" + s + "' is not hexadecimal");
        }
    }

    /**
     * The most characters a weight or a fraction is read from: BigDecimal's reading cost grows with the
     * digits, and no weight needs more than 13 digits before the point and 6 after it.
     */
    private static final int MAX_DECIMAL_CHARS = 40;
    /** Digits before the point of the largest weight, 2^40 (about 1.1 * 10^12). */
    private static final int WEIGHT_INTEGER_DIGITS = 13;

    /** {@code s} as a decimal number, or null where it is none or longer than {@link #MAX_DECIMAL_CHARS}. */
    private static BigDecimal decimal(String s) {
        if (s.length() > MAX_DECIMAL_CHARS) {
            return null;
        }
        try {
            return new BigDecimal(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A token as a message quotes it: whole if it could be a number, else its start and its length. */
    private static String quoted(String s) {
        return s.length() <= MAX_DECIMAL_CHARS ? "'" + s + "'"
                : "'" + s.substring(0, MAX_DECIMAL_CHARS) + "...' (" + s.length() + " characters)";
    }

    /** Digits before the point, from the precision and scale alone: comparing 1e999999999 with a bound would compute its power of ten. */
    private static long integerDigits(BigDecimal d) {
        return (long) d.precision() - d.scale();
    }

    /** A positive decimal weight, kept in millionths so that choices stay exact integer arithmetic. */
    long weight(String s, int line, String what) throws ScenarioException {
        BigDecimal d = decimal(s);
        if (d == null) {
            throw error(line, what + " " + quoted(s) + " is not a decimal number");
        }
        if (d.signum() <= 0) {
            throw error(line, what + " " + s + " must be above 0");
        }
        if (d.scale() > WEIGHT_DECIMALS) {
            throw error(line, what + " " + s + " has more than " + WEIGHT_DECIMALS + " decimals");
        }
        if (integerDigits(d) > WEIGHT_INTEGER_DIGITS) {
            throw error(line, what + " " + s + " is too large (weights are relative; use smaller numbers)");
        }
        BigDecimal scaled = d.movePointRight(WEIGHT_DECIMALS);
        if (scaled.compareTo(BigDecimal.valueOf(1L << 40)) > 0) {
            throw error(line, what + " " + s + " is too large (weights are relative; use smaller numbers)");
        }
        return scaled.longValueExact();
    }

    /** A busy fraction 0..1 in parts per million. */
    long fraction(String s, int line) throws ScenarioException {
        BigDecimal d = decimal(s);
        if (d == null) {
            throw error(line, "load " + quoted(s) + " is not a decimal fraction such as 0.85");
        }
        if (d.signum() < 0 || d.scale() > WEIGHT_DECIMALS || integerDigits(d) > 1 || d.compareTo(BigDecimal.ONE) > 0) {
            throw error(line, "load " + s + " must be a fraction from 0 to 1 with at most 6 decimals (busy share of"
                    + " each vCPU)");
        }
        return d.movePointRight(WEIGHT_DECIMALS).longValueExact();
    }

    void arity(String[] t, int n, int line, String expected) throws ScenarioException {
        if (t.length != n) {
            throw error(line, "expected '" + expected + "'; found " + (t.length - 1) + " argument"
                    + (t.length == 2 ? "" : "s"));
        }
    }

    ScenarioException error(int line, String message) {
        return new ScenarioException(location + ":" + line + ": " + message);
    }

    static long[] defaultRates() {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = SignalRates.SCALE;
        return r;
    }

    /** {@code ee=0|1}: MSR[EE] of the code. */
    boolean eeFlag(String value, int line) throws ScenarioException {
        return switch (value) {
            case "1" -> true;
            case "0" -> false;
            default -> throw error(line, "ee=" + value + " is not 0 or 1 (MSR[EE] of the code: 0 = external"
                    + " interrupts disabled, a PowerPC PMU interrupt waits until code with ee=1 runs)");
        };
    }
}
