package org.hyperprof.api.xenoprof;

/** {@code struct xenoprof_passive}: domain and max_samples in; nbuf, bufsize, buf_gmaddr out. */
public final class XenoprofPassive {
    public int domainId;
    public int maxSamples;
    public int nbuf;
    public int bufsize;
    public long bufGmaddr;

    public XenoprofPassive() {
    }

    public XenoprofPassive(int domainId, int maxSamples) {
        this.domainId = domainId;
        this.maxSamples = maxSamples;
    }
}
