package org.hyperprof.testing.alloc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

/**
 * What a piece of work allocates on the calling thread, measured one way for every "allocates
 * nothing per sample" rule. The work runs in several windows and the fewest bytes of any window
 * count: a hot path that allocates per call allocates in every window, while what the JVM
 * allocates on the thread once in a while (a deoptimization or an on-stack replacement while the
 * JIT settles, more likely on a loaded machine) lands in one window, and must not fail the rule.
 */
public final class Allocations {
    /** Windows measured: one stray allocation cannot be in all of them. */
    public static final int WINDOWS = 3;

    private Allocations() {
    }

    /**
     * The fewest bytes the calling thread allocated in one run of {@code work}, over
     * {@link #WINDOWS} runs. Warm the work up before (the JIT's first compilations allocate).
     */
    public static long leastBytes(Runnable work) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory
                .getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "this JVM must measure per-thread allocation for the rule to mean anything");
        long thread = Thread.currentThread().getId();
        long least = Long.MAX_VALUE;
        for (int window = 0; window < WINDOWS; window++) {
            long before = threads.getThreadAllocatedBytes(thread);
            work.run();
            least = Math.min(least, threads.getThreadAllocatedBytes(thread) - before);
        }
        return least;
    }
}
