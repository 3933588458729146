/**
 * The {@code lazy} counter-virtualization policy: Xen's vPMU, whose per-vCPU PMU state moves only
 * for vCPUs that use their PMU. Private to the bundle: other bundles see only the
 * {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy} service.
 */
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.vpmu.lazy;
