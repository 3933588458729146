package org.hyperprof.source.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.shell.session.WorkingFolder;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The Gogo commands of the perf sample source, in scope {@code hp}:
 * <ul>
 * <li>{@code hp:import <file> [--kallsyms <file>] [--guest-kallsyms [<pid>=]<file>]... [--top N]
 * [--callgraph] [--no-callchains] [--report-only]}: reads a perf.data recording (file or pipe
 * form), feeds its samples to every bound consumer as one session (so {@code hp:report} and
 * {@code hp:export} work on it) and prints the flat profile as
 * {@code perf report --no-children --sort dso,sym -n} prints it, with {@code --callgraph} also the
 * children view and the stacks of the top rows; with {@code --report-only} it prints the same
 * report without a session (no consumer is fed), the way the benchmark imports: a flat report
 * then reads no callchain and a large recording is read in parts at once;</li>
 * <li>{@code hp:record [--seconds N] [--frequency F] [--callgraph] [--top N] [-- <command...>]}:
 * runs {@code perf record -e cpu-clock -o -} on the command (or, with {@code --seconds N} and no
 * command, system-wide for N seconds) and
 * reads its output as it is written, so consumers get the samples while it runs; prints progress,
 * then the report when perf exits.</li>
 * </ul>
 * The profiler's {@link SessionPublisher} is optional: without it the commands still print their
 * reports. Symbols come from the pipeline's shared {@link SymbolTables}.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=import",
        "osgi.command.function=record"})
public final class PerfCommands {

    /** The Debian package that holds perf. */
    static final String PERF_PACKAGE = "linux-perf";

    private final SymbolTables symbolTables;
    private final Supplier<PrintStream> out;
    private final Supplier<PrintStream> err;
    private final String perf;
    private final ImportOptions baseOptions;
    private volatile SessionPublisher publisher;

    /**
     * DS: symbols from the pipeline's shared tables, prints to the calling Gogo session's streams,
     * runs {@code perf} from the PATH.
     */
    @Activate
    public PerfCommands(@Reference(name = "symbolTables") SymbolTables symbolTables) {
        this(null, symbolTables, () -> System.out, () -> System.err, "perf", ImportOptions.defaults());
    }

    /**
     * Plain Java and tests.
     *
     * @param publisher where sessions are published, or null
     * @param perf      the perf executable
     */
    public PerfCommands(SessionPublisher publisher, SymbolTables symbolTables, PrintStream out, PrintStream err,
            String perf, ImportOptions options) {
        this(publisher, symbolTables, () -> out, () -> err, perf, options);
    }

    private PerfCommands(SessionPublisher publisher, SymbolTables symbolTables, Supplier<PrintStream> out,
            Supplier<PrintStream> err, String perf, ImportOptions options) {
        this.publisher = publisher;
        this.symbolTables = symbolTables;
        this.out = out;
        this.err = err;
        this.perf = perf;
        this.baseOptions = options;
    }

