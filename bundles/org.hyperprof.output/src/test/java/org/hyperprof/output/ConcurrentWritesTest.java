package org.hyperprof.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.hyperprof.api.output.Appender;
import org.hyperprof.api.output.Content;
import org.hyperprof.api.output.OutputException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two writes to one target never interleave: the second waits until the first has closed it. Made
 * deterministic by a first write that stops in the middle until the second is seen waiting (the
 * component's hook), never by sleeping.
 */
class ConcurrentWritesTest {

    @TempDir
    Path dir;

    private final CountDownLatch secondWaits = new CountDownLatch(1);
    private final List<Path> waitedFor = new ArrayList<>();
    private final OutputFilesComponent files = new OutputFilesComponent(file -> {
        synchronized (waitedFor) {
            waitedFor.add(file);
        }
        secondWaits.countDown();
    });
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** A content that writes its first half, then holds until {@code go}, then writes the rest. */
    private static Content halting(String first, CountDownLatch halfway, CountDownLatch go, String rest) {
        return out -> {
            write(out, first);
            out.flush();
            halfway.countDown();
            await(go);
            write(out, rest);
        };
    }

    /** Also when the first writer names the FIFO through a symbolic link: a link and its target are one target. */
    @ParameterizedTest(name = "the first writer names it {0}")
    @ValueSource(strings = {"directly", "through a link"})
    void twoWritersToOneFifoNeverInterleave(String naming) throws Exception {
        Path fifo = OutputTargets.fifo(dir, "shared.fifo");
        Path firstTarget = naming.equals("directly") ? fifo : Files.createSymbolicLink(dir.resolve("link"), fifo);
        CountDownLatch halfway = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        try (OutputTargets.Reader reader = OutputTargets.readFifo(fifo, 2)) {
            Future<?> first = threads.submit(() -> files.write(firstTarget, halting("A1 ", halfway, go, "A2\n")));
            halfway.await();
            Future<?> second = threads.submit(() -> files.write(fifo, out -> write(out, "B1 B2\n")));
            secondWaits.await();
            go.countDown();
            first.get();
            second.get();
            assertEquals("A1 A2\nB1 B2\n", reader.text());
        }
        assertEquals(List.of(fifo), waitedFor);
        assertEquals(0, files.busyTargets());
    }

    @Test
    void twoWritersToOneFileTakeTurnsAndTheLastOneIsThereWhole() throws Exception {
        Path file = Files.writeString(dir.resolve("shared.svg"), "old");
        CountDownLatch halfway = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        List<String> seenBySecond = new ArrayList<>();
        Future<?> first = threads.submit(() -> files.write(file, halting("first, ", halfway, go, "whole")));
        halfway.await();
        Future<?> second = threads.submit(() -> files.write(file, out -> {
            seenBySecond.add(Files.readString(file));
            write(out, "second, whole");
        }));
        secondWaits.await();
        assertEquals("old", Files.readString(file), "the first is not done, so the old file is still there");
        go.countDown();
        first.get();
        second.get();
        assertEquals(List.of("first, whole"), seenBySecond, "the second began after the first had ended");
        assertEquals("second, whole", Files.readString(file));
        assertEquals(List.of("shared.svg"), OutputTargets.names(dir));
    }

    @Test
    void aChunkBeingAppendedIsNeverSplitByAnotherAppend() throws Exception {
        Path csv = dir.resolve("rates.csv");
        Appender appender = files.appender(csv, out -> write(out, "header\n"));
        CountDownLatch halfway = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Future<?> whole = threads.submit(() -> {
            appender.append(halting("line 1 ", halfway, go, "of 2\n"));
            return null;
        });
        halfway.await();
        Future<?> other = threads.submit(() -> {
            appender.append(out -> write(out, "line 2\n"));
            return null;
        });
        secondWaits.await();
        go.countDown();
        whole.get();
        other.get();
        appender.close();
        assertEquals("header\nline 1 of 2\nline 2\n", Files.readString(csv));
    }

    @Test
    void aWaitThatIsInterruptedWritesNothingAndSaysSo() throws Exception {
        Path file = dir.resolve("busy.txt");
        CountDownLatch halfway = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Future<?> first = threads.submit(() -> files.write(file, halting("first", halfway, go, "")));
        halfway.await();
        List<Object> outcome = new ArrayList<>();
        Thread second = new Thread(() -> {
            try {
                files.write(file, out -> write(out, "second"));
                outcome.add("written");
            } catch (OutputException e) {
                outcome.add(e.getMessage());
                outcome.add(Thread.currentThread().isInterrupted());
            }
        });
        second.start();
        secondWaits.await();
        second.interrupt();
        second.join();
        go.countDown();
        first.get();
        assertEquals(List.of("interrupted while waiting for another write to " + file + " to end; nothing was"
                + " written", true), outcome);
        assertEquals("first", Files.readString(file));
        assertEquals(0, files.busyTargets());
    }

    @Test
    void aContentThatWritesItsOwnTargetAgainIsRefusedInsteadOfWaitingForItself() throws Exception {
        Path file = dir.resolve("self.txt");
        OutputException e = assertThrows(OutputException.class, () -> files.write(file, out -> {
            files.write(file, inner -> write(inner, "inner"));
        }));
        assertTrue(e.getMessage().contains("this thread is writing it already"), e.getMessage());
        assertFalse(Files.exists(file));
    }

    private static void write(OutputStream out, String s) {
        try {
            out.write(s.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
