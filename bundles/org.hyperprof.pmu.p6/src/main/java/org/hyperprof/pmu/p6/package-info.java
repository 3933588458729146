/**
 * The Intel P6 family PMU model (Pentium Pro, Pentium II, Pentium III, Pentium M), registered as
 * the {@code i386/p6} {@link org.hyperprof.api.pmu.PmuModel}. Private to the bundle: other
 * bundles see only the API's service.
 */
package org.hyperprof.pmu.p6;
