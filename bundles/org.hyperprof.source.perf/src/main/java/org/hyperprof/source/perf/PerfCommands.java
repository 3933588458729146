package org.hyperprof.source.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.ReportWords;
import org.hyperprof.command.kit.SessionName;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.UsageException;
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
 * [--sort keys] [--callgraph] [--no-callchains] [--report-only]}: reads a perf.data recording (file or pipe
 * form), feeds its samples to every bound consumer as one session (so {@code hp:report} and
 * {@code hp:export} work on it) and prints the flat profile as
 * {@code perf report --no-children --sort dso,sym -n} prints it (or by process with
 * {@code --sort comm,dso,sym}, {@code pid,dso,sym}, {@code comm}, {@code pid}: {@link SortedReport}),
 * with {@code --callgraph} also the
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
    private final Console console;
    private final String perf;
    private final ImportOptions baseOptions;
    private volatile SessionPublisher publisher;

    /**
     * DS: symbols from the pipeline's shared tables, prints to the calling Gogo session's streams,
     * runs {@code perf} from the PATH.
     */
    @Activate
    public PerfCommands(@Reference(name = "symbolTables") SymbolTables symbolTables) {
        this(null, symbolTables, Console.system(), "perf", ImportOptions.defaults());
    }

    /**
     * Plain Java and tests.
     *
     * @param publisher where sessions are published, or null
     * @param perf      the perf executable
     */
    public PerfCommands(SessionPublisher publisher, SymbolTables symbolTables, PrintStream out, PrintStream err,
            String perf, ImportOptions options) {
        this(publisher, symbolTables, Console.of(out, err), perf, options);
    }

    private PerfCommands(SessionPublisher publisher, SymbolTables symbolTables, Console console, String perf,
            ImportOptions options) {
        this.publisher = publisher;
        this.symbolTables = symbolTables;
        this.console = console;
        this.perf = perf;
        this.baseOptions = options;
    }

    /** The renderer of hp:import's report options: opreport, when it is installed. */
    static final String OPREPORT = "opreport";
    private volatile ReportRenderer opreport;

    @Reference(service = ReportRenderer.class, target = "(" + ReportRenderer.NAME + "=" + OPREPORT + ")",
            cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindOpreport")
    void bindOpreport(ReportRenderer r) {
        this.opreport = r;
    }

    void unbindOpreport(ReportRenderer r) {
        if (this.opreport == r) {
            this.opreport = null;
        }
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

    /** The session store, which keeps {@code --name}: optional, as every consumer is (null when absent). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    // ---------------------------------------------------------------- hp:import

    /** What {@code hp:import} takes: its table's usage line, and its {@code @Descriptor} (a constant). */
    static final String IMPORT_ARGUMENTS = "<perf.data> [--kallsyms file] [--guest-kallsyms [pid=]file]... [--top N]"
            + " [--sort keys] [--callgraph] [--no-callchains] [--report-only] [--time ranges] [--no-demangle]"
            + " [--max-header-mb N] [--name name] [report option...]";

    static final Syntax IMPORT = Syntax.of("hp:import", "import a perf.data recording (perf record, perf kvm record;"
            + " file or pipe form) as a session every consumer receives, and print perf report's flat profile")
            .before("<perf.data>", Completion.FILE)
            .options(Option.value("--kallsyms", "file", "the host kernel's symbols (a /proc/kallsyms copy) for"
                    + " kernel samples, as perf report --kallsyms").completedBy(Completion.FILE),
                    Option.value("--guest-kallsyms", "[pid=]file", "a guest kernel's symbols for a perf kvm"
                            + " recording, for the guest with that pid or, without pid=, for every guest")
                            .repeatable().completedBy(Completion.FILE),
                    Options.TOP, Options.SORT, Options.CALLGRAPH, Options.NO_CALLCHAINS,
                    Option.flag("--report-only", "print the report without a session (no consumer is fed): a flat"
                            + " report reads no callchain, and a large recording is read in parts on every core"),
                    Options.TIME, Options.NO_DEMANGLE, Options.MAX_HEADER_MB, SessionName.OPTION)
            .after("[report option...]")
            .notes("  report option...     the report controls of hp:report (image=REGEX, symbol=REGEX,"
                    + " exclude=REGEX,\n"
                    + "                       threshold=P, order=samples|name, separate=lib,kernel,thread,cpu, top=N):"
                    + " the\n"
                    + "                       session is printed by the opreport renderer with them, in place of"
                    + " perf\n"
                    + "                       report's flat profile (not with --report-only, which makes no session)");

    /** Gogo calls {@code import} (a Java keyword) through this name. */
    @Descriptor("import a perf.data recording (perf record, perf kvm record; file or pipe form) as a session"
            + " and print perf report's flat profile")
    public void _import(@Descriptor(IMPORT_ARGUMENTS) String... args) {
        Guard.run(console, IMPORT, args, o -> {
            Options opt = Options.parse(args, false);
            ReportRenderer renderer = opreport;
            if (!opt.reportWords.isEmpty()) {
                if (opt.reportOnly) {
                    throw new UsageException("report options (" + String.join(" ", opt.reportWords) + ") print the"
                            + " session's report, and --report-only makes no session; give one");
                }
                if (renderer == null || publisher == null) {
                    throw new IllegalStateException("report options (" + String.join(" ", opt.reportWords) + ") need"
                            + " the opreport renderer and the profiler (bundles org.hyperprof.report.opreport and"
                            + " org.hyperprof.profiler)");
                }
                ReportWords.check(OPREPORT, renderer.options(), opt.reportWords);
            }
            Path file = path(opt.file, "recording");
            // A report for scripts (format=json|csv) is all stdout holds; the rest goes to stderr.
            boolean forScripts = opt.reportWords.stream()
                    .anyMatch(w -> w.toLowerCase(Locale.ROOT).matches("format=(json|csv)"));
            PrintStream talk = forScripts ? console.err() : o;
            SessionName.check(store, opt.name, talk);
            // Report only: no session, and callchains only for the call graph.
            ImportOptions io = opt.reportOnly ? options(opt).withCallchains(opt.callgraph && !opt.noCallchains)
                    : options(opt);
            try (PerfDataReader reader = PerfDataReader.open(file, io.maxHeaderBytes())) {
                talk.println("Importing " + file + " ...");
                long t0 = System.nanoTime();
                PerfImport imp = new PerfImport(symbolTables, io, opt.callgraph);
                imp.sortBy(opt.sort);
                PerfImport.Result r = imp.run(reader, opt.reportOnly ? null : publisher, "perf.data", null, false);
                long nanos = System.nanoTime() - t0;
                String rendered = null;
                if (!opt.reportWords.isEmpty() && r.summary() != null) {
                    StringBuilder text = new StringBuilder();
                    renderer.render(new ReportRequest(r.sessionId(), ReportRequest.ALL_DOMAINS, opt.reportWords), text);
                    rendered = text.toString();
                }
                if (r.summary() != null) {
                    SessionName.keep(store, r.sessionId(), opt.name, talk);
                }
                print(talk, r, imp.sorted(), opt, nanos, forScripts ? "" : rendered);
                if (forScripts && rendered != null) {
                    o.print(rendered);
                }
            }
        });
    }

    // ---------------------------------------------------------------- hp:record

    /** What {@code hp:record} takes: its table's usage line, and its {@code @Descriptor} (a constant). */
    static final String RECORD_ARGUMENTS = "[--seconds N] [--frequency F] [--callgraph] [--no-callchains] [--top N]"
            + " [--kallsyms file] [--max-header-mb N] [--name name] [-- <command...>]";

    static final Syntax RECORD = Syntax.of("hp:record", "record with perf record (cpu-clock) and feed the samples to"
            + " the consumers as they come")
            .options(Option.value("--seconds", "N", "stop after N seconds (1 to " + Options.MAX_SECONDS + "); without"
                    + " a command, record the whole system for N seconds"),
                    Option.value("--frequency", "F", "samples per second (perf record -F; default perf's)"),
                    Options.CALLGRAPH, Options.NO_CALLCHAINS, Options.TOP,
                    Option.value("--kallsyms", "file", "the kernel's symbols (default /proc/kallsyms)")
                            .completedBy(Completion.FILE),
                    Options.MAX_HEADER_MB, SessionName.OPTION)
            .after("[-- <command...>]")
            .notes("  -- <command...>      the command to record (perf record -- command); its output goes to"
                    + " stderr\n  Ctrl-C stops the recording; what was recorded is imported and reported.");

    @Descriptor("record with perf record (cpu-clock) and feed the samples to the consumers as they come")
    public void record(@Descriptor(RECORD_ARGUMENTS) String... args) {
        Guard.run(console, RECORD, args, o -> {
            Options opt = Options.parse(args, true);
            SessionName.check(store, opt.name, o);
            recordChecked(opt, o, console.err());
        });
    }

    private void recordChecked(Options opt, PrintStream o, PrintStream e) {
        if (!opt.command.isEmpty()) {
            String why = Workload.whyNotRunnable(opt.command.get(0), WorkingFolder.environment().get("PATH"));
            if (why != null) {
                throw new IllegalStateException("the command could not be run: " + why + "; nothing was recorded");
            }
        }
        List<String> cmd = perfCommand(opt);
        o.println("Running: " + String.join(" ", cmd));
        Process p;
        try {
            // perf and the workload run in the command line's working folder and environment, perf
            // found in that environment's PATH (the resident framework's own may differ).
            Map<String, String> env = WorkingFolder.environment();
            List<String> located = new ArrayList<>(cmd);
            Path program = perf.indexOf('/') < 0 ? Workload.inPath(perf, env.get("PATH")) : null;
            if (program != null) {
                located.set(0, program.toString());
            }
            ProcessBuilder pb = new ProcessBuilder(located).directory(WorkingFolder.current().toFile());
            pb.environment().clear();
            pb.environment().putAll(env);
            p = pb.start();
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
        if (r.summary() != null) {
            SessionName.keep(store, r.sessionId(), opt.name, o);
        }
        print(o, r, null, opt, System.nanoTime() - t0, null);
        String notRun = opt.command.isEmpty() ? null : Workload.shellStatus(exit);
        if (notRun != null) {
            throw new IllegalStateException("the command " + opt.command.get(0) + " could not be run (" + notRun
                    + ", status " + exit + ")" + perfSaid(perfErrors));
        } else if (exit != 0 && stopper == null) {
            throw new IllegalStateException("perf record exited with status " + exit + perfSaid(perfErrors));
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
        ImportOptions o = baseOptions.withCallchains(!opt.noCallchains).withTime(opt.time)
                .withDemangle(!opt.noDemangle);
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

    /** @param rendered the session's report by opreport with the report options, or null for perf report's own */
    private static void print(PrintStream o, PerfImport.Result r, SortedReport sorted, Options opt, long nanos,
            String rendered) {
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
        if (rendered != null) {
            b.append(rendered);
        } else if (sorted != null) {
            sorted.print(b, String.join(",", r.events()), opt.top);
        } else {
            r.report().printFlat(b, String.join(",", r.events()), opt.top);
        }
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
        if (sorted != null) {
            // The report by process counts every sample delivered too, from batches or straight.
            long delivered = r.accounting().delivered();
            o.println("consumer " + SortedReport.NAME + ": received " + sorted.samples() + ", missed "
                    + (delivered - sorted.samples()) + " of the " + delivered + " samples delivered");
        }
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

    /** The parsed arguments of both commands. */
    static final class Options {
        static final Option TOP = Option.value("--top", "N", "the report's N largest rows (default 30)");
        static final Option SORT = Option.value("--sort", "keys", "perf report's --sort keys of the flat profile: "
                + SortKeys.ACCEPTED + " (default dso,sym)");
        static final Option CALLGRAPH = Option.flag("--callgraph", "also the call graph: perf report's children"
                + " view and the stacks of the top rows");
        static final Option NO_CALLCHAINS = Option.flag("--no-callchains", "read no callchain: flat samples only");
        static final Option MAX_HEADER_MB = Option.value("--max-header-mb", "N", "the most of a recording's header"
                + " held in memory, in MiB (a bound against a damaged file)");
        static final Option NO_DEMANGLE = Option.flag("--no-demangle", "show C++ and Rust names as the images have"
                + " them (mangled), as perf report --no-demangle");
        static final Option TIME = Option.value("--time", "ranges", "only the samples in these windows, as perf"
                + " report --time: start,stop in seconds (several separated by spaces, quoted), N%/M (the M-th N%"
                + " slice of the recording's time), A%-B% or N% (several separated by commas)");

        String file;
        String kallsyms;
        /** The session's name (--name), or null. */
        String name;
        final Map<Integer, String> guestKallsyms = new LinkedHashMap<>();
        int top = 30;
        /** The flat profile's keys (--sort). */
        SortKeys sort = SortKeys.DSO_SYM;
        boolean callgraph;
        boolean noCallchains;
        boolean reportOnly;
        long seconds;
        long frequency;
        /** --no-demangle: names as the images have them. */
        boolean noDemangle;
        /** The --time windows, or null for every sample. */
        String time;
        /** The bound on a recording's header held in memory, in MiB, or 0 for the default. */
        long maxHeaderMb;
        final List<String> command = new ArrayList<>();
        /** hp:import's words after the recording: the report's own options. */
        final Set<String> reportWords = new LinkedHashSet<>();

        static Options parse(String[] args, boolean record) throws UsageException {
            Args a = parse(args, record ? RECORD : IMPORT, record ? IMPORT : RECORD);
            Options o = new Options();
            o.kallsyms = a.value("--kallsyms");
            o.name = a.value("--name");
            for (String v : a.values("--guest-kallsyms")) {
                int eq = v.indexOf('=');
                int pid = ImportOptions.ANY_GUEST;
                if (eq > 0) {
                    pid = (int) Args.number(v.substring(0, eq), "the guest pid", 1, MAX_PID);
                    v = v.substring(eq + 1);
                }
                o.guestKallsyms.put(pid, v);
            }
            if (a.value("--top") != null) {
                o.top = (int) Args.number(a.value("--top"), "--top", 1, Integer.MAX_VALUE);
            }
            if (a.value("--max-header-mb") != null) {
                o.maxHeaderMb = Args.number(a.value("--max-header-mb"), "--max-header-mb", 1,
                        ImportOptions.MAX_HEADER_BYTES >> 20);
            }
            o.noDemangle = !record && a.flag("--no-demangle");
            o.time = a.value("--time");
            if (o.time != null) {
                try {
                    // The form only: percents are taken of the recording's time when it is read.
                    TimeRanges.parse(o.time, 1, 2);
                } catch (IllegalArgumentException e) {
                    throw new UsageException(e.getMessage());
                }
            }
            if (!record && a.value("--sort") != null) {
                try {
                    o.sort = SortKeys.parse(a.value("--sort"));
                } catch (IllegalArgumentException e) {
                    throw new UsageException(e.getMessage());
                }
            }
            o.callgraph = a.flag("--callgraph");
            o.noCallchains = a.flag("--no-callchains");
            o.reportOnly = a.flag("--report-only");
            if (a.value("--seconds") != null) {
                o.seconds = Args.number(a.value("--seconds"), "--seconds", 1, MAX_SECONDS, "one day");
            }
            if (a.value("--frequency") != null) {
                o.frequency = Args.number(a.value("--frequency"), "--frequency", 1, Integer.MAX_VALUE);
            }
            o.command.addAll(a.afterOptions());
            List<String> words = a.positional().subList(0, a.positional().size() - a.afterOptions().size());
            if (record) {
                if (!words.isEmpty()) {
                    throw new UsageException("put the command to record after --, e.g. hp:record -- "
                            + String.join(" ", words));
                }
                if (o.command.isEmpty() && o.seconds == 0) {
                    // A whole-system recording is asked for, never the default of a bare hp:record.
                    throw new UsageException("give the command to record after -- (hp:record -- <command...>), or"
                            + " --seconds N to record the whole system for N seconds");
                }
            } else {
                if (!a.afterOptions().isEmpty()) {
                    throw new UsageException("hp:import reads a recording; to record a command: hp:record -- "
                            + String.join(" ", a.afterOptions()));
                }
                if (words.isEmpty()) {
                    throw new UsageException("give the recording to import");
                }
                o.file = words.get(0);
                o.reportWords.addAll(words.subList(1, words.size()));
            }
            if (o.reportOnly && o.name != null) {
                throw new UsageException("--name names the session, and --report-only makes none; give one");
            }
            if (o.callgraph && o.noCallchains) {
                throw new UsageException("--callgraph needs the callchains; leave out --no-callchains");
            }
            return o;
        }

        /** The words by {@code own}'s table; an option only {@code sibling} takes is named as the sibling's. */
        private static Args parse(String[] args, Syntax own, Syntax sibling) throws UsageException {
            try {
                return own.parse(args);
            } catch (UsageException e) {
                for (String w : args == null ? new String[0] : args) {
                    if (w.equals("--")) {
                        break;
                    }
                    String name = w.contains("=") ? w.substring(0, w.indexOf('=')) : w;
                    if (name.startsWith("--") && own.option(name) == null && sibling.option(name) != null) {
                        throw new UsageException(name + " is an option of " + sibling.command() + ", not of "
                                + own.command());
                    }
                }
                throw e;
            }
        }

        /** The kernel's largest pid (PID_MAX_LIMIT, 2^22 on 64-bit). */
        static final long MAX_PID = 4_194_304;
        /** A recording of one day at most: a longer one is a typo more often than a wish. */
        static final long MAX_SECONDS = 86_400;
    }
}
