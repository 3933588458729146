package org.hyperprof.report.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ReportFileWriter: folded and svg files, written whole or not at all. */
class FileWriterTest {

    @TempDir
    Path dir;

    @Test
    void theFormatsAreFoldedAndSvgEachWithADescription() {
        List<String> formats = new FlameGraphConsumer().formats();
        assertEquals(2, formats.size());
        assertTrue(formats.get(0).startsWith("folded: "), formats.get(0));
        assertTrue(formats.get(1).startsWith("svg: "), formats.get(1));
    }

    @Test
    void theFoldedFileHoldsExactlyWhatTheRendererPrints() throws Exception {
        FlameGraphConsumer consumer = new NetworkStacks(1).completed();
        Path written = consumer.write(ReportRequest.latest(), "folded", dir.resolve("net.folded"));
        assertEquals(dir.resolve("net.folded").toAbsolutePath(), written);
        assertEquals(NetworkStacks.FOLDED, Files.readString(written, StandardCharsets.UTF_8));
        assertEquals(NetworkStacks.FOLDED, Reports.folded(consumer));
    }

    @Test
    void formatNamesIgnoreCase() throws Exception {
        Path written = new NetworkStacks(1).completed().write(ReportRequest.latest(), " SVG ", dir.resolve("a.svg"));
        assertTrue(Files.readString(written).startsWith("<?xml"));
    }

    @Test
    void anExistingFileIsReplacedWhole() throws Exception {
        Path target = dir.resolve("net.folded");
        Files.writeString(target, "old contents that are longer than the new ones ".repeat(100));
        new NetworkStacks(1).completed().write(ReportRequest.latest(), "folded", target);
        assertEquals(NetworkStacks.FOLDED, Files.readString(target));
        assertEquals(List.of(target), files());
    }

    @Test
    void anUnknownFormatIsAClearErrorListingTheFormatsAndWritesNothing() {
        ReportException e = assertThrows(ReportException.class, () -> new NetworkStacks(1).completed()
                .write(ReportRequest.latest(), "png", dir.resolve("flame.png")));
        assertTrue(e.getMessage().contains("no format 'png'"), e.getMessage());
        assertTrue(e.getMessage().contains("folded: ") && e.getMessage().contains("svg: "), e.getMessage());
        assertEquals(List.of(), files());
    }

    @Test
    void aFailedRequestLeavesAnExistingFileAlone() throws Exception {
        Path target = dir.resolve("flame.svg");
        Files.writeString(target, "yesterday's graph");
        assertThrows(ReportException.class, () -> new NetworkStacks(1).completed()
                .write(new ReportRequest(ReportRequest.LATEST, -1, Set.of("counter=9")), "svg", target));
        assertEquals("yesterday's graph", Files.readString(target));
        assertEquals(List.of(target), files(), "no temporary file left");
    }

    @Test
    void aMissingDirectoryIsAClearError() {
        Path target = dir.resolve("no/such/dir/flame.svg");
        ReportException e = assertThrows(ReportException.class,
                () -> new NetworkStacks(1).completed().write(ReportRequest.latest(), "svg", target));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void aDirectoryAsTargetIsAClearErrorSuggestingAFileName() {
        ReportException e = assertThrows(ReportException.class,
                () -> new NetworkStacks(1).completed().write(ReportRequest.latest(), "svg", dir));
        assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
        assertTrue(e.getMessage().contains("flame.svg"), e.getMessage());
    }

    @Test
    void theFileGetsTheUsualPermissionsOfANewFileNotThoseOfATemporaryOne() throws Exception {
        Path reference = Files.createFile(dir.resolve("reference"));
        Path written = new NetworkStacks(1).completed().write(ReportRequest.latest(), "svg", dir.resolve("f.svg"));
        assertEquals(Files.getPosixFilePermissions(reference), Files.getPosixFilePermissions(written));
    }

    @Test
    void noTargetIsAClearError() {
        ReportException e = assertThrows(ReportException.class,
                () -> new NetworkStacks(1).completed().write(ReportRequest.latest(), "svg", null));
        assertTrue(e.getMessage().contains("give a file name"), e.getMessage());
    }

    private List<Path> files() {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> !p.equals(dir)).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
