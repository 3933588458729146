package org.hyperprof.store.duckdb;

import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Another Hyperprof process on the test's store, in a child JVM its test starts (and may kill).
 * Latches are files in a folder the test gives: the child makes {@code inside} (or {@code holding},
 * {@code running}) when it is where the test wants it, and waits for {@code release} where it may go on.
 *
 * <ul>
 * <li>{@code kill STORE LATCHES WRITE}: stores sessions 1 and 2 whole, then runs session 3 of
 *     {@link #BATCHES} batches with a checkpoint after each batch, and stops for good inside the
 *     transaction {@code WRITE} names ({@code checkpoint:N}, the N-th checkpoint of session 3, or
 *     {@code end}), where its test kills it.</li>
 * <li>{@code run STORE LATCHES}: starts session 7 with one batch checkpointed, then waits, holding no
 *     lock on the store.</li>
 * <li>{@code hold STORE LATCHES}: holds the store's lock inside a write until released.</li>
 * </ul>
 */
public final class StoreChild {
    static final int BATCHES = 5;
    /** Each batch of {@link StoreFixture#batch} holds 10 samples. */
    static final int SAMPLES_PER_BATCH = 10;

    private StoreChild() {
    }

    public static void main(String[] args) throws Exception {
        Path store = Path.of(args[1]);
        Path latches = Path.of(args[2]);
        // A checkpoint after every batch: the test knows which rows each checkpoint holds.
        StoreSettings settings = new StoreSettings(store, true, "child", 10_000, Duration.ofNanos(1));
        switch (args[0]) {
            case "kill" -> {
                String at = args[3];
                int[] checkpoints = {0};
                StoreFixture f = new StoreFixture(settings, (session, write) -> {
                    if (session != 3) {
                        return;
                    }
                    boolean here = write.equals(RunningSessions.END) ? at.equals(RunningSessions.END)
                            : at.equals(RunningSessions.CHECKPOINT + ":" + ++checkpoints[0]);
                    if (here) {
                        stayInside(latches.resolve("inside"));
                    }
                });
                f.profile(1, "simulator");
                f.profile(2, "import");
                f.store.sessionStarted(f.info(3, "simulator"));
                for (int i = 0; i < BATCHES; i++) {
                    f.store.samples(f.batch(3));
                }
                f.store.sessionEnded(StoreFixture.ended(3, BATCHES * SAMPLES_PER_BATCH, 0));
                throw new IllegalStateException("session 3 ended, though the test meant to kill this JVM in it");
            }
            case "run" -> {
                StoreFixture f = new StoreFixture(settings, TransactionHook.NONE);
                f.store.sessionStarted(f.info(7, "simulator"));
                f.store.samples(f.batch(7));
                Files.createFile(latches.resolve("running"));
                awaitFile(latches.resolve("release"));
            }
            case "hold" -> new StoreFile(store, 10_000).write(c -> {
                Files.createFile(latches.resolve("holding"));
                awaitFile(latches.resolve("release"));
                return null;
            });
            default -> throw new IllegalArgumentException("no mode " + args[0]);
        }
    }

    /** Says it is inside, and never leaves: its test kills it here. */
    private static void stayInside(Path latch) {
        try {
            Files.createFile(latch);
            new CountDownLatch(1).await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the file exists: the test's latch, polled. */
    static void awaitFile(Path file) throws InterruptedIOException {
        try {
            while (!Files.exists(file)) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            throw new InterruptedIOException("interrupted before " + file);
        }
    }
}
