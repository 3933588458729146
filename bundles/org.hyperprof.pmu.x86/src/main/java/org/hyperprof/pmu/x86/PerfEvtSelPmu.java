package org.hyperprof.pmu.x86;

import static org.hyperprof.pmu.x86.PerfEvtSelFields.BIT_31;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EVENT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_OS;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_UMASK_SHIFT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;

/**
 * The x86 models whose counters each have an event select in the P6 layout: Intel P6, Intel
 * architectural performance monitoring and AMD K7 onwards (pmu-facts sections 2, 4 and 5). Setup
 * clears every select but the bits the driver keeps and writes INT, USR, OS, the unit mask and the
 * event into it; EN starts the counter; the NMI handler takes a counter preloaded with
 * {@code -count} to have overflowed when its test bit (bit 31 unless the model says otherwise) is
 * clear, since these parts have no overflow flag the handler reads. The select fields are
 * {@link PerfEvtSelFields}.
 */
public abstract class PerfEvtSelPmu extends X86Pmu {
    protected PerfEvtSelPmu(int cpu, PmuModel model, int[] counterRegisters,
            int[] selects, boolean lvtpcAutoMask) {
        super(cpu, model, counterRegisters, selects, lvtpcAutoMask);
    }

    /** The bits of a select that setup keeps when it clears it. */
    protected abstract long keptOnClear();

    /** The largest event code the select holds. */
    protected int maxEventCode() {
        return (int) EVTSEL_EVENT;
    }

    /** The select bits that name event {@code code}. */
    protected long eventBits(int code) {
        return code;
    }

    /** The event a counter needs, for the message that refuses another (it goes on ", got ..."). */
    protected String eventWanted() {
        return String.format("an event with a code 0x00..0x%X", maxEventCode());
    }

    /** The counter bit the NMI handler tests. */
    protected long overflowTestBit() {
        return BIT_31;
    }

    @Override
    protected final int unitMaskBits() {
        return 8;
    }

    @Override
    protected String unitMaskField() {
        return "UMASK field";
    }

    @Override
    protected final String eventMisfit(EventDescriptor event) {
        if (event != null && event.code() >= 0 && event.code() <= maxEventCode()) {
            return null;
        }
        return "needs " + eventWanted() + ", got " + event;
    }

    @Override
    protected final void clearControls() {
        for (int select : controlRegisters()) {
            write(select, read(select) & keptOnClear());
        }
    }

    @Override
    protected final void program(int i, CounterConfig c) {
        write(counterRegisters()[i], -c.count());
        int select = controlRegisters()[i];
        long word = (read(select) & keptOnClear()) | EVTSEL_INT | (c.user() ? EVTSEL_USR : 0)
                | (c.kernel() ? EVTSEL_OS : 0) | (c.unitMask() << EVTSEL_UMASK_SHIFT) | eventBits(c.event().code());
        write(select, word);
    }

    @Override
    protected final long enableBit() {
        return EVTSEL_EN;
    }

    @Override
    protected final boolean overflowed(int i) {
        return (read(counterRegisters()[i]) & overflowTestBit()) == 0;
    }
}
