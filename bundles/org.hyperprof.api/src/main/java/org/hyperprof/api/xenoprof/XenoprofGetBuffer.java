package org.hyperprof.api.xenoprof;

/** {@code struct xenoprof_get_buffer}: {@code max_samples} in; {@code nbuf}, {@code bufsize}, {@code buf_gmaddr} out. */
public final class XenoprofGetBuffer {
    public int maxSamples;
    public int nbuf;
    public int bufsize;
    public long bufGmaddr;

    public XenoprofGetBuffer() {
    }

    public XenoprofGetBuffer(int maxSamples) {
        this.maxSamples = maxSamples;
    }
}
