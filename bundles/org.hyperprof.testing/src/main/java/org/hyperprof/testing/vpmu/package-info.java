/**
 * A host, a rig and guest profilers for counter-virtualization policy tests: real register files
 * of a real model, every register access logged, the policy driven through switches, hypervisor
 * entries and exits, guest code and PMU interrupts, with a ledger to compute expected counts from.
 */
package org.hyperprof.testing.vpmu;
