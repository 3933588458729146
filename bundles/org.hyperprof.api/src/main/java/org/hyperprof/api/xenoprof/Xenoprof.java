package org.hyperprof.api.xenoprof;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The Xenoprof hypercall interface of one simulated host: {@code do_xenoprof_op} plus what a
 * guest kernel does around it (mapping the shared pages it was given, binding the VIRQ).
 *
 * <p>All control operations are serialised by one lock, as Xen's {@code xenoprof_lock} does.
 */
@ProviderType
public interface Xenoprof {
    /**
     * {@code HYPERVISOR_xenoprof_op(op, arg)} issued by domain {@code callerDomid}.
     *
     * <p>The argument per op: {@link XenoprofInit} (init), {@link XenoprofGetBuffer} (get_buffer),
     * {@link Integer} domain id (set_active), {@link XenoprofPassive} (set_passive),
     * {@link XenoprofCounter} (counter), {@link Long} depth (set_backtrace),
     * {@link XenoprofIbsCounter} (ibs_counter), null for the others. A missing or wrongly typed
     * argument is what a bad guest pointer is to Xen: {@code -EFAULT}.
     *
     * @return 0 or a non-negative value on success, {@code -errno} on failure, exactly as Xen
     *         returns them (dispatcher order: op range -EINVAL, privilege -EPERM, then the op)
     */
    long hypercall(int callerDomid, int op, Object arg);

    /** The same call by op constant. */
    default long hypercall(int callerDomid, XenoprofOp op, Object arg) {
        return hypercall(callerDomid, op.number(), arg);
    }

    /**
     * Explains the result of a call for a person: the state the session is in, what the call
     * expected, which domain must take which step next. For a success it says what changed.
     */
    String explain(int callerDomid, XenoprofOp op, long result);

    /** {@code xenoprof_state}. */
    XenoprofState state();

    /** The primary profiler's domain id, or -1 when there is none. */
    int primary();

    /** The Xenoprof type of a domain ({@link DomainType#IGNORED} for one without buffers). */
    DomainType domainType(int domid);

    /** {@code adomains}: length of the active list. */
    int activeListSize();

    /** {@code activated}: how many listed active domains have called enable_virq. */
    int activated();

    /** The domain ids in the active list, in order (duplicates kept, as Xen keeps them). */
    int[] activeList();

    /** The domain ids in the passive list. */
    int[] passiveList();

    /** {@code backtrace_depth}. */
    int backtraceDepth();

    /**
     * Maps the buffer pages of {@code ownerDomid} into {@code mapperDomid}: allowed when Xen shared
     * them with the mapper (the owner's own after get_buffer, a passive domain's with the primary
     * after set_passive).
     *
     * @return one buffer per vCPU of the owner
     * @throws IllegalStateException when the pages are not shared with the mapper, saying which
     *                               call would share them
     */
    SharedBuffer[] mapBuffers(int mapperDomid, int ownerDomid);

    /** Binds {@code VIRQ_XENOPROF} of every vCPU of {@code domid} to {@code handler}. */
    void bindVirq(int domid, VirqHandler handler);

    /** Unbinds the domain's {@code VIRQ_XENOPROF}. */
    void unbindVirq(int domid);

    /** The global sample statistics. */
    XenoprofStatistics statistics();

    /**
     * Of {@link XenoprofStatistics#othersSamples()}, those taken while {@code domid} ran: the
     * samples of a domain in neither list (Xen drops them) and those the counter-virtualization
     * policy dropped, since the statistics were last reset. Xen keeps no such count; a simulated
     * hypervisor does, so that an unlisted domain has books of its own.
     *
     * @return the count, or 0 when the hypervisor does not keep one
     * @since 1.2
     */
    default long droppedSamples(int domid) {
        return 0;
    }
}
