package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.output.OutputTargets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hp:export, and the file writers in hp:reports and hp:commands export. The exports go through the real
 * OutputFiles, onto FIFOs, links, private device nodes and a full tmpfs.
 */
class ExportCommandTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Plugins<ReportRenderer> renderers = new Plugins<>();
    private final Plugins<ReportFileWriter> writers = new Plugins<>();
    private final ReportCommands commands = new ReportCommands(io.console, renderers, writers,
            new OutputFilesComponent());
    private final Fakes.FakeWriter flamegraph = new Fakes.FakeWriter("folded: Brendan Gregg's folded stacks",
            "svg: an interactive SVG flame graph");
    private final Fakes.FakeWriter pprof = new Fakes.FakeWriter("pprof: gzipped profile.proto for go tool pprof");

    @TempDir
    Path dir;

    private void installWriters() {
        writers.add(flamegraph, flamegraph, "flamegraph", "org.hyperprof.report.flamegraph 0.1.0");
        writers.add(pprof, pprof, "pprof", "org.hyperprof.report.pprof 0.1.0");
    }

    @Test
    void exportWritesWithTheNamedWriterTheLatestSessionOfAllDomains() throws IOException {
        installWriters();
        Path svg = dir.resolve("hp.svg");
        commands.export("flamegraph", "svg", svg.toString());
        assertEquals(List.of(ReportRequest.latest()), flamegraph.requests);
        assertEquals(List.of(), pprof.requests);
        assertEquals("svg of session -1\n", Files.readString(svg, StandardCharsets.UTF_8));
        assertEquals("wrote the latest session (all domains) as flamegraph svg to " + svg + " (18 bytes)\n"
                + "open it in a web browser: file://" + svg + "\n", io.out());
        assertEquals("", io.err());
    }

    @Test
    void exportPassesSessionAndDomainAndSaysHowToOpenPprof() {
        installWriters();
        Path pb = dir.resolve("hp.pb.gz");
        commands.export("pprof", "pprof", pb.toString(), "--session", "7", "--domain", "1");
        assertEquals(List.of(new ReportRequest(7, 1, java.util.Set.of())), pprof.requests);
        assertTrue(io.out().startsWith("wrote session 7 (dom1) as pprof pprof to " + pb), io.out());
        assertTrue(io.out().endsWith("open it with: go tool pprof -top " + pb + "\n"), io.out());
    }

    @Test
    void wordsAfterTheFileAreTheWritersOptionsAsForAReport() {
        installWriters();
        Path pb = dir.resolve("hp.pb.gz");
        commands.export("pprof", "pprof", pb.toString(), "image=^vmlinux", "--domain", "1", "symbol=^tcp_");
        assertEquals(List.of(new ReportRequest(ReportRequest.LATEST, 1, java.util.Set.of("image=^vmlinux",
                "symbol=^tcp_"))), pprof.requests);
    }

    @Test
    void foldedStacksNeedNoHintToOpen() {
        installWriters();
        commands.export("flamegraph", "folded", dir.resolve("hp.folded").toString());
        assertEquals(1, io.out().split("\n").length, io.out());
    }

    @Test
    void aFifoIsStreamedIntoAndStaysAFifo() {
        installWriters();
        Path fifo = OutputTargets.fifo(dir, "hp.folded");
        try (OutputTargets.Reader reader = OutputTargets.readFifo(fifo, 1)) {
            commands.export("flamegraph", "folded", fifo.toString());
            assertEquals("folded of session -1\n", reader.text());
        }
        assertEquals("FIFO", OutputTargets.kind(fifo));
        assertEquals("streamed the latest session (all domains) as flamegraph folded into " + fifo + " (21 bytes)\n",
                io.out());
        assertEquals("", io.err());
    }

    @Test
    void aSymbolicLinkStaysALinkAndTheFileItNamesGetsTheExport() throws IOException {
        installWriters();
        Path real = Files.writeString(dir.resolve("real.svg"), "old");
        Path link = Files.createSymbolicLink(dir.resolve("hp.svg"), Path.of("real.svg"));
        commands.export("flamegraph", "svg", link.toString());
        assertEquals("symbolic link", OutputTargets.kind(link));
        assertEquals("svg of session -1\n", Files.readString(real));
        assertEquals("wrote the latest session (all domains) as flamegraph svg to " + link + " -> " + real.toRealPath()
                + " (18 bytes)\nopen it in a web browser: file://" + real.toRealPath() + "\n", io.out());
    }

    @Test
    void aCharacterDeviceIsStreamedIntoAndStaysADevice() {
        installWriters();
        Path devNull = OutputTargets.characterDevice(dir, "null", 1, 3);
        commands.export("pprof", "pprof", devNull.toString());
        assertEquals("character device", OutputTargets.kind(devNull));
        assertEquals("streamed the latest session (all domains) as pprof pprof into " + devNull + " (20 bytes)\n",
                io.out());
    }

    @Test
    void aFullDeviceIsOneLineAndStaysADevice() {
        installWriters();
        Path devFull = OutputTargets.characterDevice(dir, "full", 1, 7);
        Fakes.fails(() -> commands.export("pprof", "pprof", devFull.toString()));
        assertEquals("character device", OutputTargets.kind(devFull));
        assertEquals("hp:export: could not write to the character device " + devFull + " after 0 bytes: No space"
                + " left on device\n", io.err());
    }

    @Test
    void anExistingFileIsReplacedWholeKeepingItsMode0640() throws IOException {
        installWriters();
        Path svg = Files.writeString(dir.resolve("hp.svg"), "an older, longer graph");
        Files.setPosixFilePermissions(svg, PosixFilePermissions.fromString("rw-r-----"));
        commands.export("flamegraph", "svg", svg.toString());
        assertEquals("svg of session -1\n", Files.readString(svg));
        assertEquals("rw-r-----", OutputTargets.mode(svg));
        assertEquals(List.of("hp.svg"), OutputTargets.names(dir));
    }

    @Test
    void aFullDiskKeepsTheOldFileAndLeavesNoTemporaryFile() throws IOException {
        installWriters();
        try (OutputTargets.SmallDisk disk = OutputTargets.smallDisk(dir, "small", 64)) {
            Path svg = Files.writeString(disk.folder().resolve("hp.svg"), "yesterday's graph");
            disk.fill();
            List<String> before = OutputTargets.names(disk.folder());
            Fakes.fails(() -> commands.export("flamegraph", "svg", svg.toString()));
            assertEquals("hp:export: could not write " + svg + ": No space left on device; the file there before is"
                    + " unchanged\n", io.err());
            assertEquals("yesterday's graph", Files.readString(svg));
            assertEquals(before, OutputTargets.names(disk.folder()));
        }
    }

    @Test
    void aMissingWriterIsOneLineListingTheInstalledOnes() {
        installWriters();
        Fakes.fails(() -> commands.export("speedscope", "json", dir.resolve("x.json").toString()));
        assertEquals("", io.out());
        assertEquals("hp:export: no report file writer 'speedscope' is installed; installed are flamegraph, pprof"
                + " (hp:reports)\n", io.err());
    }

    @Test
    void withNoWriterInstalledTheLineSaysNone() {
        Fakes.fails(() -> commands.export("pprof", "pprof", dir.resolve("x").toString()));
        assertEquals("hp:export: no report file writer 'pprof' is installed; installed are none (hp:reports)\n",
                io.err());
    }

    @Test
    void withoutTheOutputServiceTheLineSaysWhichBundleToStart() {
        ReportCommands noOutput = new ReportCommands(io.console, renderers, writers, null);
        installWriters();
        Fakes.fails(() -> noOutput.export("flamegraph", "svg", dir.resolve("hp.svg").toString()));
        assertEquals("hp:export: no output service is active, so nothing can be written; start the bundle"
                + " org.hyperprof.output (lb lists the bundles)\n", io.err());
        assertEquals(List.of(), OutputTargets.names(dir));
    }

    @Test
    void aFormatTheWriterDoesNotListIsRefusedBeforeWritingWithAnExample() {
        installWriters();
        Path png = dir.resolve("hp.png");
        Fakes.fails(() -> commands.export("flamegraph", "png", png.toString()));
        assertEquals(List.of(), flamegraph.requests);
        assertEquals("hp:export: flamegraph writes folded, svg, not 'png'; e.g. hp:export flamegraph folded " + png
                + "\n", io.err());
        assertEquals(List.of(), OutputTargets.names(dir));
    }

    @Test
    void aFolderThatDoesNotExistIsRefusedInOneLineAndNotCreated() {
        installWriters();
        Path missing = dir.resolve("no/such/dir/hp.svg");
        Fakes.fails(() -> commands.export("flamegraph", "svg", missing.toString()));
        assertEquals("hp:export: cannot write " + missing + ": the folder " + missing.getParent() + " does not exist;"
                + " create it first or name a file in an existing folder\n", io.err());
        assertEquals(List.of(), OutputTargets.names(dir));
    }

    @Test
    void aFolderAsTheTargetIsRefused() {
        installWriters();
        Fakes.fails(() -> commands.export("flamegraph", "svg", dir.toString()));
        assertEquals("hp:export: cannot write " + dir + ": it is a folder; name a file in it\n", io.err());
    }

    @Test
    void theWritersOwnRefusalIsNamedAfterItAndTouchesNoFile() throws IOException {
        installWriters();
        flamegraph.failure = new ReportException("no session 9; sessions are 7");
        Path svg = dir.resolve("hp.svg");
        Path kept = Files.writeString(dir.resolve("kept.svg"), "kept");
        Fakes.fails(() -> commands.export("flamegraph", "svg", svg.toString(), "--session", "9"));
        Fakes.fails(() -> commands.export("flamegraph", "svg", kept.toString(), "--session", "9"));
        assertFalse(Files.exists(svg));
        assertEquals("kept", Files.readString(kept));
        assertEquals(List.of("kept.svg"), OutputTargets.names(dir));
        assertEquals("", io.out());
        assertEquals("hp:export: flamegraph: no session 9; sessions are 7\n".repeat(2), io.err());
    }

    @Test
    void anIoFailureWhileWritingSaysWhatFailedAndWhatWasLeft() {
        installWriters();
        Path svg = dir.resolve("hp.svg");
        flamegraph.ioFailure = new AccessDeniedException(svg + ".tmp");
        Fakes.fails(() -> commands.export("flamegraph", "svg", svg.toString()));
        assertEquals("hp:export: could not write " + svg + ": permission denied; no file was left behind\n",
                io.err());
        assertEquals(List.of(), OutputTargets.names(dir));
    }

    @Test
    void aRelativeFileIsWrittenAndReportedAsAnAbsolutePath() {
        Path target = ReportCommands.target("hp-relative.svg");
        assertTrue(target.isAbsolute(), target.toString());
        assertEquals(Path.of("").toAbsolutePath().resolve("hp-relative.svg"), target);
    }

    @Test
    void aTildeMeansTheHomeDirectory() {
        assertEquals(Path.of(System.getProperty("user.home"), "hp.svg").normalize(), ReportCommands.target("~/hp.svg"));
    }

    @Test
    void reportsListWritersWithTheirFormatsAfterTheRenderers() {
        installWriters();
        Fakes.FakeRenderer opreport = new Fakes.FakeRenderer();
        renderers.add(opreport, opreport, "opreport", "org.hyperprof.report.opreport 0.1.0");
        PluginCommands plugins = new PluginCommands(null, io.console, new Plugins<>(), new Plugins<>(),
                new Plugins<>(), new Plugins<>(), renderers, writers);
        plugins.reports();
        String out = io.out();
        assertTrue(out.contains("FILE WRITER  BUNDLE                                 SESSIONS  FORMATS\n"
                + "flamegraph   org.hyperprof.report.flamegraph 0.1.0  [7]       folded, svg\n"
                + "pprof        org.hyperprof.report.pprof 0.1.0       [7]       pprof\n"), out);
        assertTrue(out.contains("flamegraph formats (hp:export flamegraph <format> <file>):\n"
                + "  folded: Brendan Gregg's folded stacks\n  svg: an interactive SVG flame graph\n"), out);
        assertTrue(out.indexOf("opreport options") < out.indexOf("FILE WRITER"), out);
    }

    @Test
    void reportsWithoutWritersSaysWhichBundlesWriteFiles() {
        new PluginCommands(null, io.console, new Plugins<>(), new Plugins<>(), new Plugins<>(), new Plugins<>(),
                renderers, writers).reports();
        assertTrue(io.out().endsWith("no report file writers installed: start a writer bundle, e.g."
                + " org.hyperprof.report.pprof or org.hyperprof.report.flamegraph\n"), io.out());
    }

    @Test
    void helpExportListsTheInstalledWritersFormats() {
        installWriters();
        new HelpCommands(io.console, renderers, writers).commands("export");
        String out = io.out();
        assertTrue(out.startsWith("usage: hp:export <name> <format> <file> [--session ID|NAME] [--domain D] [option...]\n"), out);
        assertTrue(out.endsWith("pprof formats (hp:export pprof <format> <file>):\n"
                + "  pprof: gzipped profile.proto for go tool pprof\n"), out);
    }

    @Test
    void helpReportListsTheInstalledRenderersOptionsOrSaysThereAreNone() {
        new HelpCommands(io.console, renderers, writers).commands("report");
        assertTrue(io.out().endsWith("no report renderer is installed right now (hp:reports)\n"), io.out());
        Fakes.FakeRenderer opreport = new Fakes.FakeRenderer();
        opreport.options = List.of("callgraph: the call graph, as opreport -c", "merge=all: merge vCPUs");
        renderers.add(opreport, opreport, "opreport", "org.hyperprof.report.opreport 0.1.0");
        new HelpCommands(io.console, renderers, writers).commands("report");
        assertTrue(io.out().endsWith("opreport options (hp:report --renderer opreport <option>...):\n"
                + "  callgraph: the call graph, as opreport -c\n  merge=all: merge vCPUs\n"), io.out());
    }
}
