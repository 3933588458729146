/**
 * The {@code saverestore} counter-virtualization policy: a whole virtual PMU per guest vCPU, saved
 * and restored at every vCPU switch. Private to the bundle: other bundles see only the
 * {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy} service.
 */
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.vpmu.saverestore;
