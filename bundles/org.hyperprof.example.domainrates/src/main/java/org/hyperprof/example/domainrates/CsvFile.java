package org.hyperprof.example.domainrates;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Where the CSV lines go: appended to a file (with a header line when the file is new or empty),
 * and optionally echoed to a console stream.
 *
 * <p>Two threads use it: the consumer's delivery thread writes, and the component's deactivation
 * (on a Declarative Services thread) closes it, possibly while a batch is being written. The
 * methods are therefore {@code synchronized}; once closed, further lines are dropped quietly, as
 * the profiler stops delivering to a component that is going away.
 *
 * <p>A failure to open or write is thrown as an {@link UncheckedIOException} naming the file: the
 * profiler catches it, counts the batch as missed for this consumer alone and records the first
 * failure in the session summary, which {@code hp:profile} prints.
 */
final class CsvFile {

    static final String HEADER = "session,kind,batch,domain,domain_name,counter,event,samples,share_pct,"
            + "cumulative_samples,simulated_seconds,samples_per_second,events_per_second";

    private final Path path;
    private final PrintStream echo;
    private BufferedWriter out;
    private boolean closed;

    /**
     * @param path the CSV file (its directory must exist)
     * @param echo where to print the lines too, or null
     */
    CsvFile(Path path, PrintStream echo) {
        this.path = path;
        this.echo = echo;
    }

    Path path() {
        return path;
    }

    /** Writes the lines and flushes them, so that {@code tail -f} shows each batch as it arrives. */
    synchronized void append(List<String> lines) {
        if (closed || lines.isEmpty()) {
            return;
        }
        try {
            if (out == null) {
                open();
            }
            for (String line : lines) {
                out.write(line);
                out.newLine();
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("could not append to the domain-rates CSV file " + path + ": " + e, e);
        }
        if (echo != null) {
            lines.forEach(echo::println);
        }
    }

    /** Opens the file for appending; a header line starts a new or empty file. */
    synchronized void open() {
        if (closed || out != null) {
            return;
        }
        try {
            boolean fresh = !Files.exists(path) || Files.size(path) == 0;
            out = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            if (fresh) {
                out.write(HEADER);
                out.newLine();
                out.flush();
            }
        } catch (IOException e) {
            out = null;
            throw new UncheckedIOException("could not open the domain-rates CSV file " + path
                    + " (set output.path under the PID " + DomainRatesConsumer.PID + " to a writable file): " + e, e);
        }
    }

    synchronized void close() {
        closed = true;
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                // Closing after a flush: nothing is lost, and a component going away has no one to tell.
            }
            out = null;
        }
    }
}
