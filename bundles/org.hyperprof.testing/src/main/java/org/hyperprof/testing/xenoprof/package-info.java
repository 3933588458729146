/** Fakes of the Xenoprof side of a host, shared by the profiler's and the shell's tests. */
package org.hyperprof.testing.xenoprof;
