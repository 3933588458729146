/**
 * What the symbol resolvers share: their base, a resolver of one format within one read ceiling
 * ({@link org.hyperprof.symbols.kit.FormatResolver}), and how they take in a source
 * ({@link org.hyperprof.symbols.kit.ImageInput}): the check that an image source is in the
 * resolver's format, reading a source whole within the resolver's ceiling, and the one wording of a
 * file that cannot be opened or read.
 *
 * <p>Not exported and never deployed: each resolver bundle carries its own copy of this package (bnd
 * {@code -conditionalpackage}), so a fix here is no API change and a resolver still installs alone.
 */
package org.hyperprof.symbols.kit;
