package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Collection;

import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.StoreException;

/**
 * What the store writes of a session and when: its running row at its start, its rows so far at each
 * checkpoint, all of it at its end, and its row cut short when the store stops first; each on the
 * {@link StoreWriter}, in order. A write that fails prints one line ({@code hyperprof: session N not
 * stored: why}) or, for a start, keeps why in the session's notes; none throws into the pipeline.
 */
record SessionWrites(SessionWrites.Files files, StoreWriter writer, TransactionHook hook, PrintStream problems) {
    /** The store's file, made (and DuckDB made ready) at its first use. */
    @FunctionalInterface
    interface Files {
        StoreFile file() throws StoreException;
    }

    /** Writes the session's running row and owner (the session's samples are counted meanwhile). */
    void begin(OpenSession s) {
        writer.later(() -> {
            try {
                StoreFile f = files.file();
                RunningSessions.begin(f, s.running(), f.owner());
            } catch (StoreException | RuntimeException | LinkageError e) {
                // Its end tries again (a lock may have been held); the row keeps why its start was not written.
                s.note("its start was not stored: " + e.getMessage());
            }
        });
    }

    /**
     * Counts the samples of a full chunk into the session's rows, after the writes before it (the
     * delivery thread goes on taking samples into a new chunk).
     */
    void fold(OpenSession s, SampleChunk chunk) {
        writer.later(() -> s.rows().fold(chunk));
    }

    /**
     * Writes the session's rows so far, the samples of {@code chunk} counted in, and returns once
     * written: the caller, its delivery thread, waits (the source never does), as the writer reads the
     * stacks it names. One that fails (another process's lock: a checkpoint does not wait) is left to
     * the next or the end.
     */
    void checkpoint(OpenSession s, String consumerName, SampleChunk chunk) {
        writer.now(() -> {
            s.rows().fold(chunk);
            Instant at = Instant.now();
            try {
                StoreFile f = files.file();
                RunningSessions.checkpoint(f, s.checkpoint(), s.info(), s.rows(), s.checkpointBooks(consumerName),
                        f.owner(), at, hook);
            } catch (StoreException | RuntimeException | LinkageError e) {
                at = null;
            }
            s.checkpoints().written(at == null ? null : new Checkpoints.Written(at, s.rows().samples()),
                    System.nanoTime());
        });
    }

    /**
     * Writes the ended session whole, after the writes before it: under the session's monitor, closed, so
     * that what is said of it meanwhile is in its row or waits for it ({@link OpenSession#closed()}).
     * {@code written} is told the file it went to; {@code done} runs once it is written or not.
     */
    void end(OpenSession s, SampleChunk chunk, SessionSummary summary, String consumerName,
            java.util.function.Consumer<StoreFile> written, Runnable done) {
        Instant endedAt = Instant.now();
        boolean taken = writer.later(() -> {
            try {
                s.rows().fold(chunk);
                StoreFile f = files.file();
                synchronized (s) {
                    s.close();
                    RunningSessions.end(f, s.ended(summary, consumerName, endedAt), s.info(), s.rows(), summary,
                            s.checkpoints().last() != null, hook);
                }
                written.accept(f);
            } catch (StoreException | RuntimeException | LinkageError e) {
                notStored(summary.sessionId(), e.getMessage());
            } finally {
                done.run();
            }
        });
        if (!taken) {
            notStored(summary.sessionId(), "the store stopped");
            done.run();
        }
    }

    /**
     * Finishes the writes asked (waiting at most {@code millis}), then writes the sessions still open as
     * cut short ({@code made}: the store's file, null when none was ever made, DuckDB never ready).
     */
    void close(long millis, Collection<OpenSession> open, StoreFile made) {
        if (!writer.close(millis)) {
            problems.println("hyperprof: the store stopped before it finished writing its sessions");
        }
        for (OpenSession s : open) {
            SessionRow row = s.cutShort(Instant.now());
            String why = "the store stopped, and DuckDB was never ready in it";
            try {
                if (made != null) {
                    RunningSessions.cutShort(made, row);
                    continue;
                }
            } catch (StoreException | RuntimeException | LinkageError e) {
                why = e.getMessage();
            }
            notStored(row.session().id(), why);
        }
    }

    private void notStored(long session, String why) {
        problems.println("hyperprof: session " + session + " not stored: " + why);
    }
}
