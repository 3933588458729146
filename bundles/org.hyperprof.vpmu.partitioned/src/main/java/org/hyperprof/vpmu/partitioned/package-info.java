/**
 * The {@code partitioned} counter-virtualization policy: Xenoprof and guests' own profilers share
 * one PMU through a per-physical-CPU counter allocator. Private to the bundle: other bundles see
 * only the {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy} service.
 */
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.vpmu.partitioned;
