package org.hyperprof.store.duckdb;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where the store's writes run, one at a time and in the order asked: a thread of the store's own, so
 * that opening DuckDB's file and writing (tens of milliseconds) holds up neither the source nor the
 * store's delivery thread, which goes on counting the session's samples; or, for tests, the caller's
 * thread, so that a write is done when the call returns.
 */
abstract class StoreWriter {

    /** Runs {@code write} after the writes asked before it; false when the writer has closed. */
    abstract boolean later(Runnable write);

    /** Runs {@code write} after the writes asked before it and returns once it ran. */
    abstract void now(Runnable write);

    /** Finishes the writes asked, waiting at most {@code millis}; whether all finished. */
    abstract boolean close(long millis);

    /** Returns once the writes asked before it ran, or {@code millis} passed (they go on then). */
    abstract void settle(long millis);

    /** Every write on the caller's thread. */
    static StoreWriter callers() {
        return new StoreWriter() {
            @Override
            boolean later(Runnable write) {
                write.run();
                return true;
            }

            @Override
            void now(Runnable write) {
                write.run();
            }

            @Override
            boolean close(long millis) {
                return true;
            }

            @Override
            void settle(long millis) {
                // Every write was done before its call returned.
            }
        };
    }

    /** Every write on one thread of its own, named {@code name}, gone once closed. */
    static StoreWriter thread(String name) {
        ExecutorService one = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        return new StoreWriter() {
            @Override
            boolean later(Runnable write) {
                try {
                    one.execute(write);
                    return true;
                } catch (RejectedExecutionException e) {
                    return false;
                }
            }

            @Override
            void now(Runnable write) {
                try {
                    one.submit(write).get();
                } catch (RejectedExecutionException | ExecutionException e) {
                    // Closed meanwhile, or the write failed (a write reports its own failures).
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            void settle(long millis) {
                try {
                    one.submit(() -> { }).get(millis, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
                    // Closed, or still writing past the wait: the reader sees the store as it is.
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            boolean close(long millis) {
                one.shutdown();
                try {
                    return one.awaitTermination(millis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        };
    }
}
