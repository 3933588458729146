package org.hyperprof.api.xenoprof;

/** {@code struct xenoprof_init}: all fields are outputs of {@code XENOPROF_init}. */
public final class XenoprofInit {
    /** Number of counters of the CPU model. */
    public int numEvents;
    /** 1 if the caller is (now) the primary profiler. */
    public int isPrimary;
    /** OProfile cpu_type, at most {@value #CPU_TYPE_SIZE} - 1 characters. */
    public String cpuType = "";

    /** {@code XENOPROF_CPU_TYPE_SIZE}. */
    public static final int CPU_TYPE_SIZE = 64;
}
