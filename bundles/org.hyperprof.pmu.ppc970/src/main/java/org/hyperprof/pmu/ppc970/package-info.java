/**
 * The IBM PowerPC 970 PMU model, registered as the {@code ppc64/970}
 * {@link org.hyperprof.api.pmu.PmuModel}. Private to the bundle: other bundles see only the API's
 * service.
 */
package org.hyperprof.pmu.ppc970;
