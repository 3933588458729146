package org.hyperprof.store.duckdb;

/**
 * Called inside a session's write transaction, with all its rows written and before the commit: the
 * kill -9 test stops a child JVM there. Production passes {@link #NONE}.
 */
@FunctionalInterface
interface TransactionHook {
    TransactionHook NONE = (session, write) -> { };

    /** @param write {@code checkpoint} or {@code end} */
    void inside(long session, String write);
}
