/**
 * Intel architectural performance monitoring, versions 1 to 3 (Core, Core 2, Atom, Nehalem: the
 * "x86_64" family of the design card), registered as the {@code i386/arch_perfmon} and
 * {@code i386/core_2} {@link org.hyperprof.api.pmu.PmuModel}s. Private to the bundle: other
 * bundles see only the API's service.
 */
package org.hyperprof.pmu.x86_64;
