package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdRegisters.COUNTER_MASK;
import static org.hyperprof.pmu.amd.AmdRegisters.COUNTER_WRAP;
import static org.hyperprof.pmu.amd.AmdRegisters.DRIVER_LFSR_SEED;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_EVENT_HIGH;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_EVENT_HIGH_SHIFT;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_KEPT_ON_CLEAR;
import static org.hyperprof.pmu.amd.AmdRegisters.F15H_PERF_CTL0;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_CAPS_FETCHSAM;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_CAPS_OPCNT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_CAPS_OPSAM;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_CAPS_RDWROPCNT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_COUNT_MASK;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_DC_LINAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_DC_PHYSAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_EILVT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_BLOCK;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_CNT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_CNT_SHIFT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_CTL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_CTL_STORED;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_EN;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_LINAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_MARKER;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_MAX_CNT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_PHYSAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_PHY_ADDR_VALID;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_RAND_EN;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_VAL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_BLOCK;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_CNT_CTL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_CTL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_CTL_BASE_STORED;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_CUR_CNT_SHIFT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_DATA1;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_DATA2;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_DATA3;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_EN;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_MARKER;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_MAX_CNT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_MAX_CNT_CLAMP_HIGH;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_MAX_CNT_CLAMP_LOW;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_RIP;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_VAL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_RANDOM_MASK;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_RANDOM_MAXCNT_OFFSET;
import static org.hyperprof.pmu.amd.AmdRegisters.LEGACY_COUNTERS;
import static org.hyperprof.pmu.amd.AmdRegisters.LVTPC;
import static org.hyperprof.pmu.amd.AmdRegisters.PERFCTR0;
import static org.hyperprof.pmu.amd.AmdRegisters.PERFEVTSEL0;
import static org.hyperprof.pmu.amd.AmdRegisters.hex;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EVENT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_OS;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;

import java.util.Arrays;

import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.x86.LocalApicLvtpc;
import org.hyperprof.pmu.x86.PerfEvtSelPmu;

/**
 * The AMD performance-monitoring registers of one physical CPU (K7, K8, family 10h, family 15h),
 * with the driver steps of OProfile's AMD driver as Xenoprof runs them (the x86 sequence,
 * {@link PerfEvtSelPmu}; pmu-facts sections 4.1-4.5, xenoprof-facts sections 6.2, 6.3 and 6.7).
 *
 * <h2>Core counters</h2>
 * Four (family 15h: six) 48-bit counters. A WRMSR writes all 48 bits (no sign extension). Each
 * select's EN enables its own counter only. A counter advances by the signal its select's event
 * code maps to in the model's event table, when EN is set and its USR (CPL 1-3) or OS (CPL 0) bit
 * admits the current CPL. The E, PC, INV and CntMask fields are stored and read back but do not
 * change counting (the simulated machine emits event counts, not per-cycle conditions); so are
 * the family 10h GuestOnly/HostOnly bits, because the simulation does not tell an SVM guest from
 * its host (the driver always clears them). A counter that wraps past 2^48 with INT set raises the
 * PMI through LVTPC. There is no overflow status register: the handler's rule is "bit 31 clear"
 * with a {@code -count} preload. The APIC does not auto-mask LVTPC when it delivers the PMI, and
 * the handler does not unmask it.
 *
 * <h2>IBS (family 10h)</h2>
 * The fetch counter counts {@link Signal#INSTRUCTIONS} (the simulated machine emits no fetch
 * signal; one fetch per instruction is the approximation), the op counter counts
 * {@link Signal#CYCLES}, or {@link Signal#UOPS} with IbsOpCntCtl (dispatched ops; the machine
 * emits retired micro-ops only). IBS counts at every CPL. When a count reaches its max count
 * times 16, the sample is valid at once (no tag-to-retire latency is simulated), the counter
 * stops, the sampled address is the latest program counter given to
 * {@link #setProgramCounter(long)}, and the IBS interrupt is raised through the extended APIC LVT
 * entry 0x510, which Xen's boot-time IBS setup routes to NMI. The simulation has no data-cache
 * detail, so IbsOpData1-3 and the DC addresses of a sample read 0 (their valid bits clear) and
 * IbsFetchPhysAd reads 0 with IbsPhyAddrValid clear.
 */
