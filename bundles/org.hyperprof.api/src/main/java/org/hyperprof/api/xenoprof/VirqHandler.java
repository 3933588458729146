package org.hyperprof.api.xenoprof;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A domain's handler for {@code VIRQ_XENOPROF} (virtual IRQ 7, per vCPU). Called on the
 * simulation thread when the virtual interrupt reaches the vCPU; the handler drains that vCPU's
 * buffer (and, in the primary, the passive buffers) and returns quickly.
 */
@ConsumerType
@FunctionalInterface
public interface VirqHandler {
    /** {@code VIRQ_XENOPROF}. */
    int VIRQ_XENOPROF = 7;

    /** The virtual interrupt arrived on vCPU {@code vcpuId} of the bound domain. */
    void virq(int vcpuId);
}
