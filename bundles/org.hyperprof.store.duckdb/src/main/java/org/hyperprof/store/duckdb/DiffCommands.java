package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.store.DiffFlameGraph;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code hp:diff}: two stored sessions compared as {@code perf diff} compares two recordings, or as
 * a differential flame graph; {@code hp:merge}: several stored sessions made one, as opreport merges
 * sample files.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=diff",
        "osgi.command.function=merge"})
public final class DiffCommands {
    /** Rows per summary when no {@code top=N} is given, as hp:report's. */
    static final int DEFAULT_TOP = 30;

    static final String DIFF_ARGUMENTS = "<A> <B> [--domain D] [--event N] [--folded file] [--svg file]"
            + " [--normalize] [--format text|json|csv] [images|symbols] [top=N]";

    static final Syntax DIFF = Syntax.of("hp:diff", "compare stored session B with session A (the baseline), as"
            + " perf diff does").before("<A> <B>", Completion.SESSION)
            .options(Option.value("--domain", "D", "only this domain, by name or id (shares of its own samples)")
                            .completedBy(Completion.DOMAIN),
                    Option.value("--event", "N", "the sessions' event N (default 0, the first)"),
                    Option.value("--folded", "file", "write the differential folded stacks (stack countA countB,"
                            + " as difffolded.pl) instead of the table").completedBy(Completion.FILE),
                    Option.value("--svg", "file", "write the differential flame graph (widths by B, red grew, blue"
                            + " shrank) instead of the table").completedBy(Completion.FILE),
                    Option.flag("--normalize", "with --folded and --svg: A's counts scaled to B's total first, as"
                            + " difffolded.pl -n does (for sessions of different lengths)"),
                    StoreCommands.FORMAT)
            .after("[images|symbols] [top=N]")
            .notes("  images|symbols       only the image summary, or only the symbol summary (default: both)\n"
                    + "  top=N                at most N rows per summary, largest |delta| first (default "
                    + DEFAULT_TOP + ")\n"
                    + "  Rows are matched by domain, image and symbol name. Shares are of samples, as hp:report's %;\n"
                    + "  rates are events (the samples' weight) per second of profiled time. Sessions of different\n"
                    + "  events are not compared. --format json|csv prints the symbol rows (the image rows with\n"
                    + "  images) with the text's columns.");

    static final String MERGE_ARGUMENTS = "<id> <id> [<id> ...] [--name N]";

    static final Syntax MERGE = Syntax.of("hp:merge", "merge ended stored sessions of the same events into a new"
            + " one, as opreport merges sample files").before("<id> <id> [<id> ...]", Completion.SESSION)
            .options(Option.value("--name", "N", "the new session's name"))
            .notes("  Rows are added up by name, books summed; the new session's origin lists the merged ones.");

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

    private final SessionStore store;
    private final FlameGraphFiles flameGraphs;
    private final Console console;
    private final ZoneId zone;

    @Activate
    public DiffCommands(@Reference SessionStore store, @Reference OutputFiles files,
            @Reference(cardinality = ReferenceCardinality.OPTIONAL, policyOption = ReferencePolicyOption.GREEDY)
            DiffFlameGraph flameGraph) {
        this(new FlameGraphFiles(store, files, flameGraph), Console.system(), ZoneId.systemDefault());
    }

    /** Plain Java and tests: the store is the flame graphs'. */
    DiffCommands(FlameGraphFiles flameGraphs, Console console, ZoneId zone) {
        this.store = flameGraphs.store();
        this.flameGraphs = flameGraphs;
        this.console = console;
        this.zone = zone;
    }

    @Descriptor("compare stored session B with session A (the baseline), as perf diff does")
    public void diff(@Descriptor(DIFF_ARGUMENTS) String... args) {
        Guard.run(console, DIFF, args, out -> {
            Args a = DIFF.parse(args).atLeastPositional(2, "name the two sessions, the baseline first"
                    + " (hp:sessions lists them)");
            List<String> words = a.positional();
            long baseline = Args.sessionId(words.get(0));
            long compared = Args.sessionId(words.get(1));
            Layout layout = Layout.of(words.subList(2, words.size()));
            int event = a.value("--event") == null ? 0 : (int) Args.number(a.value("--event"), "--event", 0, 255);
            DiffRequest request = new DiffRequest(baseline, compared, event, a.value("--domain"));
            if (a.value("--folded") != null || a.value("--svg") != null) {
                flameGraphs.write(out, request, a.flag("--normalize"), a.value("--folded"), a.value("--svg"));
                return;
            }
            SessionDiff diff = store.diff(request);
            Table.Format format = Table.Format.of(a.value("--format"));
            if (format != Table.Format.TEXT) {
                // One table for scripts: the symbol rows, or the image rows when only those are asked for.
                table(diff, layout.symbols() ? diff.symbols() : diff.images(), layout, layout.symbols())
                        .print(out, format);
                return;
            }
            print(out, diff, layout, request);
        });
    }

