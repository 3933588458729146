package org.hyperprof.api.pmu;

/**
 * One event of a model's event table (OProfile's {@code events} file, plus the signal it counts
 * in the simulated machine).
 *
 * @param name        OProfile's event name, e.g. {@code CPU_CLK_UNHALTED}
 * @param code        the event number written into the event select (for P4 and PPC970 an
 *                    OProfile table index, as OProfile defines it)
 * @param counterMask bit {@code i} set when the event may use counter {@code i}
 * @param minimumCount the smallest sampling period OProfile allows for the event
 * @param unitMask    the event's unit mask
 * @param signal      the architecture-neutral signal the event counts; null for an event code
 *                    the simulated machine never emits (such a counter never advances)
 * @param description OProfile's one-line description
 */
public record EventDescriptor(String name, int code, long counterMask, long minimumCount, UnitMask unitMask,
        Signal signal, String description) {

    /** Whether the event may be counted on counter {@code counter}. */
    public boolean canUseCounter(int counter) {
        return counter >= 0 && counter < 64 && (counterMask & (1L << counter)) != 0;
    }

    /** The counters the event may use, as OProfile writes them: {@code 0,1}. */
    public String countersText() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            if ((counterMask & (1L << i)) != 0) {
                if (b.length() > 0) {
                    b.append(',');
                }
                b.append(i);
            }
        }
        return b.toString();
    }
}
