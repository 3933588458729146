package org.hyperprof.api.pmu;

import java.util.Arrays;

/**
 * Per-signal emission rates of a piece of code, in events per 1000 elapsed cycles (so an IPC of
 * 0.85 is 850 instructions). Immutable. Integer rates keep the simulation exact and
 * deterministic: a counter's fractional progress is kept as a residue in thousandths of an event.
 *
 * <p>The static helpers are the one arithmetic every model uses to count and to predict the
 * next overflow, so that all models agree with the ground truth to the event.
 */
public final class SignalRates {
    /** Fixed-point scale of a rate: rates are events per {@code SCALE} cycles. */
    public static final long SCALE = 1000;

    /** Nothing counts: halted time. */
    public static final SignalRates HALTED = new SignalRates(new long[Signal.COUNT]);

    private final long[] perKilocycle;

    private SignalRates(long[] perKilocycle) {
        this.perKilocycle = perKilocycle;
    }

    /** Rates from an array indexed by {@link Signal#ordinal()}; the array is copied. */
    public static SignalRates of(long[] perKilocycle) {
        if (perKilocycle.length != Signal.COUNT) {
            throw new IllegalArgumentException("expected " + Signal.COUNT + " rates, got " + perKilocycle.length);
        }
        for (int i = 0; i < perKilocycle.length; i++) {
            if (perKilocycle[i] < 0) {
                throw new IllegalArgumentException("rate of " + Signal.values()[i] + " is negative: " + perKilocycle[i]);
            }
        }
        return new SignalRates(perKilocycle.clone());
    }

    /** Rate of a signal in events per 1000 cycles. */
    public long perKilocycle(Signal signal) {
        return perKilocycle[signal.ordinal()];
    }

    /** Rate of a signal by ordinal, for hot loops. */
    public long perKilocycle(int signalOrdinal) {
        return perKilocycle[signalOrdinal];
    }

    /** A copy of the rates, indexed by signal ordinal. */
    public long[] toArray() {
        return perKilocycle.clone();
    }

    /**
     * Whole events a counter gains over {@code cycles} at {@code rate} events per 1000 cycles,
     * given its residue (thousandths of an event carried from earlier). Updates {@code residue[index]}.
     */
    public static long advance(long rate, long cycles, long[] residue, int index) {
        if (rate == 0 || cycles == 0) {
            return 0;
        }
        long milli = Math.addExact(Math.multiplyExact(rate, cycles), residue[index]);
        residue[index] = milli % SCALE;
        return milli / SCALE;
    }

    /**
     * The fewest cycles after which a counter at {@code rate} with {@code residue} has gained at
     * least {@code events} whole events; {@link Long#MAX_VALUE} if the rate is zero.
     */
    public static long cyclesFor(long events, long rate, long residue) {
        if (events <= 0) {
            return 0;
        }
        if (rate == 0) {
            return Long.MAX_VALUE;
        }
        long needMilli = Math.multiplyHigh(events, SCALE) != 0 ? Long.MAX_VALUE : events * SCALE - residue;
        if (needMilli <= 0) {
            return 0;
        }
        return (needMilli + rate - 1) / rate;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SignalRates && Arrays.equals(perKilocycle, ((SignalRates) o).perKilocycle);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(perKilocycle);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("SignalRates{");
        Signal[] all = Signal.values();
        for (int i = 0; i < perKilocycle.length; i++) {
            if (perKilocycle[i] != 0) {
                b.append(all[i]).append('=').append(perKilocycle[i]).append("/kc ");
            }
        }
        return b.append('}').toString();
    }
}
