/**
 * What the report consumers (opreport, pprof, flame graph) share: the open-addressing
 * {@code long -> int} table their aggregates count and intern in
 * ({@link org.hyperprof.report.kit.LongIntTable}), the 64-bit hash mix of their primitive tables
 * ({@link org.hyperprof.report.kit.Hashing}) and the symbol-to-image map they learn from a session's
 * dictionary to check every frame of a batch ({@link org.hyperprof.report.kit.SymbolImages}), and the
 * books of what a report could not aggregate ({@link org.hyperprof.report.kit.Rejections}).
 *
 * <p>Not exported and never deployed: each report bundle carries its own copy of this package (bnd
 * {@code -conditionalpackage}), so a fix here is no API change and a report still installs alone.
 */
package org.hyperprof.report.kit;