final class AmdPmu extends PerfEvtSelPmu {
    /** Hardware seed of the IbsRandEn random source (any non-zero value: the part's own). */
    private static final int FETCH_RANDOM_SEED = 0xACE1;

    private final AmdFamily family;
    private final int counters;
    /** Event code to the Signal ordinal it counts, -1 for a code the table lacks; shared, read-only. */
    private final int[] signalByCode;
    /** IBS capability bits of this CPU (CPUID 0x8000001B EAX); 0 without IBS. */
    private final long ibsCaps;

    // Architectural state. Power-on: counters and selects zero, LVT entries masked.
    private final long[] counter;
    private final long[] select;

    // Simulation state derived from the registers.
    /** Signal ordinal each counter's select names, or -1. */
    private final int[] signal;
    /** Thousandths of an event carried between advances: counters 0..n-1, then IBS fetch, IBS op. */
    private final long[] residue;
    private final int fetchSlot;
    private final int opSlot;
    /** The latest program counter the simulation reported, latched into IBS samples. */
    private long programCounter;

    // IBS registers.
    private long ibsLvt;
    /** IbsFetchCtl without its count field. */
    private long fetchCtl;
    /** The running fetch count, 20 bits; IbsFetchCnt shows bits 19:4. */
    private long fetchCount;
    private long fetchLinAd;
    private long fetchPhysAd;
    /** IbsOpCtl without its current-count field. */
    private long opCtl;
    /** The running op count, 20 bits (IbsOpCurCnt where the part can read and write it). */
    private long opCount;
    private long opRip;
    private long opData1;
    private long opData2;
    private long opData3;
    private long dcLinAd;
    private long dcPhysAd;
    /** An IBS sample became valid and its NMI has not been taken yet. */
    private boolean ibsPending;
    private final Lfsr16 fetchRandom = new Lfsr16(FETCH_RANDOM_SEED);

    // IBS driver state (Xen's ibs_config and the start-time op control word).
    private boolean ibsConfigured;
    private boolean cfgFetch;
    private boolean cfgOp;
    private long cfgMaxCntFetch;
    private long cfgMaxCntOp;
    private boolean cfgRandomize;
    private boolean cfgDispatchedOps;
    private boolean fetchArmed;
    private boolean opArmed;
    /** IbsOpCtl as the driver computed it at start, before each arm's randomisation. */
    private long opCtlBase;
    /** Xenoprof's op-count randomiser (seed 0xF00D), advanced on every (re)arm. */
    private final Lfsr16 driverLfsr = new Lfsr16(DRIVER_LFSR_SEED);

    AmdPmu(int cpu, PmuModel model, AmdFamily family, int[] signalByCode, long ibsCaps) {
        // The AMD APIC never masks LVTPC when it delivers a PMI (pmu-facts 1.1).
        super(cpu, model, registers(family.counters(), family::counterRegister),
                registers(family.counters(), family::controlRegister), false);
        this.family = family;
        this.counters = family.counters();
        this.signalByCode = signalByCode;
        this.ibsCaps = family.ibs() ? ibsCaps : 0;
        this.counter = new long[counters];
        this.select = new long[counters];
        this.signal = new int[counters];
        Arrays.fill(signal, -1);
        this.residue = new long[counters + 2];
        this.fetchSlot = counters;
        this.opSlot = counters + 1;
        // Xen's boot-time IBS setup (ibs_init) routes the IBS extended LVT entry to NMI on every
        // CPU before any session; a part without IBS has no such entry.
        this.ibsLvt = family.ibs() ? LocalApicLvtpc.NMI : LocalApicLvtpc.POWER_ON;
    }

    /** The IBS capability bits of this CPU (CPUID 0x8000001B EAX), 0 for a part without IBS. */
    long ibsCapabilities() {
        return ibsCaps;
    }

    /**
     * The program counter of the code that runs from now on, latched as the linear address or RIP
     * of the next IBS sample; until the simulation has called it, IBS samples carry address 0.
     */
    @Override
    public void setProgramCounter(long pc) {
        programCounter = pc;
    }

