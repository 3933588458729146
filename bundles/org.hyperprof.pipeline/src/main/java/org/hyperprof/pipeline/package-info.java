/**
 * The one sample stage every source feeds (the simulator's daemons, perf.data imports and live
 * recordings, folded stacks): the session's {@link org.hyperprof.pipeline.Dictionary}, the
 * {@link org.hyperprof.pipeline.BatchBuilder}, the {@link org.hyperprof.pipeline.Dispatcher} that
 * hands batches to every consumer with exact books, {@link org.hyperprof.pipeline.PublishedSession}
 * and the {@link org.hyperprof.pipeline.SymbolTables} cache. A source resolves its own addresses
 * (its rules are its own: Xenoprof's domains, perf's naming) and gives the pipeline ids.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.5.0")
package org.hyperprof.pipeline;
