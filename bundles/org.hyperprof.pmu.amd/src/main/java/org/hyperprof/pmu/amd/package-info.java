/**
 * The AMD PMU models (K7 {@code i386/athlon}, K8 {@code x86-64/hammer}, family 10h
 * {@code x86-64/family10} with IBS, family 15h {@code x86-64/family15h}), each registered as a
 * {@link org.hyperprof.api.pmu.PmuModel} service. Private to the bundle: other bundles see only
 * the API's service.
 */
package org.hyperprof.pmu.amd;
