package org.hyperprof.api.xenoprof;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One vCPU's {@code xenoprof_buf} as a mapping domain sees it: the shared page. Xen writes
 * {@code event_head} and the entries; the consumer writes {@code event_tail}. The page is
 * writable by the guest, so a guest may also write garbage into head or tail: Xen reads each
 * once per operation, validates it, and counts a corrupted sample when it is out of range.
 *
 * <p>Entries are {@code {eip, mode, event}}: a PC, a return address or the escape value
 * {@value #ESCAPE_CODE}; mode 0 user / 1 kernel / 2 xen; event = index of the counter that
 * overflowed, {@value #TRACE_BEGIN} for an escape record, 0 for a trace entry.
 */
@ProviderType
public interface SharedBuffer {
    /** {@code XENOPROF_ESCAPE_CODE}: an eip of all ones. */
    long ESCAPE_CODE = ~0L;
    /** {@code XENOPROF_TRACE_BEGIN}: the event value of an escape record. */
    int TRACE_BEGIN = 1;

    /** {@code vcpu_id}: which vCPU this buffer belongs to (not necessarily its index). */
    int vcpuId();

    /** {@code event_size}: number of slots; one always stays empty. */
    int size();

    /** {@code event_head}: next slot Xen writes. */
    int head();

    /** {@code event_tail}: next slot the consumer reads. */
    int tail();

    /** The consumer publishes its tail. Any value may be written; Xen validates on use. */
    void writeTail(int tail);

    /** A (hostile) guest writes the producer index. Any value may be written; Xen validates on use. */
    void writeHead(int head);

    /**
     * The mapping domain writes {@code count} consecutive slots from {@code from} (going round the
     * ring) with one entry: the entries lie in the page it may write, as the indices do. A daemon
     * marks the entries it has read, so that no index a guest writes can make it read them again;
     * a hostile guest writes what it likes. Xen never reads an entry back.
     *
     * @throws IndexOutOfBoundsException for a slot outside {@code [0, size)} or a count above
     *                                   {@code size}: not in the page
     */
    void fill(int from, int count, long eip, int mode, int event);

    /** The {@code eip} of a slot. */
    long eip(int slot);

    /** The {@code mode} of a slot. */
    int mode(int slot);

    /** The {@code event} of a slot. */
    int event(int slot);

    /**
     * Copies {@code count} consecutive slots starting at {@code from} (wrapping at {@link #size()})
     * into the arrays at {@code offset}: the bulk read a daemon uses.
     */
    void copy(int from, int count, long[] eip, byte[] mode, byte[] event, int offset);

    /**
     * Samples aimed at this buffer that were refused because its head or tail was out of range
     * (the guest scribbled on them): nothing was written. Xen counts these only globally
     * ({@code corrupted_buffer_samples}); a buffer that keeps its own count reports it here, so that
     * every sample aimed at it is accounted: written, lost or corrupted. 0 when not kept.
     */
    default long corruptedSamples() {
        return 0;
    }

    /** {@code xen_samples}. */
    long xenSamples();

    /** {@code kernel_samples}. */
    long kernelSamples();

    /** {@code user_samples}. */
    long userSamples();

    /** {@code lost_samples}: samples dropped because the ring was full. */
    long lostSamples();
}
