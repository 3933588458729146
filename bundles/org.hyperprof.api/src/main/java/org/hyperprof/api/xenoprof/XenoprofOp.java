package org.hyperprof.api.xenoprof;

/**
 * The operations of {@code __HYPERVISOR_xenoprof_op} (hypercall 31), with their ABI numbers.
 * Four are open to every domain; the rest only to the primary profiler.
 */
public enum XenoprofOp {
    INIT(0, false),
    RESET_ACTIVE_LIST(1, true),
    RESET_PASSIVE_LIST(2, true),
    SET_ACTIVE(3, true),
    SET_PASSIVE(4, true),
    RESERVE_COUNTERS(5, true),
    COUNTER(6, true),
    SETUP_EVENTS(7, true),
    ENABLE_VIRQ(8, false),
    START(9, true),
    STOP(10, true),
    DISABLE_VIRQ(11, false),
    RELEASE_COUNTERS(12, true),
    SHUTDOWN(13, true),
    GET_BUFFER(14, false),
    SET_BACKTRACE(15, true),
    GET_IBS_CAPS(16, true),
    IBS_COUNTER(17, true);

    /** {@code XENOPROF_last_op}. */
    public static final int LAST_OP = 17;
    /** {@code __HYPERVISOR_xenoprof_op}. */
    public static final int HYPERCALL = 31;

    private static final XenoprofOp[] BY_NUMBER = values();

    private final int number;
    private final boolean privileged;

    XenoprofOp(int number, boolean privileged) {
        this.number = number;
        this.privileged = privileged;
    }

    /** The ABI op number. */
    public int number() {
        return number;
    }

    /** Whether only the primary profiler may call it. */
    public boolean privileged() {
        return privileged;
    }

    /** The op's name as the C header spells it, e.g. {@code XENOPROF_enable_virq}. */
    public String cName() {
        return "XENOPROF_" + name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The op with that number, or null outside 0..17. */
    public static XenoprofOp ofNumber(int number) {
        return number < 0 || number > LAST_OP ? null : BY_NUMBER[number];
    }

    /** The op with that name, accepting {@code enable_virq}, {@code ENABLE_VIRQ} or {@code XENOPROF_enable_virq}. */
    public static XenoprofOp ofName(String name) {
        String n = name.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
        if (n.startsWith("XENOPROF_")) {
            n = n.substring("XENOPROF_".length());
        }
        for (XenoprofOp op : BY_NUMBER) {
            if (op.name().equals(n)) {
                return op;
            }
        }
        return null;
    }
}
