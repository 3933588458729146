package org.hyperprof.example.domainrates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.output.OutputTargets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example consumer's CSV, its settings, and how it behaves when things go wrong. */
class DomainRatesConsumerTest {

    @TempDir
    Path dir;

    private final OutputFiles files = new OutputFilesComponent();

    private List<String> lines(Path file) throws Exception {
        return Files.readAllLines(file, StandardCharsets.UTF_8);
    }

    /** The lines of rates.csv in the test's folder. */
    private List<String> lines() throws Exception {
        return lines(dir.resolve("rates.csv"));
    }

    /** A consumer writing rates.csv in the test's folder, told that {@code session} started with {@code counters}. */
    private DomainRatesConsumer started(long session, CounterConfig... counters) {
        DomainRatesConsumer consumer = new DomainRatesConsumer(dir.resolve("rates.csv"), null, files);
        consumer.sessionStarted(Sessions.session(session, counters));
        return consumer;
    }

    @Test
    void aNewFileStartsWithTheHeaderLine() throws Exception {
        started(1, Sessions.CYCLES);
        assertEquals(List.of(CsvFile.HEADER), lines());
    }

    @Test
    void eachBatchGivesOneLinePerDomainWithItsShareAndItsCountSoFar() throws Exception {
        DomainRatesConsumer consumer = started(1, Sessions.CYCLES);
        consumer.samples(Sessions.repeated(1, 0, 3, 1));
        consumer.samples(Sessions.repeated(1, 0, 1, 3));
        assertEquals(List.of(CsvFile.HEADER,
                "1,batch,1,0,Domain-0,0,CPU_CLK_UNHALTED,3,75.00,3,,,",
                "1,batch,1,1,domU,0,CPU_CLK_UNHALTED,1,25.00,1,,,",
                "1,batch,2,0,Domain-0,0,CPU_CLK_UNHALTED,1,25.00,4,,,",
                "1,batch,2,1,domU,0,CPU_CLK_UNHALTED,3,75.00,4,,,"), lines());
    }

    @Test
    void sharesAreTakenPerCounter() throws Exception {
        DomainRatesConsumer consumer = started(2, Sessions.CYCLES, Sessions.INSTRUCTIONS);
        consumer.samples(Sessions.batch(2, 0, 0, 1, 0, 0, 1));
        assertEquals(List.of(CsvFile.HEADER,
                "2,batch,1,0,Domain-0,0,CPU_CLK_UNHALTED,1,50.00,1,,,",
                "2,batch,1,0,Domain-0,1,INST_RETIRED,1,100.00,1,,,",
                "2,batch,1,1,domU,0,CPU_CLK_UNHALTED,1,50.00,1,,,"), lines());
    }

    @Test
    void aDomainAbsentFromABatchGetsNoLineForIt() throws Exception {
        DomainRatesConsumer consumer = started(1, Sessions.CYCLES);
        consumer.samples(Sessions.repeated(1, 0, 2, 2));
        consumer.samples(Sessions.repeated(1, 0, 4, 0));
        assertEquals("1,batch,2,0,Domain-0,0,CPU_CLK_UNHALTED,4,100.00,6,,,", lines().get(3));
        assertEquals(4, lines().size());
    }

    @Test
    void theSessionsEndGivesTotalsWithRatesFromTheSimulatedClock() throws Exception {
        DomainRatesConsumer consumer = started(3, Sessions.CYCLES);
        consumer.samples(Sessions.repeated(3, 0, 300, 100));
        // 4e9 cycles at 2000 MHz: 2 simulated seconds.
        consumer.sessionEnded(Sessions.ended(3, 4_000_000_000L));
        List<String> lines = lines();
        assertEquals("3,total,1,0,Domain-0,0,CPU_CLK_UNHALTED,300,75.00,300,2.000000,150.000,15000000.0",
                lines.get(3));
        assertEquals("3,total,1,1,domU,0,CPU_CLK_UNHALTED,100,25.00,100,2.000000,50.000,5000000.0", lines.get(4));
    }

    @Test
    void withoutASimulatedClockTotalsCarryNoRates() throws Exception {
        DomainRatesConsumer consumer = started(4, Sessions.CYCLES);
        consumer.samples(Sessions.repeated(4, 0, 1, 0));
        consumer.sessionEnded(Sessions.ended(4, 0));
        assertEquals("4,total,1,0,Domain-0,0,CPU_CLK_UNHALTED,1,100.00,1,,,", lines().get(2));
    }

