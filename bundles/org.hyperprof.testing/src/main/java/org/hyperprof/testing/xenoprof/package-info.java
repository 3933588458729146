/** Xenoprof's shared rings as the daemon-side tests drive them. */
package org.hyperprof.testing.xenoprof;
