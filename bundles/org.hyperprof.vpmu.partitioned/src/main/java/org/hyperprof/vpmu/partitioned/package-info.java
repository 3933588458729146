/**
 * The {@code partitioned} counter-virtualization policy: Xenoprof and guests' own profilers share
 * one PMU through a per-physical-CPU counter allocator. Private to the bundle: other bundles see
 * only the {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy} service.
 */
package org.hyperprof.vpmu.partitioned;
