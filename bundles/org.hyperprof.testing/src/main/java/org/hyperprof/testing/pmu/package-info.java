/** The contract every PMU model bundle's tests hold its models to. */
package org.hyperprof.testing.pmu;
