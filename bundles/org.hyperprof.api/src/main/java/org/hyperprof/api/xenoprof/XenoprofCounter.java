package org.hyperprof.api.xenoprof;

/**
 * {@code struct xenoprof_counter}: the configuration of counter {@code ind}. Xen ignores
 * {@code hypervisor}; it copies count, enabled, event, kernel, user and unit_mask.
 */
public final class XenoprofCounter {
    public int ind;
    public long count;
    public int enabled;
    public int event;
    public int hypervisor;
    public int kernel;
    public int user;
    public long unitMask;
}
