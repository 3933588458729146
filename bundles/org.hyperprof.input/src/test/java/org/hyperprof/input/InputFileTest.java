package org.hyperprof.input;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.hyperprof.api.input.FileKind;
import org.hyperprof.api.input.NotAFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a path names decides whether it is read: regular files (procfs ones as streams), nothing else. */
class InputFileTest {

    @TempDir
    Path dir;

    @Test
    void aRegularFileIsReadAndOffersAChannel() throws Exception {
        Path file = Files.write(dir.resolve("a.map"), new byte[] {1, 2, 3});
        assertEquals(FileKind.REGULAR, InputFile.kind(file));
        try (InputStream in = InputFile.open(file, "symbol file")) {
            assertArrayEquals(new byte[] {1, 2, 3}, in.readAllBytes());
        }
        try (FileChannel ch = InputFile.openChannel(file, "symbol file")) {
            assertEquals(3, ch.size());
        }
    }

    @Test
    void aProcfsFileThatReportsSizeZeroIsReadAsAStreamWithoutAChannel() throws Exception {
        Path status = Path.of("/proc/self/status");
        assumeTrue(Files.isRegularFile(status) && Files.size(status) == 0, "a procfs file of size 0");
        assertNull(InputFile.openChannel(status, "file"));
        try (InputStream in = InputFile.open(status, "file")) {
            assertTrue(in.readAllBytes().length > 0, "read to its end though its size is 0");
        }
    }

    @Test
    void aDirectoryIsRefusedSayingWhatToGiveInstead() {
        NotAFileException e = assertThrows(NotAFileException.class, () -> InputFile.open(dir, "scenario"));
        assertEquals(FileKind.DIRECTORY, e.kind());
        assertEquals(dir + ": is a directory, not a regular file: Hyperprof reads a scenario only from a regular file;"
                + " give the path of the scenario in it", e.getMessage());
        assertEquals(dir.toString(), e.location());
    }

    @Test
    void aDeviceIsRefusedEvenThroughALink() throws Exception {
        Path zero = Path.of("/dev/zero");
        assumeTrue(Files.exists(zero));
        Path link = Files.createSymbolicLink(dir.resolve("System.map"), zero);
        NotAFileException e = assertThrows(NotAFileException.class, () -> InputFile.openChannel(link, "symbol file"));
        assertEquals(FileKind.CHARACTER_DEVICE, e.kind());
        assertEquals(link + ": is a character device (through a link to /dev/zero), not a regular file: Hyperprof"
                + " reads a symbol file only from a regular file; a device such as /dev/zero or a terminal never ends:"
                + " give a regular file", e.getMessage());
    }

    @Test
    void aSocketIsRefused() throws Exception {
        Path socket = dir.resolve("s");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            NotAFileException e = assertThrows(NotAFileException.class, () -> InputFile.open(socket, "scenario"));
            assertEquals(FileKind.SOCKET, e.kind());
            assertTrue(e.getMessage().startsWith(socket + ": is a socket, not a regular file"), e.getMessage());
        }
    }

    @Test
    void aMissingFileIsTheFileSystemsOwnError() {
        assertThrows(NoSuchFileException.class, () -> InputFile.open(dir.resolve("missing"), "scenario"));
    }
}