    @Reference(service = SessionPublisher.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindPublisher")
    void bindPublisher(SessionPublisher p) {
        this.publisher = p;
    }

    void unbindPublisher(SessionPublisher p) {
        if (this.publisher == p) {
            this.publisher = null;
        }
    }

    // ---------------------------------------------------------------- hp:import

    static final String IMPORT_USAGE = "hp:import <perf.data> [--kallsyms <file>] [--guest-kallsyms [<pid>=]<file>]..."
            + " [--top N] [--callgraph] [--no-callchains] [--report-only] [--max-header-mb N]";

    /** Gogo calls {@code import} (a Java keyword) through this name. */
    @Descriptor("import a perf.data recording (perf record, perf kvm record; file or pipe form) as a session"
            + " and print perf report's flat profile")
    public void _import(@Descriptor("<perf.data> [--kallsyms <file>] [--guest-kallsyms [<pid>=]<file>]... [--top N]"
            + " [--callgraph] [--no-callchains] [--report-only] [--max-header-mb N]") String... args) {
        PrintStream o = out.get();
        try {
            Options opt = Options.parse(args, false);
            if (opt.file == null) {
                throw new Usage("give the recording to import");
            }
            Path file = path(opt.file, "recording");
            // Report only: no session, and callchains only for the call graph.
            ImportOptions io = opt.reportOnly ? options(opt).withCallchains(opt.callgraph && !opt.noCallchains)
                    : options(opt);
            try (PerfDataReader reader = PerfDataReader.open(file, io.maxHeaderBytes())) {
                o.println("Importing " + file + " ...");
                long t0 = System.nanoTime();
                PerfImport.Result r = new PerfImport(symbolTables, io, opt.callgraph).run(reader,
                        opt.reportOnly ? null : publisher, "perf.data", null, false);
                print(o, r, opt, System.nanoTime() - t0);
            }
        } catch (Usage e) {
            err.get().println("hp:import: " + e.getMessage());
            err.get().println("usage: " + IMPORT_USAGE);
            throw failed("hp:import");
        } catch (PerfDataException | IllegalArgumentException | IllegalStateException e) {
            err.get().println("hp:import: " + e.getMessage());
            throw failed("hp:import");
        } finally {
            o.flush();
        }
    }

    /**
     * Thrown once a command has printed why it failed, so that a script or the launcher sees the
     * failure in the call itself (exit status 1), not by reading the output.
     */
    static RuntimeException failed(String command) {
        return new IllegalStateException(command + " failed");
    }

    // ---------------------------------------------------------------- hp:record

    static final String RECORD_USAGE = "hp:record [--seconds N] [--frequency F] [--callgraph] [--top N]"
            + " [--kallsyms <file>] [--max-header-mb N] -- <command...>  (or --seconds N and no command: the whole"
            + " system)";

    @Descriptor("record with perf record (cpu-clock) and feed the samples to the consumers as they come")
    public void record(@Descriptor("[--seconds N] [--frequency F] [--callgraph] [--top N] [-- <command...>];"
            + " without a command, --seconds N records the whole system for N seconds") String... args) {
        PrintStream o = out.get();
        PrintStream e = err.get();
        boolean recorded = true;
        try {
            Options opt = Options.parse(args, true);
            if (!opt.command.isEmpty()) {
                String why = Workload.whyNotRunnable(opt.command.get(0), System.getenv("PATH"));
                if (why != null) {
                    throw new IllegalStateException("the command could not be run: " + why + "; nothing was recorded");
                }
            }
            List<String> cmd = perfCommand(opt);
            o.println("Running: " + String.join(" ", cmd));
            Process p;
            try {
                // perf and the workload run in the command line's working folder.
                p = new ProcessBuilder(cmd).directory(WorkingFolder.current().toFile()).start();
            } catch (IOException x) {
                throw new IllegalStateException("cannot run " + perf + " (" + x.getMessage() + "): perf is not"
                        + " installed; install Debian's " + PERF_PACKAGE + " package (apt-get install " + PERF_PACKAGE
                        + ")");
            }
            StringBuilder perfErrors = new StringBuilder();
            Thread errors = relay(p, e, perfErrors);
            Thread stopper = opt.seconds > 0 && !opt.command.isEmpty() ? stopAfter(p, opt.seconds) : null;
            long t0 = System.nanoTime();
            long[] lastPrint = {t0};
            PerfImport.Result r = null;
            ImportOptions io = options(opt);
            try (PerfDataReader reader = PerfDataReader.open(p.getInputStream(), "perf record", io.maxHeaderBytes())) {
                r = new PerfImport(symbolTables, io, opt.callgraph).run(reader, publisher, "perf record",
                        (samples, delivered) -> {
                            long now = System.nanoTime();
                            if (now - lastPrint[0] >= TimeUnit.SECONDS.toNanos(1)) {
                                lastPrint[0] = now;
                                o.printf(Locale.ROOT, "  recording: %d samples so far (%.1f s)%n", samples,
                                        (now - t0) / 1e9);
                                o.flush();
                            }
                        }, true);
            } catch (PerfDataException x) {
                throw new IllegalStateException(x.getMessage() + perfSaid(errorsAfterExit(p, errors, perfErrors)));
            } finally {
                if (stopper != null) {
                    stopper.interrupt();
                }
                if (r == null) {
                    // Nothing was imported (perf failed, or no session could start): do not leave perf running.
                    p.destroy();
                    waitFor(p, errors);
                }
            }
            int exit = waitFor(p, errors);
            print(o, r, opt, System.nanoTime() - t0);
            String notRun = opt.command.isEmpty() ? null : Workload.shellStatus(exit);
            if (notRun != null) {
                e.println("hp:record: the command " + opt.command.get(0) + " could not be run (" + notRun
                        + ", status " + exit + ")" + perfSaid(perfErrors));
                recorded = false;
            } else if (exit != 0 && stopper == null) {
                e.println("hp:record: perf record exited with status " + exit + perfSaid(perfErrors));
                recorded = false;
            }
        } catch (Usage x) {
            e.println("hp:record: " + x.getMessage());
            e.println("usage: " + RECORD_USAGE);
            recorded = false;
        } catch (IllegalArgumentException | IllegalStateException x) {
            e.println("hp:record: " + x.getMessage());
            recorded = false;
        } finally {
            o.flush();
        }
        if (!recorded) {
            throw failed("hp:record");
        }
    }

    /** The perf record command line for the options. */
    List<String> perfCommand(Options opt) {
        List<String> cmd = new ArrayList<>(List.of(perf, "record", "-q", "-e", "cpu-clock"));
        if (opt.frequency > 0) {
            cmd.addAll(List.of("-F", Long.toString(opt.frequency)));
        }
        if (opt.callgraph) {
            cmd.add("-g");
        }
        // Small ring buffers wake perf up often, so that the samples reach the pipe, and the
        // consumers, within a fraction of a second rather than when a large buffer fills; callchains
        // and whole-system recordings fill them faster, and get larger ones so as not to lose samples.
        String pages = opt.callgraph || opt.command.isEmpty() ? "64" : "16";
        cmd.addAll(List.of("-m", pages, "-o", "-"));
        if (opt.command.isEmpty()) {
            cmd.addAll(List.of("-a", "--", "sleep", Long.toString(opt.seconds)));
        } else {
            // The workload inherits perf's standard output, which is the recording: send its output
            // to the error stream (relayed to the console) so it cannot corrupt the records.
            cmd.addAll(List.of("--", "/bin/sh", "-c", "exec \"$@\" 1>&2", "hp-record"));
            cmd.addAll(opt.command);
        }
        return cmd;
    }

    private static Thread relay(Process p, PrintStream e, StringBuilder kept) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (kept) {
                        if (kept.length() < 4096) {
                            kept.append(line).append('\n');
                        }
                    }
                    e.println("  | " + line);
                }
            } catch (IOException x) {
                // The process ended; its error stream closed with it.
            }
        }, "hyperprof-perf-stderr");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static Thread stopAfter(Process p, long seconds) {
        Thread t = new Thread(() -> {
            try {
                if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                    // SIGTERM: perf record stops, writes what it has and exits. Through the process
                    // handle, so that the pipe being read stays open until perf closes it.
                    p.toHandle().destroy();
                }
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }, "hyperprof-perf-timer");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static int waitFor(Process p, Thread errors) {
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
            errors.join(2000);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        return p.isAlive() ? -1 : p.exitValue();
    }

    /** perf's error output once it has exited (it explains why the stream ended). */
    private static StringBuilder errorsAfterExit(Process p, Thread errors, StringBuilder perfErrors) {
        p.destroy();
        waitFor(p, errors);
        return perfErrors;
    }

    private static String perfSaid(StringBuilder perfErrors) {
        synchronized (perfErrors) {
            String s = perfErrors.toString().strip();
            return s.isEmpty() ? "" : "; perf said: " + s.replace('\n', ' ');
        }
    }

    // ---------------------------------------------------------------- shared

    private ImportOptions options(Options opt) {
        ImportOptions o = baseOptions.withCallchains(!opt.noCallchains);
        if (opt.maxHeaderMb > 0) {
            o = o.withMaxHeaderBytes(opt.maxHeaderMb << 20);
        }
        if (opt.kallsyms != null) {
            o = o.withKallsyms(path(opt.kallsyms, "kallsyms file"));
        }
        if (!opt.guestKallsyms.isEmpty()) {
            Map<Integer, Path> g = new LinkedHashMap<>();
            for (Map.Entry<Integer, String> e : opt.guestKallsyms.entrySet()) {
                g.put(e.getKey(), path(e.getValue(), "guest kallsyms file"));
            }
            o = o.withGuestKallsyms(g);
        }
        return o;
    }

    private static Path path(String name, String what) {
        Path p = WorkingFolder.resolve(name);
        String problem = InputFiles.problem(p);
        if (problem != null) {
            throw new IllegalArgumentException("the " + what + " " + p + " " + problem);
        }
        return p.toAbsolutePath().normalize();
    }

    private static void print(PrintStream o, PerfImport.Result r, Options opt, long nanos) {
        Map<String, String> m = r.machine();
        o.println("Recording: " + r.file() + (m.containsKey("hostname") ? " (host " + m.get("hostname") + ", "
                + m.getOrDefault("osrelease", "?") + ", " + m.getOrDefault("arch", "?") + ")" : ""));
        if (m.containsKey("cpudesc")) {
            o.println("CPU: " + m.get("cpudesc") + (m.containsKey("nrcpus online") ? ", " + m.get("nrcpus online")
                    + " online" : ""));
        }
        if (m.containsKey("cmdline")) {
            o.println("Recorded with: " + m.get("cmdline"));
        }
        o.println("Domains: " + r.domains());
        o.println(r.accounting().line());
        o.println();
        StringBuilder b = new StringBuilder();
        r.report().printFlat(b, String.join(",", r.events()), opt.top);
        if (opt.callgraph) {
            b.append(System.lineSeparator());
            r.report().printCallGraph(b, opt.top, Math.min(opt.top, 5));
        }
        o.print(b);
        o.println();
        double seconds = nanos / 1e9;
        o.printf(Locale.ROOT, "%d samples in %.3f s (%.0f samples/s); %d images, %d symbols, %d stack nodes%n",
                r.accounting().taken(), seconds, r.accounting().taken() / Math.max(seconds, 1e-9),
                r.counters().getOrDefault("images", 0L), r.counters().getOrDefault("symbols", 0L),
                r.report().stackNodes());
        ConsumerAccounting books = r.reportBooks();
        o.println("consumer " + books.consumer() + ": received " + books.received() + ", missed " + books.missed()
                + " of the " + r.accounting().delivered() + " samples delivered"
                + (books.problem() == null ? "" : " (" + books.problem() + ")"));
        SessionSummary s = r.summary();
        if (opt.reportOnly) {
            o.println("Report only: no session was published, no consumer was fed");
        } else if (s != null) {
            o.println("Session " + r.sessionId() + " fed " + s.consumers().size() + " consumer(s)"
                    + (s.consumers().isEmpty() ? "" : "; hp:report --session " + r.sessionId() + " prints it again"));
        } else {
            o.println("No profiler is running: no consumer was fed (the report above is the importer's own)");
        }
        if (!r.completed()) {
            o.println("STOPPED EARLY: " + r.failure().getMessage());
        }
        for (String n : r.notes()) {
            o.println("note: " + n);
        }
    }

    /** A usage error: the command line is wrong. */
    static final class Usage extends Exception {
        private static final long serialVersionUID = 1L;

        Usage(String message) {
            super(message);
        }
    }

    /** The parsed arguments of both commands. */
    static final class Options {
        String file;
        String kallsyms;
        final Map<Integer, String> guestKallsyms = new LinkedHashMap<>();
        int top = 30;
        boolean callgraph;
        boolean noCallchains;
        boolean reportOnly;
        long seconds;
        long frequency;
        /** The bound on a recording's header held in memory, in MiB, or 0 for the default. */
        long maxHeaderMb;
        final List<String> command = new ArrayList<>();

        static Options parse(String[] args, boolean record) throws Usage {
            Options o = new Options();
            String[] a = args == null ? new String[0] : args;
            for (int i = 0; i < a.length; i++) {
                String s = a[i];
                switch (s) {
                    case "--kallsyms" -> o.kallsyms = value(a, ++i, s);
                    case "--guest-kallsyms" -> {
                        if (record) {
                            throw new Usage("--guest-kallsyms is for hp:import of a perf kvm recording");
                        }
                        String v = value(a, ++i, s);
                        int eq = v.indexOf('=');
                        int pid = ImportOptions.ANY_GUEST;
                        if (eq > 0) {
                            pid = (int) number(v.substring(0, eq), "the guest pid", MAX_PID);
                            v = v.substring(eq + 1);
                        }
                        o.guestKallsyms.put(pid, v);
                    }
                    case "--top" -> o.top = (int) number(value(a, ++i, s), s, Integer.MAX_VALUE);
                    case "--max-header-mb" -> o.maxHeaderMb = number(value(a, ++i, s), s,
                            ImportOptions.MAX_HEADER_BYTES >> 20);
                    case "--callgraph" -> o.callgraph = true;
                    case "--no-callchains" -> o.noCallchains = true;
                    case "--report-only" -> {
                        if (record) {
                            throw new Usage("--report-only is for hp:import; hp:record is there to feed the consumers"
                                    + " as the recording goes");
                        }
                        o.reportOnly = true;
                    }
                    case "--seconds" -> {
                        requireRecord(record, s);
                        o.seconds = number(value(a, ++i, s), s, MAX_SECONDS);
                    }
                    case "--frequency" -> {
                        requireRecord(record, s);
                        o.frequency = number(value(a, ++i, s), s, Integer.MAX_VALUE);
                    }
                    case "--" -> {
                        requireRecord(record, s);
                        for (int k = i + 1; k < a.length; k++) {
                            o.command.add(a[k]);
                        }
                        i = a.length;
                    }
                    default -> {
                        if (s.startsWith("--")) {
                            throw new Usage("unknown option " + s);
                        }
                        if (record) {
                            throw new Usage("put the command to record after --, e.g. hp:record -- " + s);
                        }
                        if (o.file != null) {
                            throw new Usage("one recording at a time (got " + o.file + " and " + s + ")");
                        }
                        o.file = s;
                    }
                }
            }
            if (record && o.command.isEmpty() && o.seconds == 0) {
                // A whole-system recording is asked for, never the default of a bare hp:record.
                throw new Usage("give the command to record after -- (hp:record -- <command...>), or --seconds N to"
                        + " record the whole system for N seconds");
            }
            if (o.callgraph && o.noCallchains) {
                throw new Usage("--callgraph needs the callchains; leave out --no-callchains");
            }
            return o;
        }

        private static void requireRecord(boolean record, String option) throws Usage {
            if (!record) {
                throw new Usage(option + " is an option of hp:record");
            }
        }

        private static String value(String[] a, int i, String option) throws Usage {
            if (i >= a.length) {
                throw new Usage(option + " needs a value");
            }
            return a[i];
        }

        /** The kernel's largest pid (PID_MAX_LIMIT, 2^22 on 64-bit). */
        static final long MAX_PID = 4_194_304;
        /** A recording of one day at most: a longer one is a typo more often than a wish. */
        static final long MAX_SECONDS = 86_400;

        /** A whole number from 1 to {@code max}. */
        private static long number(String s, String what, long max) throws Usage {
            String range = what + " must be from 1 to " + max + ", not " + s;
            long v;
            try {
                v = Long.parseLong(s.strip());
            } catch (NumberFormatException e) {
                if (s.strip().matches("[-+]?[0-9]+")) {
                    throw new Usage(range); // digits beyond 64 bits
                }
                throw new Usage(what + " must be a number, not '" + s + "'");
            }
            if (v < 1 || v > max) {
                throw new Usage(range);
            }
            return v;
        }
    }
}
