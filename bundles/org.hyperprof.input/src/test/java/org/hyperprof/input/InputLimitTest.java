package org.hyperprof.input;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.hyperprof.api.input.InputTooLargeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reader takes in at most its ceiling, and says which setting raises it. */
class InputLimitTest {

    private final InputLimit tenBytes = new InputLimit("scenario", 10, "scenario.max.mb");

    @Test
    void aStreamOfExactlyTheLimitIsReadAndOneByteMoreIsRefused() throws Exception {
        assertArrayEquals(new byte[10], tenBytes.readAll(new ByteArrayInputStream(new byte[10]), "a"));
        InputTooLargeException e = assertThrows(InputTooLargeException.class,
                () -> tenBytes.readAll(new ByteArrayInputStream(new byte[11]), "a"));
        assertEquals("a: holds more than 10 bytes, the most Hyperprof reads of a scenario; check that it is the file"
                + " you meant, or raise the limit (scenario.max.mb)", e.getMessage());
    }

    @Test
    void aBoundedStreamEndsInTheErrorInsteadOfReturningMore() throws Exception {
        InputStream in = tenBytes.bound(new ByteArrayInputStream(new byte[100]), "a");
        assertEquals(10, in.read(new byte[64]));
        assertThrows(InputTooLargeException.class, () -> in.read(new byte[64]));
    }

    @Test
    void aFileWhoseSizeIsAboveTheLimitIsRefusedBeforeItIsRead(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("big.scenario"), new byte[3 << 20]);
        InputLimit twoMb = InputLimit.ofMegabytes("scenario", 2, "scenario.max.mb");
        try (InputStream in = InputFile.open(file, "scenario")) {
            InputTooLargeException e = assertThrows(InputTooLargeException.class, () -> twoMb.bound(in, "big"));
            assertEquals("big: is 3 MiB, more than the 2 MiB Hyperprof reads of a scenario; check that it is the file"
                    + " you meant, or raise the limit (scenario.max.mb)", e.getMessage());
        }
    }

    @Test
    void aLimitIsAtLeastOneByte() {
        assertThrows(IllegalArgumentException.class, () -> new InputLimit("scenario", 0, "x"));
        assertThrows(IllegalArgumentException.class, () -> InputLimit.ofMegabytes("scenario", 0, "x"));
    }
}