    @Test
    void domainNamesWithCommasOrQuotesAreQuotedAsCsvRequires() throws Exception {
        DomainRatesConsumer consumer = started(5, Sessions.CYCLES);
        consumer.samples(Sessions.batch(5, 2, 0));
        assertEquals("5,batch,1,2,\"web, \"\"front\"\"\",0,CPU_CLK_UNHALTED,1,100.00,1,,,", lines().get(1));
    }

    @Test
    void anExistingFileIsAppendedToWithoutASecondHeader() throws Exception {
        Path file = dir.resolve("rates.csv");
        DomainRatesConsumer first = new DomainRatesConsumer(file, null, files);
        first.sessionStarted(Sessions.session(6, Sessions.CYCLES));
        first.samples(Sessions.repeated(6, 0, 1, 0));
        first.deactivate();
        DomainRatesConsumer second = new DomainRatesConsumer(file, null, files);
        second.sessionStarted(Sessions.session(7, Sessions.CYCLES));
        second.samples(Sessions.repeated(7, 0, 1, 0));
        List<String> lines = lines(file);
        assertEquals(3, lines.size());
        assertEquals(1, lines.stream().filter(CsvFile.HEADER::equals).count());
        assertTrue(lines.get(2).startsWith("7,batch,1,"), lines.get(2));
    }

    @Test
    void echoPrintsTheSameLinesToTheConsole() throws Exception {
        Path file = dir.resolve("rates.csv");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        DomainRatesConsumer consumer = new DomainRatesConsumer(file, new PrintStream(console, true, StandardCharsets.UTF_8),
                files);
        consumer.sessionStarted(Sessions.session(8, Sessions.CYCLES));
        consumer.samples(Sessions.repeated(8, 0, 1, 1));
        List<String> printed = console.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(lines(file).subList(1, 3), printed);
    }

