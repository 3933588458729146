package org.hyperprof.api.xenoprof;

/** The Linux/Xen error numbers Xenoprof returns, negated in hypercall results. */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    E2BIG(7, "Argument list too long"),
    ENOMEM(12, "Out of memory"),
    EFAULT(14, "Bad address"),
    EBUSY(16, "Device or resource busy"),
    ENODEV(19, "No such device"),
    EINVAL(22, "Invalid argument"),
    ENOSYS(38, "Function not implemented");

    private final int value;
    private final String text;

    Errno(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The positive errno value. */
    public int value() {
        return value;
    }

    /** The hypercall return value: {@code -value}. */
    public long ret() {
        return -value;
    }

    /** strerror text. */
    public String text() {
        return text;
    }

    /** The errno for a negative hypercall result, or null if none matches. */
    public static Errno ofResult(long result) {
        for (Errno e : values()) {
            if (-e.value == result) {
                return e;
            }
        }
        return null;
    }
}
