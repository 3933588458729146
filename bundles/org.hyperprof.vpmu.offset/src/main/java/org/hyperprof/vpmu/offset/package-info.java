/**
 * The {@code offset} counter-virtualization policy (Perfctr-Xen's counter offsetting). Private to
 * the bundle: other bundles see only the {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy}
 * service.
 */
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.vpmu.offset;
