package org.hyperprof.pmu.x86;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;

/**
 * The x86 models whose counters each have an event select in the P6 layout: Intel P6, Intel
 * architectural performance monitoring and AMD K7 onwards (pmu-facts sections 2, 4 and 5). Setup
 * clears every select but the bits the driver keeps and writes INT, USR, OS, the unit mask and the
 * event into it; EN starts the counter; the NMI handler takes a counter preloaded with
 * {@code -count} to have overflowed when its test bit (bit 31 unless the model says otherwise) is
 * clear, since these parts have no overflow flag the handler reads.
 */
public abstract class PerfEvtSelPmu extends X86Pmu {
    // The select fields the driver writes, where all three vendors' layouts agree.
    private static final long EVENT = 0xFFL;
    private static final int UMASK_SHIFT = 8;
    private static final long USR = 1L << 16;
    private static final long OS = 1L << 17;
    private static final long INT = 1L << 20;
    private static final long EN = 1L << 22;
    private static final long BIT_31 = 1L << 31;

    protected PerfEvtSelPmu(int cpu, PmuModel model, int[] counterRegisters,
            int[] selects, boolean lvtpcAutoMask) {
        super(cpu, model, counterRegisters, selects, lvtpcAutoMask);
    }

    /** The bits of a select that setup keeps when it clears it. */
    protected abstract long keptOnClear();

    /** The largest event code the select holds. */
    protected int maxEventCode() {
        return (int) EVENT;
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
        long word = (read(select) & keptOnClear()) | INT | (c.user() ? USR : 0) | (c.kernel() ? OS : 0)
                | (c.unitMask() << UMASK_SHIFT) | eventBits(c.event().code());
        write(select, word);
    }

    @Override
    protected final long enableBit() {
        return EN;
    }

    @Override
    protected final boolean overflowed(int i) {
        return (read(counterRegisters()[i]) & overflowTestBit()) == 0;
    }
}
