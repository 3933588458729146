package org.hyperprof.api.xenoprof;

/** {@code struct xenoprof_ibs_counter}: AMD IBS configuration for {@code XENOPROF_ibs_counter}. */
public final class XenoprofIbsCounter {
    public long opEnabled;
    public long fetchEnabled;
    public long maxCntFetch;
    public long maxCntOp;
    public long randEn;
    public long dispatchedOps;
}