    /**
     * The words after the two ids: {@code images}, {@code symbols}, {@code top=N}.
     *
     * @param images  print the image summary
     * @param symbols print the symbol summary
     */
    record Layout(boolean images, boolean symbols, int top) {
        static Layout of(List<String> words) throws UsageException {
            Set<String> seen = new LinkedHashSet<>();
            int top = DEFAULT_TOP;
            for (String w : words) {
                String word = w.strip().toLowerCase(Locale.ROOT);
                if (word.startsWith("top=")) {
                    top = (int) Args.number(word.substring(4), "top", 1, Integer.MAX_VALUE);
                } else if (word.equals("images") || word.equals("symbols")) {
                    seen.add(word);
                } else {
                    throw new UsageException("'" + w + "' is no word of hp:diff's; after the two ids it takes images,"
                            + " symbols and top=N");
                }
            }
            boolean both = seen.isEmpty() || seen.size() == 2;
            return new Layout(both || seen.contains("images"), both || seen.contains("symbols"), top);
        }
    }

    private void print(PrintStream out, SessionDiff d, Layout layout, DiffRequest request) {
        out.println("Differential profile of session " + d.compared().id() + " (B) against session "
                + d.baseline().id() + " (A, the baseline), event " + d.event() + ", "
                + (request.domain() == null ? "all domains" : "domain " + request.domain()));
        session(out, "A", d.baseline(), d.baselineSamples(), d.baselineWeight(), d.baselineNanos());
        session(out, "B", d.compared(), d.comparedSamples(), d.comparedWeight(), d.comparedNanos());
        out.println("Shares are of samples, as hp:report's %; rates are events (the samples' weight) per second"
                + " of profiled time.");
        if (layout.images()) {
            summary(out, "Image summary", d, d.images(), layout, false);
        }
        if (layout.symbols()) {
            summary(out, "Symbol summary", d, d.symbols(), layout, true);
        }
        out.println();
        out.println(DiffFigures.RULE);
    }

    private void session(PrintStream out, String which, StoredSession s, long samples, long events, long nanos) {
        out.println("  " + which + " " + s.id() + ": " + WHEN.format(s.startedAt().atZone(zone)) + " " + s.source()
                + (s.what() == null ? "" : " " + s.what()) + ", " + samples + " samples (" + events + " events)"
                + (nanos > 0 ? String.format(Locale.ROOT, " in %.6f s profiled", nanos / 1e9)
                        : ", profiled time not known") + "; " + s.accounting().line());
    }

    private static void summary(PrintStream out, String title, SessionDiff d, List<DiffRow> rows, Layout layout,
            boolean symbols) {
        Table t = table(d, rows, layout, symbols);
        out.println();
        out.println(title + " (" + (rows.size() > layout.top() ? "top " + layout.top() + " of " : "") + rows.size()
                + " rows, largest |delta| first):");
        t.print(out);
        if (rows.size() > layout.top()) {
            out.println("... " + (rows.size() - layout.top()) + " more rows not shown (past top=" + layout.top() + ")");
        }
    }

    /** The rows as figures, largest |Δ| first (then by name), at most top=N of them. */
    static Table table(SessionDiff d, List<DiffRow> rows, Layout layout, boolean symbols) {
        List<DiffFigures> figures = new ArrayList<>(rows.size());
        for (DiffRow r : rows) {
            figures.add(DiffFigures.of(r, d));
        }
        figures.sort(Comparator.comparingDouble((DiffFigures f) -> -Math.abs(f.shareB() - f.shareA()))
                .thenComparing(f -> f.row().domain()).thenComparing(f -> f.row().image())
                .thenComparing(f -> String.valueOf(f.row().symbol())));
        List<String> header = new ArrayList<>(List.of("BASELINE", "DELTA", "MARK", "RATIO", "RATE_A", "RATE_DELTA",
                "RATE_RATIO", "SAMPLES_A", "SAMPLES_B", "DOMAIN", "IMAGE"));
        if (symbols) {
            header.add("SYMBOL");
        }
        Table t = new Table(header.toArray(String[]::new));
        for (DiffFigures f : figures.subList(0, Math.min(layout.top(), figures.size()))) {
            List<Object> cells = new ArrayList<>(List.of(percent(100 * f.shareA()), signed(f.deltaPoints()),
                    f.marked() ? "*" : "", ratio(f.ratio()), rate(f.rateA()), signedRate(f.rateB() - f.rateA()),
                    ratio(f.rateRatio()), f.row().baselineSamples(), f.row().comparedSamples(), f.row().domain(),
                    f.row().image()));
            if (symbols) {
                cells.add(f.row().symbol());
            }
            t.row(cells.toArray());
        }
        return t;
    }

    private static String percent(double value) {
        return String.format(Locale.ROOT, "%.4f%%", value);
    }

    private static String signed(double points) {
        return String.format(Locale.ROOT, "%+.4f%%", points);
    }

    private static String ratio(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.6f", value);
    }

    private static String rate(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.0f", value);
    }

    private static String signedRate(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%+.0f", value);
    }

    @Descriptor("merge ended stored sessions of the same events into a new one")
    public void merge(@Descriptor(MERGE_ARGUMENTS) String... args) {
        Guard.run(console, MERGE, args, out -> {
            Args a = MERGE.parse(args)
                    .atLeastPositional(2, "name at least two sessions to merge (hp:sessions lists them)");
            long merged = store.merge(Args.sessionIds(a.positional()), a.value("--name"));
            out.println(merged);
        });
    }
}