    // ------------------------------------------------------------------------------ registers

    /** Counter index of a counter MSR (legacy or family 15h), or -1. */
    private int counterIndex(int register) {
        return index(register, PERFCTR0, 1);
    }

    /** Counter index of an event-select MSR (legacy or family 15h), or -1. */
    private int controlIndex(int register) {
        return index(register, PERFEVTSEL0, 0);
    }

    /**
     * Counter index of a register of one kind, or -1: legacy registers are consecutive from
     * {@code legacyBase}; family 15h interleaves controls (even offsets) and counters (odd) from PERF_CTL0.
     */
    private int index(int register, int legacyBase, int f15hParity) {
        int legacy = register - legacyBase;
        if (legacy >= 0 && legacy < LEGACY_COUNTERS) {
            return legacy;
        }
        if (family.f15hMsrs()) {
            int d = register - F15H_PERF_CTL0;
            if (d >= 0 && d < 2 * counters && (d & 1) == f15hParity) {
                return d >> 1;
            }
        }
        return -1;
    }

    @Override
    public long read(int register) {
        int i = counterIndex(register);
        if (i >= 0) {
            return counter[i];
        }
        i = controlIndex(register);
        if (i >= 0) {
            return select[i];
        }
        if (register == LVTPC) {
            return lvtpc.read();
        }
        if (family.ibs()) {
            switch (register) {
                case IBS_FETCH_CTL:
                    return fetchCtl | (((fetchCount >>> 4) << IBS_FETCH_CNT_SHIFT) & IBS_FETCH_CNT);
                case IBS_FETCH_LINAD:
                    return fetchLinAd;
                case IBS_FETCH_PHYSAD:
                    return fetchPhysAd;
                case IBS_OP_CTL:
                    return opCtl | (readWriteOpCount() ? opCount << IBS_OP_CUR_CNT_SHIFT : 0);
                case IBS_OP_RIP:
                    return opRip;
                case IBS_OP_DATA1:
                    return opData1;
                case IBS_OP_DATA2:
                    return opData2;
                case IBS_OP_DATA3:
                    return opData3;
                case IBS_DC_LINAD:
                    return dcLinAd;
                case IBS_DC_PHYSAD:
                    return dcPhysAd;
                case IBS_EILVT:
                    return ibsLvt;
                default:
                    break;
            }
        }
        throw unknownRegister(register);
    }

    @Override
    public void write(int register, long value) {
        int i = counterIndex(register);
        if (i >= 0) {
            // WRMSR writes all 48 bits, no sign extension; bits 63:48 are reserved and dropped.
            counter[i] = value & COUNTER_MASK;
            return;
        }
        i = controlIndex(register);
        if (i >= 0) {
            writeSelect(i, value);
            return;
        }
        if (register == LVTPC) {
            lvtpc.write(value);
            return;
        }
        if (family.ibs()) {
            switch (register) {
                case IBS_FETCH_CTL:
                    writeFetchCtl(value);
                    return;
                case IBS_FETCH_LINAD:
                    fetchLinAd = value;
                    return;
                case IBS_FETCH_PHYSAD:
                    fetchPhysAd = value;
                    return;
                case IBS_OP_CTL:
                    writeOpCtl(value);
                    return;
                case IBS_OP_RIP:
                    opRip = value;
                    return;
                case IBS_OP_DATA1:
                    opData1 = value;
                    return;
                case IBS_OP_DATA2:
                    opData2 = value;
                    return;
                case IBS_OP_DATA3:
                    opData3 = value;
                    return;
                case IBS_DC_LINAD:
                    dcLinAd = value;
                    return;
                case IBS_DC_PHYSAD:
                    dcPhysAd = value;
                    return;
                case IBS_EILVT:
                    ibsLvt = value & LocalApicLvtpc.WRITABLE;
                    return;
                default:
                    break;
            }
        }
        throw unknownRegister(register);
    }

