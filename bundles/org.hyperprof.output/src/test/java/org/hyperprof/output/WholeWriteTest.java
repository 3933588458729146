package org.hyperprof.output;

import static org.hyperprof.output.OutputTargets.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.List;
import java.util.stream.Stream;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.output.OutputException;
import org.hyperprof.api.output.Written;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OutputFiles.write: one rule for every target a whole output is written to. */
class WholeWriteTest {

    @TempDir
    Path dir;

    private final OutputFilesComponent files = new OutputFilesComponent();

    // ---------------------------------------------------------------- links

    @Test
    void aSymbolicLinkStaysALinkAndTheFileItNamesGetsTheContent() throws Exception {
        Path real = Files.writeString(dir.resolve("real.svg"), "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.svg"), Path.of("real.svg"));
        Written w = files.write(link, text("new"));
        assertEquals("symbolic link", OutputTargets.kind(link));
        assertEquals(Path.of("real.svg"), Files.readSymbolicLink(link));
        assertEquals("new", Files.readString(real));
        assertEquals(real.toRealPath(), w.file());
        assertEquals(Written.Placement.REPLACED, w.placement());
        assertTrue(w.throughLink());
        assertEquals(List.of("link.svg", "real.svg"), OutputTargets.names(dir), "no temporary file left");
    }

    @Test
    void aChainOfLinksIntoAnotherFolderIsFollowedToItsEndAndTheTemporaryFileGoesThere() throws Exception {
        Path other = Files.createDirectory(dir.resolve("other"));
        Path real = Files.writeString(other.resolve("real.folded"), "old");
        Path middle = Files.createSymbolicLink(dir.resolve("middle"), real);
        Path first = Files.createSymbolicLink(dir.resolve("first"), Path.of("middle"));
        Content observed = out -> {
            List<String> there = OutputTargets.names(other);
            assertTrue(there.size() == 2 && there.get(0).startsWith(".real.folded."),
                    "the temporary file is made in the folder of the file the links name: " + there);
            out.write("new".getBytes(StandardCharsets.UTF_8));
        };
        files.write(first, observed);
        assertEquals("new", Files.readString(real));
        assertEquals("symbolic link", OutputTargets.kind(first));
        assertEquals("symbolic link", OutputTargets.kind(middle));
        assertEquals(List.of("real.folded"), OutputTargets.names(other));
    }

    @Test
    void aLinkToNothingYetCreatesTheFileItNames() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("latest.svg"), Path.of("run-1.svg"));
        Written w = files.write(link, text("svg"));
        assertEquals("symbolic link", OutputTargets.kind(link));
        assertEquals("svg", Files.readString(dir.resolve("run-1.svg")));
        assertEquals(Written.Placement.CREATED, w.placement());
    }

    @Test
    void linksThatLoopAreOneLine() throws Exception {
        Files.createSymbolicLink(dir.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(dir.resolve("b"), Path.of("a"));
        OutputException e = assertThrows(OutputException.class, () -> files.write(dir.resolve("a"), text("x")));
        assertOneLine(e);
        assertTrue(e.getMessage().contains("symbolic links to follow (a loop?)"), e.getMessage());
    }

    // ---------------------------------------------------------------- targets that are no regular file

    @Test
    void aFifoIsStreamedIntoAndStaysAFifo() throws Exception {
        Path fifo = OutputTargets.fifo(dir, "profile.fifo");
        try (OutputTargets.Reader reader = OutputTargets.readFifo(fifo, 2)) {
            Written w = files.write(fifo, text("line 1\nline 2\n"));
            assertEquals("line 1\nline 2\n", reader.text());
            assertEquals(Written.Placement.STREAMED, w.placement());
            assertEquals(14, w.bytes());
        }
        assertEquals("FIFO", OutputTargets.kind(fifo));
        assertEquals(List.of("profile.fifo"), OutputTargets.names(dir));
    }

    @Test
    void aLinkToAFifoIsStreamedIntoAndBothStay() throws Exception {
        Path fifo = OutputTargets.fifo(dir, "pipe");
        Path link = Files.createSymbolicLink(dir.resolve("out.svg"), fifo);
        try (OutputTargets.Reader reader = OutputTargets.readFifo(fifo, 1)) {
            files.write(link, text("<svg/>\n"));
            assertEquals("<svg/>\n", reader.text());
        }
        assertEquals("symbolic link", OutputTargets.kind(link));
        assertEquals("FIFO", OutputTargets.kind(fifo));
    }

    @Test
    void aCharacterDeviceIsStreamedIntoAndStaysADevice() throws Exception {
        Path devNull = OutputTargets.characterDevice(dir, "null", 1, 3);
        Written w = files.write(devNull, text("discarded"));
        assertEquals("character device", OutputTargets.kind(devNull));
        assertEquals(Written.Placement.STREAMED, w.placement());
        assertEquals(List.of("null"), OutputTargets.names(dir));
    }

    @Test
    void aFullDeviceIsAOneLineErrorAndStaysADevice() {
        Path devFull = OutputTargets.characterDevice(dir, "full", 1, 7);
        OutputException e = assertThrows(OutputException.class, () -> files.write(devFull, text("x".repeat(100))));
        assertOneLine(e);
        assertEquals("could not write to the character device " + devFull + " after 0 bytes: No space left on device",
                e.getMessage());
        assertEquals("character device", OutputTargets.kind(devFull));
        assertEquals(List.of("full"), OutputTargets.names(dir));
    }

    @Test
    void aUnixSocketIsConnectedToAndWrittenInto() throws Exception {
        try (OutputTargets.Reader reader = OutputTargets.listen(dir, "collector.sock")) {
            Written w = files.write(dir.resolve("collector.sock"), text("stacks 1\n"));
            assertEquals("stacks 1\n", reader.text());
            assertEquals(Written.Placement.STREAMED, w.placement());
        }
        assertEquals("socket", OutputTargets.kind(dir.resolve("collector.sock")));
    }

    @Test
    void aDescriptorUnderProcSelfFdIsWrittenThroughAndItsFileAppendedToNotReplaced() throws Exception {
        Path redirected = Files.writeString(dir.resolve("stdout.txt"), "the report before\n");
        Object inode = Files.getAttribute(redirected, "unix:ino");
        try (FileChannel open = FileChannel.open(redirected, StandardOpenOption.READ)) {
            Path descriptor = descriptorOf(redirected);
            Written w = files.write(descriptor, text("the export\n"));
            assertEquals(Written.Placement.STREAMED, w.placement());
        }
        assertEquals("the report before\nthe export\n", Files.readString(redirected));
        assertEquals(inode, Files.getAttribute(redirected, "unix:ino"), "the same file, not a new one");
    }

    @Test
    void devStdoutRedirectedToAFileGetsTheOutputInLineWithWhatTheProcessPrints() throws Exception {
        for (String target : List.of("/dev/stdout", "/proc/self/fd/1", "/dev/fd/1")) {
            Path redirected = dir.resolve("stdout-" + target.replace('/', '_'));
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), StandardOutputChild.class.getName(), target)
                    .redirectOutput(redirected.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            assertEquals(0, child.waitFor(), target);
            assertEquals("before\nexport\nafter\n", Files.readString(redirected), target);
        }
    }

    @Test
    void aBlockDeviceIsRefusedUntouched() {
        Path disk = OutputTargets.blockDevice(dir, "loop");
        OutputException e = assertThrows(OutputException.class, () -> files.write(disk, text("x")));
        assertOneLine(e);
        assertTrue(e.getMessage().endsWith("is a block device (a disk); Hyperprof writes files, FIFOs, character"
                + " devices and sockets, never over a disk"), e.getMessage());
        assertEquals("block device", OutputTargets.kind(disk));
    }

    // ---------------------------------------------------------------- regular files

    @Test
    void anExistingFileIsReplacedWholeAndKeepsItsMode0640() throws Exception {
        Path file = Files.writeString(dir.resolve("hp.pb.gz"), "old contents that are longer than the new ones");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        Object inode = Files.getAttribute(file, "unix:ino");
        Written w = files.write(file, text("new"));
        assertEquals("new", Files.readString(file));
        assertEquals("rw-r-----", OutputTargets.mode(file));
        assertEquals(Written.Placement.REPLACED, w.placement());
        assertFalse(inode.equals(Files.getAttribute(file, "unix:ino")), "replaced by a rename, not rewritten");
        assertEquals(List.of("hp.pb.gz"), OutputTargets.names(dir));
    }

    @Test
    void anExistingFileOfAnotherUserKeepsItsOwnerAndGroupWhenRootReplacesIt() throws Exception {
        Path file = Files.writeString(dir.resolve("theirs.svg"), "old");
        UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
        try {
            Files.setOwner(file, users.lookupPrincipalByName("nobody"));
            Files.getFileAttributeView(file, java.nio.file.attribute.PosixFileAttributeView.class)
                    .setGroup(users.lookupPrincipalByGroupName("nogroup"));
        } catch (IOException notRoot) {
            Assumptions.abort("giving a file away needs root");
        }
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
        files.write(file, text("new"));
        assertEquals("nobody", Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName());
        assertEquals("nogroup", Files.readAttributes(file, java.nio.file.attribute.PosixFileAttributes.class)
                .group().getName());
        assertEquals("rw-rw----", OutputTargets.mode(file));
    }

    @Test
    void aNewFileGetsTheModeAnyNewFileGetsNotATemporaryFilesOwnerOnlyMode() throws Exception {
        Path reference = Files.createFile(dir.resolve("reference"));
        Written w = files.write(dir.resolve("new.svg"), text("svg"));
        assertEquals(OutputTargets.mode(reference), OutputTargets.mode(dir.resolve("new.svg")));
        assertEquals(Written.Placement.CREATED, w.placement());
        assertEquals(3, w.bytes());
    }

    @Test
    void aContentThatClosesItsStreamStillGetsEverythingWritten() throws Exception {
        Path file = dir.resolve("closed.txt");
        files.write(file, out -> {
            try (out) {
                out.write("all of it".getBytes(StandardCharsets.UTF_8));
            }
        });
        assertEquals("all of it", Files.readString(file));
    }

    @Test
    void aContentThatFailsLeavesTheOldFileAndNoTemporaryFile() throws Exception {
        Path file = Files.writeString(dir.resolve("keep.folded"), "yesterday");
        OutputException e = assertThrows(OutputException.class, () -> files.write(file, out -> {
            out.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("the source went away");
        }));
        assertOneLine(e);
        assertEquals("could not write " + file + ": the source went away; the file there before is unchanged",
                e.getMessage());
        assertEquals("yesterday", Files.readString(file));
        assertEquals(List.of("keep.folded"), OutputTargets.names(dir));
        assertEquals(0, files.busyTargets(), "no lock left held");
    }

    @Test
    void aFullDiskLeavesTheOldFileIntactAndNoTemporaryFile() throws Exception {
        try (OutputTargets.SmallDisk disk = OutputTargets.smallDisk(dir, "small", 64)) {
            Path file = Files.writeString(disk.folder().resolve("hp.svg"), "the old graph");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
            disk.fill();
            List<String> before = OutputTargets.names(disk.folder());
            OutputException e = assertThrows(OutputException.class,
                    () -> files.write(file, text("x".repeat(256 * 1024))));
            assertOneLine(e);
            assertEquals("could not write " + file + ": No space left on device; the file there before is unchanged",
                    e.getMessage());
            assertEquals("the old graph", Files.readString(file));
            assertEquals("rw-r-----", OutputTargets.mode(file));
            assertEquals(before, OutputTargets.names(disk.folder()), "no temporary file left");
        }
    }

    @Test
    void aFullDiskWithNoOldFileLeavesNothingBehind() throws Exception {
        try (OutputTargets.SmallDisk disk = OutputTargets.smallDisk(dir, "small", 64)) {
            disk.fill();
            List<String> before = OutputTargets.names(disk.folder());
            Path file = disk.folder().resolve("new.pb.gz");
            OutputException e = assertThrows(OutputException.class,
                    () -> files.write(file, text("x".repeat(256 * 1024))));
            assertEquals("could not write " + file + ": No space left on device; no file was left behind",
                    e.getMessage());
            assertEquals(before, OutputTargets.names(disk.folder()));
        }
    }

    // ---------------------------------------------------------------- refusals

    @Test
    void aTargetWhoseFolderIsMissingIsRefusedWithOneLineAndNothingIsCreated() {
        Path target = dir.resolve("no/such/folder/hp.svg");
        OutputException e = assertThrows(OutputException.class, () -> files.write(target, text("x")));
        assertOneLine(e);
        assertEquals("cannot write " + target + ": the folder " + target.getParent() + " does not exist; create it"
                + " first or name a file in an existing folder", e.getMessage());
        assertEquals(List.of(), OutputTargets.names(dir));
    }

    @Test
    void aLinkIntoAMissingFolderIsRefusedNamingWhereItLeads() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("hp.svg"), dir.resolve("gone/hp.svg"));
        OutputException e = assertThrows(OutputException.class, () -> files.write(link, text("x")));
        assertEquals("cannot write " + link + ": the folder " + dir.resolve("gone") + " (where its link leads) does"
                + " not exist; create it first or name a file in an existing folder", e.getMessage());
        assertEquals(List.of("hp.svg"), OutputTargets.names(dir));
    }

    @Test
    void aFolderAsTargetIsRefused() {
        OutputException e = assertThrows(OutputException.class, () -> files.write(dir, text("x")));
        assertEquals("cannot write " + dir + ": it is a folder; name a file in it", e.getMessage());
    }

    @Test
    void aFileInPlaceOfAFolderIsRefused() throws Exception {
        Path notAFolder = Files.writeString(dir.resolve("plain"), "x");
        OutputException e = assertThrows(OutputException.class,
                () -> files.write(notAFolder.resolve("hp.svg"), text("x")));
        assertOneLine(e);
        assertTrue(e.getMessage().startsWith("cannot write " + notAFolder.resolve("hp.svg") + ": "), e.getMessage());
        assertEquals("x", Files.readString(notAFolder));
    }

    @Test
    void aRelativeTargetIsTakenFromTheWorkingDirectory() throws Exception {
        Path target = Path.of("target", "output-relative-" + ProcessHandle.current().pid() + ".txt");
        try {
            Written w = files.write(target, text("here"));
            assertEquals(target.toAbsolutePath(), w.target());
            assertEquals("here", Files.readString(target));
        } finally {
            Files.deleteIfExists(target);
        }
    }

    static void assertOneLine(Exception e) {
        assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("\r"), e.getMessage());
    }

    /** The /proc/self/fd entry of a file this JVM holds open. */
    static Path descriptorOf(Path file) throws IOException {
        Path real = file.toRealPath();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).equals(real)) {
                        return Path.of("/proc/self/fd").resolve(fd.getFileName());
                    }
                } catch (IOException closedMeanwhile) {
                    // The listing's own descriptor, gone by now.
                }
            }
        }
        throw new AssertionError("no descriptor of " + real + " is open");
    }
}
