package org.hyperprof.example.domainrates;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * An example sample consumer, written the way a third party would write one: it streams, for every
 * profiling session, how the samples split between the domains, as CSV.
 *
 * <h2>What it writes</h2>
 * After every batch, one {@code batch} line per domain and counter that had samples in it: the
 * samples, the domain's share of the batch (per counter) and its count since the session started.
 * At the end of the session, one {@code total} line per domain and counter, with rates. Batches
 * carry no timestamps, so rates are known only at the end, from the session's simulated clock:
 * {@code simulatedCycles / (mhz * 10^6)} seconds of simulated time elapsed. {@code samples_per_second}
 * divides the domain's samples by it; {@code events_per_second} multiplies them by the counter's
 * period first (each sample stands for {@code count} events), which for a cycle counter is the
 * number of CPU cycles per second the domain used, summed over the physical CPUs it ran on (so it
 * can exceed one CPU's clock rate on a host with several).
 *
 * <h2>How it is wired</h2>
 * A Declarative Services component that provides {@link SampleConsumer} with the
 * {@code consumer.name} property: that is all the profiler looks for. It binds every consumer
 * dynamically, so installing this bundle into a running framework makes it take part from the
 * next session on (or from the next batch, with a {@code sessionStarted} first, if a session is
 * running). Its settings come from Configuration Admin (PID {@value #PID}, see
 * {@link DomainRatesConfiguration}); changing them deactivates this instance and activates a new
 * one with the new settings, because the component declares no {@code @Modified} method. The CSV
 * is written through Hyperprof's {@link OutputFiles} service, which DS hands to the constructor: it
 * follows links, streams into a FIFO or {@code /dev/stdout}, and appends to a regular file without
 * ever replacing it, as every file Hyperprof writes.
 *
 * <h2>Threading</h2>
 * The profiler calls {@code sessionStarted}, {@code samples} and {@code sessionEnded} on this
 * consumer's own delivery thread, one call at a time and in order, so the per-session state below
 * needs no locks. Only the file is shared with another thread (deactivation), see {@link CsvFile}.
 *
 * <h2>Batching, slowness and failures</h2>
 * A batch holds up to a few thousand samples (the profiler's {@code batch.size}); counting one is a
 * loop over primitive arrays that allocates nothing. Writing the lines flushes the file once per
 * batch. If the disk is slow and this consumer falls behind, its queue (the profiler's
 * {@code consumer.queue.batches}) fills up and further batches are skipped <em>for this consumer
 * only</em>: sampling and the other consumers carry on, and the skipped samples are counted as
 * missed in the session summary. If writing fails, the exception propagates out of
 * {@code samples}: the profiler catches it, counts that batch as missed, records the first failure,
 * and keeps delivering the next batches. Nothing here needs to catch and hide errors.
 */
@Component(service = SampleConsumer.class, configurationPid = DomainRatesConsumer.PID,
        property = SampleConsumer.NAME + "=" + DomainRatesConsumer.NAME)
@Designate(ocd = DomainRatesConfiguration.class)
public final class DomainRatesConsumer implements SampleConsumer {

    /** The Configuration Admin PID of its settings. */
    public static final String PID = "org.hyperprof.example.domainrates";

    /** Its {@code consumer.name}, as {@code hp:consumers} and session summaries show it. */
    public static final String NAME = "domain-rates";

    /** The file name used when {@code output.path} is empty, in {@code java.io.tmpdir}. */
    public static final String DEFAULT_FILE = "hyperprof-domain-rates.csv";

    private final CsvFile csv;

    /** Sessions started and not yet ended, by id. Only the delivery thread touches it. */
    private final Map<Long, DomainTally> running = new HashMap<>();

    /**
     * The constructor Declarative Services calls, with the settings from Configuration Admin and
     * the service that writes Hyperprof's files.
     */
    @Activate
    public DomainRatesConsumer(DomainRatesConfiguration config, @Reference OutputFiles output) {
        this(outputPath(config), config.echo() ? System.out : null, output);
    }

    /**
     * The plain-Java constructor (tests, or embedding without OSGi).
     *
     * @param csvFile the file to append to
     * @param echo    where to print the lines too, or null
     * @param output  what opens the file
     */
    public DomainRatesConsumer(Path csvFile, PrintStream echo, OutputFiles output) {
        this.csv = new CsvFile(csvFile, echo, output);
    }

    /** The configured path, or the default file in the temporary directory. */
    static Path outputPath(DomainRatesConfiguration config) {
        String configured = config.output_path() == null ? "" : config.output_path().trim();
        return configured.isEmpty() ? Path.of(System.getProperty("java.io.tmpdir"), DEFAULT_FILE)
                : Path.of(configured);
    }

    /** Where the lines go. */
    public Path csvFile() {
        return csv.path();
    }

    @Deactivate
    void deactivate() {
        csv.close();
    }

    // ---------------------------------------------------------------- SampleConsumer

    @Override
    public void sessionStarted(SessionInfo session) {
        running.put(session.sessionId(), new DomainTally(session));
        // Opening now (not at the first batch) reports an unwritable file at once, in the session's summary.
        csv.open();
    }

    @Override
    public void samples(SampleBatch batch) {
        DomainTally tally = running.get(batch.sessionId);
        if (tally == null) {
            // The SPI promises sessionStarted first; throwing makes the profiler record it if that ever breaks.
            throw new IllegalStateException("a batch for session " + batch.sessionId + ", which never started");
        }
        tally.count(batch);
        csv.append(batchLines(tally));
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
        DomainTally tally = running.remove(summary.sessionId());
        if (tally != null) {
            csv.append(totalLines(tally, summary.simulatedCycles()));
        }
    }

    // ---------------------------------------------------------------- the CSV lines

    /** One line per domain and counter with samples in the last batch. */
    static List<String> batchLines(DomainTally t) {
        List<String> lines = new ArrayList<>();
        for (int d = 0; d < t.domainCount(); d++) {
            for (int c = 0; c < t.counters(); c++) {
                long n = t.inLastBatch(d, c);
                if (n > 0) {
                    lines.add(line(t, "batch", t.batches(), d, c, n, share(n, t.lastBatchTotal(c)), t.sinceStart(d, c),
                            "", "", ""));
                }
            }
        }
        return lines;
    }

    /** One line per domain and counter with samples in the session, with rates when the clock is known. */
    static List<String> totalLines(DomainTally t, long simulatedCycles) {
        SessionInfo session = t.session;
        boolean timed = simulatedCycles > 0 && session.mhz() > 0;
        double seconds = timed ? simulatedCycles / (session.mhz() * 1e6) : 0;
        List<String> lines = new ArrayList<>();
        for (int d = 0; d < t.domainCount(); d++) {
            for (int c = 0; c < t.counters(); c++) {
                long n = t.sinceStart(d, c);
                if (n == 0) {
                    continue;
                }
                long period = c < session.counters().size() ? session.counters().get(c).count() : 0;
                lines.add(line(t, "total", t.batches(), d, c, n, share(n, t.sinceStartTotal(c)), n,
                        timed ? decimal(seconds, 6) : "", timed ? decimal(n / seconds, 3) : "",
                        timed ? decimal(n * (double) period / seconds, 1) : ""));
            }
        }
        return lines;
    }

    private static String line(DomainTally t, String kind, long batch, int d, int counter, long samples,
            String share, long cumulative, String seconds, String samplesPerSecond, String eventsPerSecond) {
        SessionInfo session = t.session;
        int domid = t.domain(d);
        List<CounterConfig> counters = session.counters();
        String event = counter < counters.size() ? counters.get(counter).event().name() : "";
        return String.join(",", Long.toString(session.sessionId()), kind, Long.toString(batch),
                Integer.toString(domid), quoted(session.domainName(domid)), Integer.toString(counter), quoted(event),
                Long.toString(samples), share, Long.toString(cumulative), seconds, samplesPerSecond, eventsPerSecond);
    }

    private static String share(long part, long whole) {
        return whole == 0 ? "" : decimal(100.0 * part / whole, 2);
    }

    private static String decimal(double value, int places) {
        return String.format(Locale.ROOT, "%." + places + "f", value);
    }

    /** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
    static String quoted(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0 && field.indexOf('\r') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }

    @Override
    public String toString() {
        return "domain-rates consumer writing " + csv.path();
    }
}
