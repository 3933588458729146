/** The machine's own tools (gcc, perf, binutils) run by the tests, and the C test programs they build. */
package org.hyperprof.testing.tools;
