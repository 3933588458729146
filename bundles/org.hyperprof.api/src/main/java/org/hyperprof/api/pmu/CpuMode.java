package org.hyperprof.api.pmu;

/**
 * The execution mode of a sample, numbered exactly as Xenoprof's {@code event_log.mode}:
 * 0 = user, 1 = guest kernel, 2 = Xen (hypervisor).
 */
public enum CpuMode {
    USER, KERNEL, HYPERVISOR;

    private static final CpuMode[] BY_CODE = values();

    /** The Xenoprof mode value (0, 1 or 2). */
    public int code() {
        return ordinal();
    }

    /** The mode for a Xenoprof mode value; anything above 2 is hypervisor, as Xen counts it. */
    public static CpuMode ofCode(int code) {
        if (code < 0) {
            throw new IllegalArgumentException("mode " + code + " is negative; Xenoprof modes are 0 user, 1 kernel, 2 xen");
        }
        return code >= 2 ? HYPERVISOR : BY_CODE[code];
    }
}
