package org.hyperprof.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.hyperprof.api.output.OutputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OutputFiles.folder: an output folder option (--out DIR) creates its folder; file targets never do. */
class OutputFolderTest {

    @TempDir
    Path dir;

    private final OutputFilesComponent files = new OutputFilesComponent();

    @Test
    void aMissingFolderIsCreatedWithItsParents() throws Exception {
        Path out = dir.resolve("results/2026/study");
        Path made = files.folder(out);
        assertTrue(Files.isDirectory(out));
        assertEquals(out.toRealPath(), made);
    }

    @Test
    void anExistingFolderIsUsedAsItIs() throws Exception {
        assertEquals(dir.toRealPath(), files.folder(dir));
    }

    @Test
    void aLinkToAFolderIsFollowed() throws Exception {
        Path real = Files.createDirectory(dir.resolve("real"));
        Path link = Files.createSymbolicLink(dir.resolve("out"), real);
        assertEquals(real.toRealPath(), files.folder(link));
        assertEquals("symbolic link", OutputTargets.kind(link));
    }

    @Test
    void aLinkToNothingYetMakesTheFolderItNames() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("out"), Path.of("made"));
        files.folder(link);
        assertTrue(Files.isDirectory(dir.resolve("made")));
        assertEquals("symbolic link", OutputTargets.kind(link));
    }

    @Test
    void aFileInThePlaceOfTheFolderIsRefusedWithOneLine() throws Exception {
        Path file = Files.writeString(dir.resolve("out"), "keep me");
        OutputException e = assertThrows(OutputException.class, () -> files.folder(file));
        assertEquals("cannot use " + file + " as the output folder: it exists and is no folder; name a folder",
                e.getMessage());
        assertEquals("keep me", Files.readString(file));
    }

    @Test
    void aFileInThePlaceOfAParentIsRefusedWithOneLine() throws Exception {
        Path file = Files.writeString(dir.resolve("plain"), "keep me");
        OutputException e = assertThrows(OutputException.class, () -> files.folder(file.resolve("sub")));
        assertTrue(e.getMessage().startsWith("cannot create the output folder " + file.resolve("sub") + ": "),
                e.getMessage());
        assertEquals("keep me", Files.readString(file));
    }
}
