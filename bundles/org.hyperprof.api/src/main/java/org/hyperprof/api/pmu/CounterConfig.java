package org.hyperprof.api.pmu;

/**
 * One counter's configuration after the model checked it: Xenoprof's {@code xenoprof_counter}
 * (ind, count, enabled, event, kernel, user, unit_mask), plus the event it names.
 *
 * @param counter  the counter index ({@code ind})
 * @param event    the event, from the model's table
 * @param count    the sampling period: the counter is preloaded with {@code -count}
 * @param unitMask the unit mask written into the event select
 * @param kernel   count at CPL 0 (OS)
 * @param user     count at CPL 1-3 (USR)
 */
public record CounterConfig(int counter, EventDescriptor event, long count, long unitMask, boolean kernel,
        boolean user) {

    /** OProfile's header wording: {@code CPU_CLK_UNHALTED events (...) with a unit mask of 0x00 ... count 100000}. */
    public String describe() {
        return String.format("Counted %s events (%s) with a unit mask of 0x%02x (%s) count %d", event.name(),
                event.description(), unitMask, unitMask == 0 ? "No unit mask" : "as configured", count);
    }
}
