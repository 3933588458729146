package org.hyperprof.profiler;

/**
 * A passive domain the primary's driver mapped: its buffers and the kernel image to resolve it
 * with. The primary's {@link Oprofiled} drains it through the session's coarse view of that domain.
 */
final class PassiveDomain {
    final int domid;
    final String name;
    final BufferReader[] readers;
    final PassiveView.KernelImage image;
    /** Destroyed: its pages are freed, nobody reads them any more. */
    volatile boolean gone;
    /** The session {@link #cachedView} belongs to; read and written under the collector's lock. */
    Session cachedSession;
    PassiveView cachedView;

    PassiveDomain(int domid, String name, BufferReader[] readers, PassiveView.KernelImage image) {
        this.domid = domid;
        this.name = name;
        this.readers = readers;
        this.image = image;
    }

    boolean hasPending() {
        for (BufferReader r : readers) {
            if (r.pending() > 0) {
                return true;
            }
        }
        return false;
    }
}
