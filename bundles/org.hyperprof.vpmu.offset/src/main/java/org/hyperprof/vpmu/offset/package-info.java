/**
 * The {@code offset} counter-virtualization policy (Perfctr-Xen's counter offsetting). Private to
 * the bundle: other bundles see only the {@link org.hyperprof.api.vpmu.CounterVirtualizationPolicy}
 * service.
 */
package org.hyperprof.vpmu.offset;