    @Test
    void anUnwritableFileFailsTheSessionStartNamingTheFileAndThePid() {
        DomainRatesConsumer consumer = new DomainRatesConsumer(dir, null, files);
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> consumer.sessionStarted(Sessions.session(9, Sessions.CYCLES)));
        assertEquals("the domain-rates CSV: cannot write " + dir + ": it is a folder; name a file in it (set"
                + " output.path under the PID org.hyperprof.example.domainrates to a file you can write)",
                e.getMessage());
        // Every batch then fails too: the profiler counts each as missed for this consumer.
        assertThrows(UncheckedIOException.class, () -> consumer.samples(Sessions.repeated(9, 0, 1, 0)));
    }

    @Test
    void aBatchOfASessionThatNeverStartedIsAnError() {
        DomainRatesConsumer consumer = new DomainRatesConsumer(dir.resolve("rates.csv"), null, files);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> consumer.samples(Sessions.repeated(10, 0, 1, 0)));
        assertEquals("a batch for session 10, which never started", e.getMessage());
    }

    @Test
    void afterDeactivationLinesAreDroppedQuietly() throws Exception {
        DomainRatesConsumer consumer = started(11, Sessions.CYCLES);
        consumer.deactivate();
        consumer.samples(Sessions.repeated(11, 0, 1, 0));
        consumer.sessionEnded(Sessions.ended(11, 1000));
        assertEquals(List.of(CsvFile.HEADER), lines());
    }

    @Test
    void throughASymbolicLinkTheFileItNamesGetsTheLinesAndTheLinkStays() throws Exception {
        Path real = dir.resolve("real.csv");
        Path link = Files.createSymbolicLink(dir.resolve("rates.csv"), Path.of("real.csv"));
        DomainRatesConsumer consumer = new DomainRatesConsumer(link, null, files);
        consumer.sessionStarted(Sessions.session(14, Sessions.CYCLES));
        consumer.samples(Sessions.repeated(14, 0, 1, 0));
        consumer.deactivate();
        assertEquals("symbolic link", OutputTargets.kind(link));
        assertEquals(List.of(CsvFile.HEADER, "14,batch,1,0,Domain-0,0,CPU_CLK_UNHALTED,1,100.00,1,,,"), lines(real));
    }

    @Test
    void aFifoIsStreamedIntoHeaderFirstAndStaysAFifo() throws Exception {
        Path fifo = OutputTargets.fifo(dir, "rates.fifo");
        try (OutputTargets.Reader reader = OutputTargets.readFifo(fifo, 3)) {
            DomainRatesConsumer consumer = new DomainRatesConsumer(fifo, null, files);
            consumer.sessionStarted(Sessions.session(15, Sessions.CYCLES));
            consumer.samples(Sessions.repeated(15, 0, 1, 1));
            consumer.deactivate();
            assertEquals(CsvFile.HEADER + "\n15,batch,1,0,Domain-0,0,CPU_CLK_UNHALTED,1,50.00,1,,,\n"
                    + "15,batch,1,1,domU,0,CPU_CLK_UNHALTED,1,50.00,1,,,\n", reader.text());
        }
        assertEquals("FIFO", OutputTargets.kind(fifo));
    }

    @Test
    void aFileWhoseFolderIsMissingIsOneClearLine() {
        Path file = dir.resolve("no/such/rates.csv");
        DomainRatesConsumer consumer = new DomainRatesConsumer(file, null, files);
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> consumer.sessionStarted(Sessions.session(16, Sessions.CYCLES)));
        assertEquals("the domain-rates CSV: cannot write " + file + ": the folder " + file.getParent() + " does not"
                + " exist; create it first or name a file in an existing folder (set output.path under the PID"
                + " org.hyperprof.example.domainrates to a file you can write)", e.getMessage());
        assertFalse(Files.exists(file.getParent()));
    }

    @Test
    void aBatchThatFillsTheDiskIsCutBackSoTheFileHoldsWholeLinesOnly() throws Exception {
        try (OutputTargets.SmallDisk disk = OutputTargets.smallDisk(dir, "small", 64)) {
            Path file = disk.folder().resolve("rates.csv");
            DomainRatesConsumer consumer = new DomainRatesConsumer(file, null, files);
            consumer.sessionStarted(Sessions.session(17, Sessions.CYCLES));
            consumer.samples(Sessions.repeated(17, 0, 1, 0));
            List<String> before = lines(file);
            disk.fill();
            // One line per domain: 300 domains make a batch of lines longer than the file's free page.
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                    () -> consumer.samples(Sessions.manyDomains(17, 300)));
            assertTrue(e.getMessage().startsWith("the domain-rates CSV: could not append to the file " + file
                    + ": No space left on device; the part written was removed"), e.getMessage());
            assertEquals(before, lines(file));
            assertTrue(Files.readString(file).endsWith("\n"), "no part of a line is left at the end");
            consumer.deactivate();
        }
    }

    @Test
    void samplesOfACounterTheSessionLacksAreNotAttributed() {
        DomainTally tally = new DomainTally(Sessions.session(12, Sessions.CYCLES));
        tally.count(Sessions.batch(12, 0, 0, 0, 5, 1, -1));
        assertEquals(2, tally.unattributed());
        assertEquals(1, tally.sinceStartTotal(0));
    }

    @Test
    void countingABatchAllocatesNothing() {
        DomainTally tally = new DomainTally(Sessions.session(13, Sessions.CYCLES));
        var batch = Sessions.repeated(13, 0, 2000, 2000);
        tally.count(batch);
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100; i++) {
            tally.count(batch);
        }
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 1024, "counting 100 batches allocated " + allocated + " bytes");
        assertEquals(101 * 2000, tally.sinceStart(0, 0));
    }

    @Test
    void withoutConfigurationTheFileIsInTheTemporaryDirectory() {
        assertEquals(Path.of(System.getProperty("java.io.tmpdir"), "hyperprof-domain-rates.csv"),
                DomainRatesConsumer.outputPath(config("", false)));
    }

    @Test
    void theConfiguredPathIsUsed() {
        DomainRatesConsumer consumer = new DomainRatesConsumer(config(" /var/tmp/x.csv ", true), files);
        assertEquals(Path.of("/var/tmp/x.csv"), consumer.csvFile());
    }

    /** A configuration as Declarative Services would hand it over. */
    private static DomainRatesConfiguration config(String path, boolean echo) {
        return new DomainRatesConfiguration() {
            @Override public Class<? extends Annotation> annotationType() { return DomainRatesConfiguration.class; }
            @Override public String output_path() { return path; }
            @Override public boolean echo() { return echo; }
        };
    }
}