    private void writeSelect(int index, long value) {
        // Reserved bits are dropped rather than faulting, as the P6 model does.
        long word = value & family.selectWritable();
        select[index] = word;
        int code = (int) (word & EVTSEL_EVENT);
        if (family.extendedEventSelect()) {
            code |= (int) ((word & EVTSEL_EVENT_HIGH) >>> EVTSEL_EVENT_HIGH_SHIFT) << 8;
        }
        int s = code < signalByCode.length ? signalByCode[code] : -1;
        if (s != signal[index]) {
            // Progress towards the next event of the old signal means nothing for the new one.
            signal[index] = s;
            residue[index] = 0;
        }
    }

    private void writeFetchCtl(long value) {
        boolean wasRunning = fetchRunning();
        fetchCtl = value & IBS_FETCH_CTL_STORED & ~IBS_FETCH_CNT;
        fetchCount = ((value & IBS_FETCH_CNT) >>> IBS_FETCH_CNT_SHIFT) << 4;
        if (!wasRunning && fetchRunning()) {
            residue[fetchSlot] = 0;
            if ((fetchCtl & IBS_FETCH_RAND_EN) != 0) {
                // IbsRandEn: the hardware randomises bits 3:0 of the fetch counter when it starts.
                fetchCount |= fetchRandom.next() & 0xF;
            }
        }
    }

    private void writeOpCtl(long value) {
        boolean wasRunning = opRunning();
        int oldSignal = opSignal();
        long stored = IBS_OP_CTL_BASE_STORED | ((ibsCaps & IBS_CAPS_OPCNT) != 0 ? IBS_OP_CNT_CTL : 0);
        opCtl = value & stored;
        // Without RdWrOpCnt the current count is internal: a write restarts it from 0.
        opCount = readWriteOpCount() ? (value >>> IBS_OP_CUR_CNT_SHIFT) & IBS_COUNT_MASK : 0;
        if ((!wasRunning && opRunning()) || oldSignal != opSignal()) {
            residue[opSlot] = 0;
        }
    }

    private boolean readWriteOpCount() {
        return (ibsCaps & IBS_CAPS_RDWROPCNT) != 0;
    }

    private boolean fetchRunning() {
        return (fetchCtl & (IBS_FETCH_EN | IBS_FETCH_VAL)) == IBS_FETCH_EN;
    }

    private boolean opRunning() {
        return (opCtl & (IBS_OP_EN | IBS_OP_VAL)) == IBS_OP_EN;
    }

    /** The signal the op counter counts: dispatched ops (as retired micro-ops) or clock cycles. */
    private int opSignal() {
        return (opCtl & IBS_OP_CNT_CTL) != 0 ? Signal.UOPS.ordinal() : Signal.CYCLES.ordinal();
    }

    /** Fetches still to count before a sample is taken (at least one: a sample follows a fetch). */
    private long fetchesToSample() {
        return Math.max(1, ((fetchCtl & IBS_FETCH_MAX_CNT) << 4) - fetchCount);
    }

    private long opsToSample() {
        return Math.max(1, ((opCtl & IBS_OP_MAX_CNT) << 4) - opCount);
    }

    // ------------------------------------------------------------------------------ driver steps

    @Override
    protected String countersName() {
        return "the " + family.displayName() + " counters";
    }

    @Override
    protected String counterRange() {
        return "the " + family.displayName() + " has counters 0.." + (counters - 1);
    }

    @Override
    protected String preloadRule() {
        return "overflow is detected as bit 31 clearing in a counter preloaded with -count";
    }

    @Override
    protected String unitMaskField() {
        return "UnitMask field";
    }

    @Override
    protected int maxEventCode() {
        return family.maxEventCode();
    }

    @Override
    protected String eventWanted() {
        return String.format("an event with a code 0x00..0x%X (the %s event select)", family.maxEventCode(),
                family.displayName());
    }

    /**
     * What OProfile keeps when it clears a select (of those stored: bit 21). Host/Guest-only stay 0,
     * so a configured counter counts in host and guest alike.
     */
    @Override
    protected long keptOnClear() {
        return EVTSEL_KEPT_ON_CLEAR;
    }

    /** EventSelect[7:0] in bits 7:0; family 10h on: EventSelect[11:8] in bits 35:32. */
    @Override
    protected long eventBits(int code) {
        return (code & EVTSEL_EVENT) | ((long) (code >>> 8) << EVTSEL_EVENT_HIGH_SHIFT);
    }

