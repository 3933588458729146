/**
 * A host of counting register files and a machine that drives a policy while keeping each guest's
 * ground truth (the events of its own code and of hypervisor work done for it) apart from the
 * counters, for the accuracy tests of the offset and partitioned policies.
 */
package org.hyperprof.testing.vpmu.truth;
