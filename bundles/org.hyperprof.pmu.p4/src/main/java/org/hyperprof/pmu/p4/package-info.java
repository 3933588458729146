/**
 * The Intel Pentium 4 / NetBurst PMU model, registered as the {@code i386/p4} and
 * {@code i386/p4-ht} {@link org.hyperprof.api.pmu.PmuModel}s. Private to the bundle: other bundles
 * see only the API's service.
 */
package org.hyperprof.pmu.p4;
