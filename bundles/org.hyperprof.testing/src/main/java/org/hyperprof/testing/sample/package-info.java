/** Session dictionaries and sample batches built by hand, for consumers' tests. */
package org.hyperprof.testing.sample;
