/** The real pprof ({@code go tool pprof}) run on written profiles, for the tests that check them with it. */
package org.hyperprof.testing.pprof;
