/**
 * The {@code saverestore} counter-virtualization policy: a whole virtual PMU per guest vCPU, saved
 * and restored at every vCPU switch. Private to the bundle: other bundles see only the
 * {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy} service.
 */
package org.hyperprof.vpmu.saverestore;
