/**
 * What the counter-virtualization policies share: the policy component's name, description and session opening
 * ({@link org.hyperprof.vpmu.kit.NamedPolicy}), the session bases ({@link
 * org.hyperprof.vpmu.kit.SessionOnHost} for every policy, {@link
 * org.hyperprof.vpmu.kit.VirtualPmuSession} for those that offer guests a PMU, with
 * {@link org.hyperprof.vpmu.kit.ContextSession} for those that save and restore a context and
 * {@link org.hyperprof.vpmu.kit.VirtualControlsSession} for those that keep the controls virtual), the
 * model's registers ({@link org.hyperprof.vpmu.kit.ModelRegisters}), a vCPU's saved PMU registers
 * ({@link org.hyperprof.vpmu.kit.PmuContext}) and the dense per-vCPU slots
 * ({@link org.hyperprof.vpmu.kit.VcpuSlots}) the sessions keep their state in.
 *
 * <p>Not exported and never deployed: each policy bundle carries its own copy of this package
 * (bnd {@code -conditionalpackage}), so every policy stays installable alone.
 */
package org.hyperprof.vpmu.kit;
