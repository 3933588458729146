package org.hyperprof.output;

import static org.hyperprof.output.OutputTargets.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.hyperprof.api.output.Appender;
import org.hyperprof.api.output.OutputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OutputFiles.appender: the same resolution as a whole write; a regular file is appended to, never replaced. */
class AppenderTest {

    @TempDir
    Path dir;

    private final OutputFilesComponent files = new OutputFilesComponent();

    @Test
    void aNewFileGetsTheHeaderThenEachChunk() throws Exception {
        Path csv = dir.resolve("rates.csv");
        try (Appender a = files.appender(csv, text("h\n"))) {
            assertEquals("h\n", Files.readString(csv), "the header is there at once, for tail -f");
            a.append(text("1\n"));
            assertEquals("h\n1\n", Files.readString(csv), "each chunk is there once appended");
            a.append(text("2\n"));
        }
        assertEquals("h\n1\n2\n", Files.readString(csv));
    }

    @Test
    void anExistingFileIsAppendedToInPlaceWithoutASecondHeaderKeepingItsMode() throws Exception {
        Path csv = Files.writeString(dir.resolve("rates.csv"), "h\nold\n");
        Files.setPosixFilePermissions(csv, PosixFilePermissions.fromString("rw-r-----"));
        Object inode = Files.getAttribute(csv, "unix:ino");
        try (Appender a = files.appender(csv, text("h\n"))) {
            a.append(text("new\n"));
        }
        assertEquals("h\nold\nnew\n", Files.readString(csv));
        assertEquals(inode, Files.getAttribute(csv, "unix:ino"));
        assertEquals("rw-r-----", OutputTargets.mode(csv));
    }

    @Test
    void anEmptyFileGetsTheHeader() throws Exception {
        Path csv = Files.createFile(dir.resolve("rates.csv"));
        try (Appender a = files.appender(csv, text("h\n"))) {
            a.append(text("1\n"));
        }
        assertEquals("h\n1\n", Files.readString(csv));
    }

    @Test
    void throughALinkTheFileItNamesIsAppendedToAndTheLinkStays() throws Exception {
        Path real = Files.writeString(dir.resolve("real.csv"), "h\n");
        Path link = Files.createSymbolicLink(dir.resolve("rates.csv"), Path.of("real.csv"));
        try (Appender a = files.appender(link, text("h\n"))) {
            assertEquals(real.toRealPath(), a.file());
            a.append(text("1\n"));
        }
        assertEquals("symbolic link", OutputTargets.kind(link));
        assertEquals("h\n1\n", Files.readString(real));
    }

    @Test
    void aFifoIsStreamedIntoWithTheHeaderFirst() throws Exception {
        Path fifo = OutputTargets.fifo(dir, "rates.fifo");
        try (OutputTargets.Reader reader = OutputTargets.readFifo(fifo, 3)) {
            try (Appender a = files.appender(fifo, text("h\n"))) {
                a.append(text("1\n"));
                a.append(text("2\n"));
            }
            assertEquals("h\n1\n2\n", reader.text());
        }
        assertEquals("FIFO", OutputTargets.kind(fifo));
    }

    @Test
    void aCharacterDeviceIsStreamedIntoAndStays() throws Exception {
        Path devNull = OutputTargets.characterDevice(dir, "null", 1, 3);
        try (Appender a = files.appender(devNull, text("h\n"))) {
            a.append(text("1\n"));
        }
        assertEquals("character device", OutputTargets.kind(devNull));
    }

    @Test
    void aMissingFolderIsRefusedWithOneLine() {
        Path csv = dir.resolve("nowhere/rates.csv");
        OutputException e = assertThrows(OutputException.class, () -> files.appender(csv, text("h\n")));
        assertEquals("cannot write " + csv + ": the folder " + csv.getParent() + " does not exist; create it first"
                + " or name a file in an existing folder", e.getMessage());
    }

    @Test
    void aChunkThatFillsTheDiskIsCutBackSoTheFileHoldsOnlyWholeChunks() throws Exception {
        try (OutputTargets.SmallDisk disk = OutputTargets.smallDisk(dir, "small", 64)) {
            Path csv = disk.folder().resolve("rates.csv");
            try (Appender a = files.appender(csv, text("h\n"))) {
                a.append(text("1\n"));
                // The file's first page has room for part of the next chunk, the disk for nothing more.
                disk.fill();
                OutputException e = assertThrows(OutputException.class,
                        () -> a.append(text("2".repeat(60 * 1024) + "\n")));
                assertEquals("could not append to the file " + csv + ": No space left on device; the part written"
                        + " was removed, the file holds only whole chunks", e.getMessage());
            }
            assertEquals("h\n1\n", Files.readString(csv));
        }
    }

    @Test
    void appendingAfterCloseIsAClearError() throws Exception {
        Path csv = dir.resolve("rates.csv");
        Appender a = files.appender(csv, null);
        a.close();
        OutputException e = assertThrows(OutputException.class, () -> a.append(text("1\n")));
        assertEquals("cannot append to " + csv + ": it was closed", e.getMessage());
        assertEquals(List.of("rates.csv"), OutputTargets.names(dir));
        assertTrue(Files.readString(csv).isEmpty());
    }
}
