package org.hyperprof.api.sample;

/**
 * Where samples went. For every buffer and every session: taken = delivered + lost + dropped + invalid.
 *
 * @param taken     samples the interrupt path took
 * @param delivered written into a shared buffer
 * @param lost      dropped because the buffer was full
 * @param dropped   dropped on purpose: the domain was idle or not in the session
 * @param invalid   dropped because the buffer was missing or its indices corrupted
 */
public record Accounting(long taken, long delivered, long lost, long dropped, long invalid) {

    /** Whether the books balance. */
    public boolean balanced() {
        return taken == delivered + lost + dropped + invalid;
    }

    /** The accounting line every report prints. */
    public String line() {
        return String.format("samples taken %d = delivered %d + lost %d + dropped %d + invalid %d%s", taken, delivered,
                lost, dropped, invalid, balanced() ? "" : "  ** DOES NOT BALANCE **");
    }

    public Accounting plus(Accounting o) {
        return new Accounting(taken + o.taken, delivered + o.delivered, lost + o.lost, dropped + o.dropped,
                invalid + o.invalid);
    }

    public static final Accounting ZERO = new Accounting(0, 0, 0, 0, 0);
}
