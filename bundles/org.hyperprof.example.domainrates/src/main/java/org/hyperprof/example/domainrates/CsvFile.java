package org.hyperprof.example.domainrates;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.output.Appender;
import org.hyperprof.api.output.OutputException;
import org.hyperprof.api.output.OutputFiles;

/**
 * Where the CSV lines go: an {@link Appender} of Hyperprof's {@link OutputFiles}, so the file
 * follows the rule of every file Hyperprof writes (links followed, a FIFO or {@code /dev/stdout}
 * streamed into, a regular file appended to and never replaced, a header line when it starts
 * empty), and optionally echoed to a console stream.
 *
 * <p>Two threads use it: the consumer's delivery thread opens and writes, and the component's
 * deactivation (on a Declarative Services thread) closes it, possibly while a batch is being
 * written or a FIFO waits for its reader. Closing takes the appender away and closes it, which ends
 * such a wait; once closed, further lines are dropped quietly, as the profiler stops delivering to a
 * component that is going away.
 *
 * <p>A failure to open or write is thrown as an {@link UncheckedIOException} naming the file: the
 * profiler catches it, counts the batch as missed for this consumer alone and records the first
 * failure in the session summary, which {@code hp:profile} prints.
 */
final class CsvFile {

    static final String HEADER = "session,kind,batch,domain,domain_name,counter,event,samples,share_pct,"
            + "cumulative_samples,simulated_seconds,samples_per_second,events_per_second";

    private static final String NEWLINE = System.lineSeparator();

    private final Path path;
    private final PrintStream echo;
    private final OutputFiles output;

    /** Guarded by this, as is {@link #closed}. */
    private Appender appender;
    private boolean closed;

    /**
     * @param path   the CSV file (its folder must exist)
     * @param echo   where to print the lines too, or null
     * @param output what opens the file
     */
    CsvFile(Path path, PrintStream echo, OutputFiles output) {
        this.path = path;
        this.echo = echo;
        this.output = output;
    }

    Path path() {
        return path;
    }

    /** Appends the lines as one chunk, flushed at once so that {@code tail -f} shows each batch as it arrives. */
    void append(List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        Appender target = open();
        if (target == null) {
            return;
        }
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            text.append(line).append(NEWLINE);
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        try {
            target.append(out -> out.write(bytes));
        } catch (OutputException e) {
            if (isClosed()) {
                return;
            }
            throw new UncheckedIOException("the domain-rates CSV: " + e.getMessage(), e);
        }
        if (echo != null) {
            lines.forEach(echo::println);
        }
    }

    /**
     * Opens the file for appending (a header line starts a new or empty one).
     *
     * @return the appender, or null once closed
     */
    Appender open() {
        synchronized (this) {
            if (closed || appender != null) {
                return appender;
            }
        }
        // Not under the lock: opening a FIFO waits for its reader, and close() must not wait for that.
        Appender opened;
        try {
            opened = output.appender(path, out -> out.write((HEADER + NEWLINE).getBytes(StandardCharsets.UTF_8)));
        } catch (OutputException e) {
            throw new UncheckedIOException("the domain-rates CSV: " + e.getMessage() + " (set output.path under the"
                    + " PID " + DomainRatesConsumer.PID + " to a file you can write)", e);
        }
        synchronized (this) {
            if (!closed && appender == null) {
                appender = opened;
                return opened;
            }
        }
        opened.close();
        synchronized (this) {
            return appender;
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    void close() {
        Appender open;
        synchronized (this) {
            closed = true;
            open = appender;
            appender = null;
        }
        if (open != null) {
            open.close();
        }
    }
}