    /** Each select has its own EN, set on every configured counter; then IBS starts. */
    @Override
    protected void enableCounters() {
        super.enableCounters();
        startIbs();
    }

    /** Xenoprof's start of IBS: fetch and op control words from the stored IBS configuration. */
    private void startIbs() {
        fetchArmed = false;
        opArmed = false;
        if (ibsCaps == 0 || !ibsConfigured) {
            return;
        }
        if (cfgFetch && (ibsCaps & IBS_CAPS_FETCHSAM) != 0) {
            long ctl = ((cfgMaxCntFetch >> 4) & IBS_FETCH_MAX_CNT) | (cfgRandomize ? IBS_FETCH_RAND_EN : 0)
                    | IBS_FETCH_EN;
            write(IBS_FETCH_CTL, ctl);
            fetchArmed = true;
        }
        if (cfgOp && (ibsCaps & IBS_CAPS_OPSAM) != 0) {
            long maxCnt = cfgMaxCntOp >> 4;
            if (!readWriteOpCount()) {
                // The randomisation adds -128..+127 to the max count itself: keep it inside 16 bits.
                maxCnt = Math.min(Math.max(maxCnt, IBS_OP_MAX_CNT_CLAMP_LOW), IBS_OP_MAX_CNT_CLAMP_HIGH);
            } else {
                // The randomisation starts the count at 0..4095: raise the max by half that range.
                maxCnt = Math.min(maxCnt + IBS_RANDOM_MAXCNT_OFFSET, IBS_OP_MAX_CNT);
            }
            long base = maxCnt | IBS_OP_EN;
            if (cfgDispatchedOps && (ibsCaps & IBS_CAPS_OPCNT) != 0) {
                base |= IBS_OP_CNT_CTL;
            }
            opCtlBase = base;
            write(IBS_OP_CTL, randomizedOpCtl());
            opArmed = true;
        }
    }

    /** The op control word for one (re)arm: the start-time word with the LFSR's next randomisation. */
    private long randomizedOpCtl() {
        int random = driverLfsr.next();
        if (!readWriteOpCount()) {
            // Bits 11:4 of the LFSR as a signed byte, added to the max count.
            return opCtlBase + (byte) (random >>> 4);
        }
        // The low 12 bits of the LFSR become the starting current count.
        return opCtlBase | ((random & IBS_RANDOM_MASK) << IBS_OP_CUR_CNT_SHIFT);
    }

    @Override
    protected void disableCounters() {
        // AMD clears EN on every counter, configured or not.
        for (int i = 0; i < counters; i++) {
            write(controlRegisters()[i], read(controlRegisters()[i]) & ~EVTSEL_EN);
        }
        if (family.ibs()) {
            write(IBS_FETCH_CTL, 0);
            write(IBS_OP_CTL, 0);
            fetchArmed = false;
            opArmed = false;
        }
    }

    @Override
    public void setupIbs(IbsConfig config) {
        if (!family.ibs()) {
            throw new IllegalStateException(model().cpuType() + " has no Instruction-Based Sampling (IBS)");
        }
        if (config == null) {
            throw new IllegalArgumentException("CPU " + cpu + ": IBS configuration is null; give an IbsConfig"
                    + " (opEnabled, fetchEnabled, maxCntFetch, maxCntOp, randomize, dispatchedOps)");
        }
        if (config.fetchEnabled() && (config.maxCntFetch() < 16 || config.maxCntFetch() > 0xF_FFFFL)) {
            throw new IllegalArgumentException("CPU " + cpu + ": IBS fetch period " + config.maxCntFetch()
                    + " is out of range 16..1048575: IbsFetchMaxCnt keeps period >> 4 in 16 bits");
        }
        if (config.opEnabled()) {
            if (config.maxCntOp() < 0) {
                throw new IllegalArgumentException("CPU " + cpu + ": IBS op period " + config.maxCntOp()
                        + " is negative; give a period of ops or cycles");
            }
            if (readWriteOpCount() && (config.maxCntOp() < 16 || config.maxCntOp() > 0xF_FFFFL)) {
                throw new IllegalArgumentException("CPU " + cpu + ": IBS op period " + config.maxCntOp()
                        + " is out of range 16..1048575: IbsOpMaxCnt keeps period >> 4 in 16 bits");
            }
        }
        cfgFetch = config.fetchEnabled();
        cfgOp = config.opEnabled();
        cfgMaxCntFetch = config.maxCntFetch();
        cfgMaxCntOp = config.maxCntOp();
        cfgRandomize = config.randomize();
        cfgDispatchedOps = config.dispatchedOps();
        ibsConfigured = true;
    }

