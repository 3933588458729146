/**
 * What the PMU models share beyond the x86 driver sequence: the model's fixed description and the
 * CPU-number check ({@link org.hyperprof.pmu.kit.AbstractPmuModel}), its shipped data files
 * ({@link org.hyperprof.pmu.kit.ModelResources}) and their line syntax ({@link org.hyperprof.pmu.kit.DataFile}),
 * reading a model's event table from OProfile's {@code events} and {@code unit_masks} files
 * ({@link org.hyperprof.pmu.kit.EventTableReader}) and placing a user's events on the counters they
 * may use ({@link org.hyperprof.pmu.kit.CounterAllocator}).
 *
 * <p>Not exported and never deployed: each model bundle carries its own copy of this package (bnd
 * {@code -conditionalpackage}), so a fix here is no API change and a model still installs alone.
 */
package org.hyperprof.pmu.kit;
