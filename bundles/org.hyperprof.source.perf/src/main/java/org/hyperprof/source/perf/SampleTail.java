package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfFormat.*;

import java.nio.ByteBuffer;

/**
 * The fields a SAMPLE holds after its callchain (RAW to WEIGHT_STRUCT), walked in the order, with
 * the sizes and the checks of perf 6.1's {@code evsel__parse_sample}. perf refuses a sample whose
 * field does not fit in the record, or whose user stack says more of it is used than it holds,
 * and with that sample the whole report ({@code Can't parse sample}); it reads PHYS_ADDR, CGROUP,
 * DATA_PAGE_SIZE and CODE_PAGE_SIZE without a check, so a record too short for them is taken.
 * The reader uses none of these values: the walk only says whether perf takes the sample. One
 * walker per reader; it keeps what its last walk found.
 */
final class SampleTail {

    /** The most BRANCH_STACK entries whose size perf can compute (it refuses more). */
    private static final long MAX_BRANCH_NR = Long.divideUnsigned(-1L, BRANCH_ENTRY_SIZE);

    /** What the last walk refused, as the invalid-sample note names it; null when perf takes the sample. */
    String refused;
    /** The last walk refused a user stack whose used size (dyn_size) exceeds its size: not a field too short. */
    boolean stackOverused;
    /** The unchecked field the last walk found past the record's end (perf reads on and keeps the sample); or null. */
    String pastEnd;
    /** Bytes of user stack the last walk's sample holds in use (STACK_USER's dyn_size; 0 without one). */
    long userStackUsed;

    /** Where the walk is: bytes from the start of the buffer (a long: the unchecked fields may pass the end). */
    private long at;
    private int end;
    private int size;

    /**
     * Walks the fields after the callchain of a sample of {@code a}, from {@code q} to the record's
     * end {@code end}; {@code size} is the record's size, perf's bound for any one field.
     *
     * @return whether perf takes the sample
     */
    boolean walk(ByteBuffer b, int q, int end, int size, EventAttr a) {
        refused = null;
        pastEnd = null;
        stackOverused = false;
        userStackUsed = 0;
        this.at = q;
        this.end = end;
        this.size = size;
        long type = a.afterCallchain;
        if ((type & S_RAW) != 0) {
            // A u32 size, then the data: perf steps over the size's 4 bytes only (with them the kernel pads the data to 8).
            if (!fits(8)) {
                return refuse("its RAW size", -1);
            }
            long raw = Integer.toUnsignedLong(b.getInt((int) at));
            at += 4;
            if (!skip(raw)) {
                return refuse("its RAW data", raw);
            }
        }
        if ((type & S_BRANCH_STACK) != 0 && !branchStack(b, a)) {
            return false;
        }
        if ((type & S_REGS_USER) != 0 && !registers(b, a.userRegsSize, "REGS_USER")) {
            return false;
        }
        if ((type & S_STACK_USER) != 0 && !userStack(b)) {
            return false;
        }
        if ((type & (S_WEIGHT | S_WEIGHT_STRUCT)) != 0 && !skip(8)) {
            return refuse((type & S_WEIGHT_STRUCT) != 0 ? "its WEIGHT_STRUCT" : "its WEIGHT", 8);
        }
        if ((type & S_DATA_SRC) != 0 && !skip(8)) {
            return refuse("its DATA_SRC", 8);
        }
        if ((type & S_TRANSACTION) != 0 && !skip(8)) {
            return refuse("its TRANSACTION", 8);
        }
        if ((type & S_REGS_INTR) != 0 && !registers(b, a.intrRegsSize, "REGS_INTR")) {
            return false;
        }
        unchecked(type, S_PHYS_ADDR, "PHYS_ADDR");
        unchecked(type, S_CGROUP, "CGROUP");
        unchecked(type, S_DATA_PAGE_SIZE, "DATA_PAGE_SIZE");
        unchecked(type, S_CODE_PAGE_SIZE, "CODE_PAGE_SIZE");
        if ((type & S_AUX) != 0) {
            if (!fits(8)) {
                return refuse("its AUX size", -1);
            }
            long aux = b.getLong((int) at);
            at += 8;
            if (!skip(aux)) {
                return refuse("its AUX data", aux);
            }
        }
        return true;
    }

    /** u64 nr, hw_idx when the event asks for it, nr entries of 24 bytes. */
    private boolean branchStack(ByteBuffer b, EventAttr a) {
        if (!fits(8)) {
            return refuse("its branch stack length", -1);
        }
        long nr = b.getLong((int) at);
        at += 8;
        if (Long.compareUnsigned(nr, MAX_BRANCH_NR) > 0) {
            return refuse("a branch stack of " + Long.toUnsignedString(nr) + " entries", -1);
        }
        long bytes = nr * BRANCH_ENTRY_SIZE + (a.branchHwIndex ? 8 : 0);
        if (!skip(bytes)) {
            return refuse("a branch stack of " + nr + " entries" + (a.branchHwIndex ? " and its hw_idx" : ""), bytes);
        }
        return true;
    }

    /** u64 abi, then the registers the event samples unless the ABI is NONE (0). */
    private boolean registers(ByteBuffer b, int regsSize, String field) {
        if (!fits(8)) {
            return refuse("its " + field + " ABI", -1);
        }
        long abi = b.getLong((int) at);
        at += 8;
        if (abi != 0 && !skip(regsSize)) {
            return refuse("its " + field + " registers", regsSize);
        }
        return true;
    }

    /** u64 size, then (unless 0) the stack's bytes and u64 dyn_size, the part of them in use. */
    private boolean userStack(ByteBuffer b) {
        if (!fits(8)) {
            return refuse("its STACK_USER size", -1);
        }
        long stack = b.getLong((int) at);
        at += 8;
        if (stack == 0) {
            return true;
        }
        if (!skip(stack)) {
            return refuse("its user stack", stack);
        }
        if (!fits(8)) {
            return refuse("its user stack's dyn_size", -1);
        }
        long used = b.getLong((int) at);
        at += 8;
        if (Long.compareUnsigned(used, stack) > 0) {
            stackOverused = true;
            return refuse("a user stack of " + stack + " bytes of which it says " + Long.toUnsignedString(used)
                    + " are in use", -1);
        }
        userStackUsed = used;
        return true;
    }

    /** A u64 perf reads without checking that the record holds it. */
    private void unchecked(long type, long bit, String field) {
        if ((type & bit) != 0) {
            if (at + 8 > end && pastEnd == null) {
                pastEnd = field;
            }
            at += 8;
        }
    }

    /** perf's OVERFLOW_CHECK: {@code bytes} (unsigned) no more than the record's size and within its end. */
    private boolean fits(long bytes) {
        return Long.compareUnsigned(bytes, size) <= 0 && at + bytes <= end;
    }

    private boolean skip(long bytes) {
        if (!fits(bytes)) {
            return false;
        }
        at += bytes;
        return true;
    }

    private boolean refuse(String what, long bytes) {
        refused = bytes < 0 ? what : what + " (" + Long.toUnsignedString(bytes) + " bytes)";
        return false;
    }
}