    // ------------------------------------------------------------------------------ NMI handler

    /** No LVTPC unmask: the AMD APIC never masked it. */
    @Override
    protected void endOfHandler(long overflowed) {
    }

    @Override
    public int checkIbs(long[] entries) {
        boolean fetch = fetchArmed && (fetchCtl & IBS_FETCH_VAL) != 0;
        boolean op = opArmed && (opCtl & IBS_OP_VAL) != 0;
        int needed = (fetch ? IBS_FETCH_BLOCK : 0) + (op ? IBS_OP_BLOCK : 0);
        if (needed == 0) {
            return 0;
        }
        if (entries == null || entries.length < needed) {
            throw new IllegalArgumentException("CPU " + cpu + ": the IBS block needs " + needed
                    + " entries but the array holds " + (entries == null ? "none (null)" : entries.length)
                    + "; pass an array of at least " + (IBS_FETCH_BLOCK + IBS_OP_BLOCK) + " entries");
        }
        int k = 0;
        if (fetch) {
            long ctl = read(IBS_FETCH_CTL);
            entries[k++] = IBS_FETCH_MARKER;
            entries[k++] = fetchLinAd;
            k = halves(entries, k, fetchLinAd);
            k = halves(entries, k, ctl);
            k = halves(entries, k, fetchPhysAd);
            // Re-arm: clear valid and the count, keep (set) enable.
            write(IBS_FETCH_CTL, (ctl & ~(IBS_FETCH_VAL | IBS_FETCH_CNT)) | IBS_FETCH_EN);
        }
        if (op) {
            entries[k++] = IBS_OP_MARKER;
            entries[k++] = opRip;
            k = halves(entries, k, opRip);
            k = halves(entries, k, opData1);
            k = halves(entries, k, opData2);
            k = halves(entries, k, opData3);
            k = halves(entries, k, dcLinAd);
            k = halves(entries, k, dcPhysAd);
            // Re-arm with a fresh randomisation of the start-time control word.
            write(IBS_OP_CTL, randomizedOpCtl());
        }
        return k;
    }

    /** A 64-bit register as Xen logs it: two entries, low 32 bits first. */
    private static int halves(long[] entries, int k, long value) {
        entries[k] = value & 0xFFFF_FFFFL;
        entries[k + 1] = value >>> 32;
        return k + 2;
    }

    // ------------------------------------------------------------------------------ counting

    @Override
    protected long cyclesUntilNextOverflow(SignalRates rates, int cpl) {
        long soonest = Long.MAX_VALUE;
        for (int i = 0; i < counters; i++) {
            if (countsAt(i, cpl)) {
                long rate = rates.perKilocycle(signal[i]);
                if (rate > 0) {
                    soonest = Math.min(soonest, SignalRates.cyclesFor(COUNTER_WRAP - counter[i], rate, residue[i]));
                }
            }
        }
        if (fetchRunning()) {
            long rate = rates.perKilocycle(Signal.INSTRUCTIONS.ordinal());
            if (rate > 0) {
                soonest = Math.min(soonest, SignalRates.cyclesFor(fetchesToSample(), rate, residue[fetchSlot]));
            }
        }
        if (opRunning()) {
            long rate = rates.perKilocycle(opSignal());
            if (rate > 0) {
                soonest = Math.min(soonest, SignalRates.cyclesFor(opsToSample(), rate, residue[opSlot]));
            }
        }
        return soonest;
    }

