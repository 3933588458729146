/** How the tests of a hot path check that it allocates nothing per sample. */
package org.hyperprof.testing.alloc;
