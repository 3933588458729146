/**
 * What the counter-virtualization policies share: the session bases ({@link
 * org.hyperprof.vpmu.kit.VirtualPmuSession}, {@link org.hyperprof.vpmu.kit.ContextSession}) and the
 * model's registers ({@link org.hyperprof.vpmu.kit.ModelRegisters}).
 *
 * <p>Not exported and never deployed: each policy bundle carries its own copy of this package
 * (bnd {@code -conditionalpackage}), so every policy stays installable alone.
 */
package org.hyperprof.vpmu.kit;
