package org.hyperprof.report.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReportFileWriter: the folded and svg contents, every refusal made before a content exists (so
 * before any file is touched). Where the bytes go is OutputFiles' business and tested there.
 */
class FileWriterTest {

    @TempDir
    Path dir;

    @Test
    void theFormatsAreFoldedSvgAndJsonEachWithADescription() {
        List<String> formats = new FlameGraphConsumer().formats();
        assertEquals(3, formats.size());
        assertTrue(formats.get(0).startsWith("folded: "), formats.get(0));
        assertTrue(formats.get(1).startsWith("svg: "), formats.get(1));
        assertTrue(formats.get(2).startsWith("json: "), formats.get(2));
    }

    @Test
    void theFoldedFileHoldsExactlyWhatTheRendererPrints() throws Exception {
        FlameGraphConsumer consumer = new NetworkStacks(1).completed();
        Path written = Reports.written(consumer, ReportRequest.latest(), "folded", dir.resolve("net.folded"));
        assertEquals(NetworkStacks.FOLDED, Files.readString(written, StandardCharsets.UTF_8));
        assertEquals(NetworkStacks.FOLDED, Reports.folded(consumer));
    }

    @Test
    void formatNamesIgnoreCase() throws Exception {
        assertTrue(bytes(new NetworkStacks(1).completed().content(ReportRequest.latest(), " SVG "))
                .startsWith("<?xml"));
    }

    @Test
    void theContentIsTakenWhenAskedForNotWhenWritten() throws Exception {
        NetworkStacks n = new NetworkStacks(1);
        FlameGraphConsumer consumer = n.completed();
        Content before = consumer.content(ReportRequest.latest(), "folded");
        consumer.sessionStarted(new NetworkStacks(2).info);
        assertEquals(NetworkStacks.FOLDED, bytes(before));
    }

    @Test
    void anUnknownFormatIsAClearErrorListingTheFormats() {
        ReportException e = assertThrows(ReportException.class,
                () -> new NetworkStacks(1).completed().content(ReportRequest.latest(), "png"));
        assertTrue(e.getMessage().contains("no format 'png'"), e.getMessage());
        assertTrue(e.getMessage().contains("folded: ") && e.getMessage().contains("svg: "), e.getMessage());
    }

    @Test
    void aRefusedRequestLeavesAnExistingFileAlone() throws Exception {
        Path target = Files.writeString(dir.resolve("flame.svg"), "yesterday's graph");
        assertThrows(ReportException.class, () -> Reports.written(new NetworkStacks(1).completed(),
                new ReportRequest(ReportRequest.LATEST, -1, Set.of("counter=9")), "svg", target));
        assertEquals("yesterday's graph", Files.readString(target));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("flame.svg"), files.map(p -> p.getFileName().toString()).toList());
        }
    }

    private static String bytes(Content content) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        content.writeTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
