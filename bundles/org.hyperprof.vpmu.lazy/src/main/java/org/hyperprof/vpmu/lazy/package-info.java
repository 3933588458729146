/**
 * The {@code lazy} counter-virtualization policy: Xen's vPMU, whose per-vCPU PMU state moves only
 * for vCPUs that use their PMU. Private to the bundle: other bundles see only the
 * {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy} service.
 */
package org.hyperprof.vpmu.lazy;
