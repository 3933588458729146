/**
 * What the report consumers (opreport, pprof, flame graph) share: the open-addressing
 * {@code long -> int} table their aggregates count and intern in
 * ({@link org.hyperprof.report.kit.LongIntTable}) and the 64-bit hash mix of their primitive tables
 * ({@link org.hyperprof.report.kit.Hashing}).
 *
 * <p>Not exported and never deployed: each report bundle carries its own copy of this package (bnd
 * {@code -conditionalpackage}), so a fix here is no API change and a report still installs alone.
 */
package org.hyperprof.report.kit;