    @Override
    protected void advanceCounters(long cycles, SignalRates rates, int cpl) {
        for (int i = 0; i < counters; i++) {
            if (countsAt(i, cpl)) {
                long value = counter[i] + SignalRates.advance(rates.perKilocycle(signal[i]), cycles, residue, i);
                if (value >= COUNTER_WRAP && (select[i] & EVTSEL_INT) != 0) {
                    // Wrapped past 0xFFFF_FFFF_FFFF; no freeze, the counter keeps counting.
                    raisePmi();
                }
                counter[i] = value & COUNTER_MASK;
            }
        }
        if (fetchRunning()) {
            long gained = SignalRates.advance(rates.perKilocycle(Signal.INSTRUCTIONS.ordinal()), cycles, residue,
                    fetchSlot);
            if (gained >= fetchesToSample()) {
                fetchSampled();
            } else {
                fetchCount += gained;
            }
        }
        if (opRunning()) {
            long gained = SignalRates.advance(rates.perKilocycle(opSignal()), cycles, residue, opSlot);
            if (gained >= opsToSample()) {
                opSampled();
            } else {
                opCount += gained;
            }
        }
    }

    /** The fetch counter reached its max count: latch the sample, stop counting, raise the IBS NMI. */
    private void fetchSampled() {
        fetchCount = ((fetchCtl & IBS_FETCH_MAX_CNT) << 4) & IBS_COUNT_MASK;
        fetchCtl = (fetchCtl | IBS_FETCH_VAL) & ~IBS_FETCH_PHY_ADDR_VALID;
        fetchLinAd = programCounter;
        fetchPhysAd = 0;
        residue[fetchSlot] = 0;
        ibsPending = true;
    }

    /** The op counter reached its max count: the tagged op's sample is valid at once. */
    private void opSampled() {
        opCount = ((opCtl & IBS_OP_MAX_CNT) << 4) & IBS_COUNT_MASK;
        opCtl |= IBS_OP_VAL;
        opRip = programCounter;
        opData1 = 0;
        opData2 = 0;
        opData3 = 0;
        dcLinAd = 0;
        dcPhysAd = 0;
        residue[opSlot] = 0;
        ibsPending = true;
    }

    /** Setup restarts the counter: the fraction of an event it carried goes too. */
    @Override
    protected void startAfresh(int i) {
        residue[i] = 0;
    }

    /** Counter {@code i} counts at {@code cpl} if its own EN is set, its USR/OS bit admits the CPL and its event has a signal. */
    private boolean countsAt(int i, int cpl) {
        long privilege = cpl == 0 ? EVTSEL_OS : EVTSEL_USR;
        return (select[i] & EVTSEL_EN) != 0 && (select[i] & privilege) != 0 && signal[i] >= 0;
    }

    // ------------------------------------------------------------------------------ interrupt

    @Override
    public boolean interruptPending() {
        return super.interruptPending() || (ibsPending && LocalApicLvtpc.deliverable(ibsLvt));
    }

    @Override
    protected void takeInterrupt() {
        // One NMI serves both sources; the AMD APIC does not mask LVTPC on delivery.
        if (lvtpc.deliverable()) {
            super.takeInterrupt();
        }
        if (LocalApicLvtpc.deliverable(ibsLvt)) {
            ibsPending = false;
        }
    }

    private IllegalArgumentException unknownRegister(int register) {
        return new IllegalArgumentException(hex(register) + " is not a " + family.displayName() + " ("
                + model().cpuType() + ") performance-monitoring register; the part has " + family.registersText());
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(family.displayName()).append(" PMU cpu ").append(cpu).append(" [");
        for (int i = 0; i < counters; i++) {
            b.append(String.format("ctr%d=0x%012x sel%d=0x%x ", i, counter[i], i, select[i]));
        }
        b.append(String.format("LVTPC=0x%05x", lvtpc.read()));
        if (family.ibs()) {
            b.append(String.format(" IbsFetchCtl=0x%x IbsOpCtl=0x%x", read(IBS_FETCH_CTL), read(IBS_OP_CTL)));
        }
        return b.append(pmiPending() ? " PMI pending" : "").append(ibsPending ? " IBS NMI pending" : "").append(']')
                .toString();
    }
}
