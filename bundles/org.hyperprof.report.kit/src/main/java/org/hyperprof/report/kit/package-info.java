/**
 * What the report consumers (opreport, pprof, flame graph) share: the consumer's part around its
 * aggregate ({@link org.hyperprof.report.kit.ReportConsumer}: the last sessions it keeps on a
 * {@link org.hyperprof.report.kit.SessionShelf}, deliveries routed to them, strays counted, the
 * session a request asks for; {@link org.hyperprof.report.kit.RenderingConsumer} for one that also
 * renders its report, made whole before any of it is written) and the reading of a request's options
 * ({@link org.hyperprof.report.kit.RequestOptions}) with the filters every report takes
 * ({@link org.hyperprof.report.kit.RowFilter}), the aggregate's part around its own counts
 * ({@link org.hyperprof.report.kit.ReportAggregate}: the check of each sample against the session
 * and the books of what it took and rejected, {@link org.hyperprof.report.kit.Rejections}), the
 * open-addressing {@code long -> int} table their aggregates count and intern in
 * ({@link org.hyperprof.report.kit.LongIntTable}), the index of their tables whose entries live in
 * their own arrays ({@link org.hyperprof.report.kit.EntrySlots}), the 64-bit hash mix of their
 * primitive tables ({@link org.hyperprof.report.kit.Hashing}) and the symbol-to-image map they learn from a session's
 * dictionary to check every frame of a batch ({@link org.hyperprof.report.kit.SymbolImages}).
 *
 * <p>Not exported and never deployed: each report bundle carries its own copy of this package (bnd
 * {@code -conditionalpackage}), so a fix here is no API change and a report still installs alone.
 */
package org.hyperprof.report.kit;
