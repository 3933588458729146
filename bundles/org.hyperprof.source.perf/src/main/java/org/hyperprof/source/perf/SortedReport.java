package org.hyperprof.source.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * perf report's flat profile by process ({@code perf report --no-children --sort comm,dso,sym -n},
 * or {@code pid,dso,sym}, {@code comm}, {@code pid}): each sample counted once, under its thread's
 * comm at the sample's time ({@link SampleBatch#comm}) or its thread id, and (with {@code dso,sym})
 * the image and symbol of its own address.
 *
 * <p>While samples come it counts by (comm id, frame), with no allocation per sample; the rows perf
 * prints are made at the end, as perf makes them:
 * <ul>
 * <li>{@code comm}: comms with one name are one row (perf compares the names), a row's level letter
 * is its first sample's;</li>
 * <li>{@code pid}: perf keys by the thread id alone, so a reused tid is one row, printed with the
 * last name of the thread whose sample came first ({@code hist_entry__thread_snprintf});</li>
 * <li>order: period, largest first, then each key ascending as perf's output sort has it (names by
 * their bytes, tids by value, an image without a mapping and an address without a symbol last,
 * addresses without a symbol by address);</li>
 * <li>column widths: perf's ({@code hists__calc_col_len}): the Command column fits the last name
 * of each row's first thread, and {@code Pid:Command} eight more.</li>
 * </ul>
 */
public final class SortedReport implements SampleConsumer {

    /** The report's {@value SampleConsumer#NAME}. */
    static final String NAME = "perf report --sort";

    /** One printed row. */
    public record Row(String comm, int tid, String threadName, String image, char level, String symbol,
            boolean unresolved, long address, long samples, long period) {
    }

    /** What a row keeps of its first sample: its key, its thread and its level letter. */
    private record FirstSample(int comm, int frame, int tid, char level) {
    }

    private final SortKeys keys;
    private SessionInfo session;
    private SessionDictionary dictionary;

    private final LongIntMap index = new LongIntMap(1024);
    /** By row, in the order of their first samples; the counts beside them are what each sample adds to. */
    private final List<FirstSample> firstSamples = new ArrayList<>();
    private long[] rowSamples = new long[1024];
    private long[] rowPeriod = new long[1024];
    private long samples;
    private long period;

    public SortedReport(SortKeys keys) {
        if (!keys.byProcess()) {
            throw new IllegalArgumentException("--sort " + keys + " has no process key: the import's own report"
                    + " prints it");
        }
        this.keys = keys;
    }

    /** The service properties the report is bound with: it counts in the call, as the flat report does. */
    Map<String, Object> properties() {
        return Map.of(SampleConsumer.NAME, NAME, SampleConsumer.DELIVERY, "tap");
    }

    public SortKeys keys() {
        return keys;
    }

    @Override
    public void sessionStarted(SessionInfo session) {
        this.session = session;
        this.dictionary = session.dictionary();
    }

    /** The session counted (null before it started): its events are the report's. */
    SessionInfo session() {
        return session;
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
    }

    @Override
    public void samples(SampleBatch b) {
        boolean frames = keys.frames();
        for (int i = 0; i < b.size; i++) {
            int comm = b.comm[i];
            int frame = frames ? b.symbol[i] : 0;
            long key = ((long) comm << 32) | (frame & 0xFFFFFFFFL);
            int r = index.get(key);
            if (r == LongIntMap.ABSENT) {
                r = newRow(new FirstSample(comm, frame, b.tid[i], frames ? letter(b, i) : ' '));
                index.put(key, r);
            }
            rowSamples[r]++;
            rowPeriod[r] += b.weight[i];
            samples++;
            period += b.weight[i];
        }
    }

    private static char letter(SampleBatch b, int i) {
        return b.has(i, SampleBatch.MODE_UNKNOWN) ? 'H'
                : PerfReport.letter(b.mode[i], b.domain[i] != Machines.HOST_DOMAIN);
    }

    private int newRow(FirstSample first) {
        int r = firstSamples.size();
        firstSamples.add(first);
        if (r == rowSamples.length) {
            rowSamples = Arrays.copyOf(rowSamples, r * 2);
            rowPeriod = Arrays.copyOf(rowPeriod, r * 2);
        }
        return r;
    }

    public long samples() {
        return samples;
    }

    public long period() {
        return period;
    }

    // ---------------------------------------------------------------- results

    /** The rows as perf prints them, in its order. */
    public List<Row> rows() {
        Map<String, Row> rows = new LinkedHashMap<>();
        // Rows were made in the order of their first samples: the first of a key is the one perf keeps.
        for (int r = 0; r < firstSamples.size(); r++) {
            FirstSample s = firstSamples.get(r);
            String comm = commName(s.comm(), s.tid());
            String process = keys.process().equals("comm") ? comm : Integer.toString(s.tid());
            String image = "";
            String symbol = "";
            boolean unresolved = false;
            long address = 0;
            int frame = s.frame();
            if (keys.frames()) {
                int img = dictionary.symbolImage(frame);
                ImageKind kind = dictionary.imageKind(img);
                image = kind == ImageKind.UNKNOWN || kind == ImageKind.HYPERVISOR ? null
                        : Dso.shortName(dictionary.imageName(img));
                unresolved = SessionDictionary.isAddress(frame);
                address = unresolved ? dictionary.symbolAddress(frame) : 0;
                symbol = dictionary.briefName(frame);
            }
            String key = process + "\u0000" + image + "\u0000" + (unresolved ? "@" + address : frame);
            Row first = rows.get(key);
            long n = rowSamples[r];
            long p = rowPeriod[r];
            if (first == null) {
                String thread = threadName(s.comm(), s.tid());
                rows.put(key, new Row(comm, s.tid(), thread, image, s.level(), symbol, unresolved, address, n, p));
            } else {
                rows.put(key, new Row(first.comm(), first.tid(), first.threadName(), first.image(), first.level(),
                        first.symbol(), first.unresolved(), first.address(), first.samples() + n, first.period() + p));
            }
        }
        List<Row> out = new ArrayList<>(rows.values());
        out.sort(order());
        return out;
    }

    private String commName(int comm, int tid) {
        String name = dictionary.commName(comm);
        return name != null ? name : ":" + tid;
    }

    private String threadName(int comm, int tid) {
        String name = dictionary.threadName(comm);
        return name != null ? name : ":" + tid;
    }

    /** perf's output order: period (largest first), then each key as its sort function has it. */
    private Comparator<Row> order() {
        Comparator<Row> c = Comparator.comparingLong(Row::period).reversed();
        c = keys.process().equals("comm") ? c.thenComparing(Row::comm, SortedReport::bytes)
                : c.thenComparingInt(Row::tid);
        if (keys.frames()) {
            // No mapping, no symbol: after the others (cmp_null); names by their bytes (strcmp).
            c = c.thenComparing(Row::image, Comparator.nullsLast(SortedReport::bytes))
                    .thenComparing(r -> r.unresolved() ? null : r.symbol(), Comparator.nullsLast(SortedReport::bytes))
                    .thenComparing((a, b) -> Long.signum(a.address() - b.address()));
        }
        return c;
    }

    /** strcmp: by the UTF-8 bytes, unsigned. */
    private static int bytes(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Prints the report as {@code perf report --stdio --no-children --sort <keys> -n} does: the
     * totals, the column heads, then rows up to {@code limit}.
     */
    public void print(Appendable out, String event, int limit) {
        List<Row> rows = rows();
        int commWidth = "Command".length();
        int dsoWidth = "Shared Object".length();
        int symWidth = "Symbol".length();
        for (Row r : rows) {
            commWidth = Math.max(commWidth, r.threadName().length());
            if (keys.frames()) {
                if (r.image() != null) {
                    dsoWidth = Math.max(dsoWidth, r.image().length());
                }
                if (r.unresolved()) {
                    dsoWidth = Math.max(dsoWidth, 16);
                    symWidth = Math.max(symWidth, 16 + 4 + 2);
                } else {
                    symWidth = Math.max(symWidth, r.symbol().length() + 4);
                }
            }
        }
        int pidWidth = Math.max("    Pid:Command".length(), commWidth + 8);
        boolean comm = keys.process().equals("comm");
        try {
            out.append(String.format(Locale.ROOT, "# Samples: %d  of event '%s'%n", samples, event));
            out.append(String.format(Locale.ROOT, "# Event count (approx.): %d%n#%n", period));
            StringBuilder head = new StringBuilder("# Overhead       Samples");
            StringBuilder dots = new StringBuilder("# ........  ............");
            column(head, dots, comm ? "Command" : "    Pid:Command", comm ? commWidth : pidWidth);
            if (keys.frames()) {
                column(head, dots, "Shared Object", dsoWidth);
                column(head, dots, "Symbol", symWidth);
            }
            out.append(head).append(System.lineSeparator()).append(dots).append(System.lineSeparator())
                    .append("#").append(System.lineSeparator());
            int n = 0;
            for (Row r : rows) {
                if (n++ == limit) {
                    out.append(String.format(Locale.ROOT, "  ... %d more rows%n", rows.size() - limit));
                    break;
                }
                out.append(line(r, comm, commWidth, pidWidth, dsoWidth)).append(System.lineSeparator());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void column(StringBuilder head, StringBuilder dots, String name, int width) {
        head.append("  ").append(pad(name, width));
        dots.append("  ").append(".".repeat(width));
    }

    /** One row as perf prints it. */
    String line(Row r, boolean comm, int commWidth, int pidWidth, int dsoWidth) {
        StringBuilder b = new StringBuilder();
        String percent = PerfReport.percentText(r.period(), period);
        b.append("  ").append(" ".repeat(Math.max(0, 8 - percent.length()))).append(percent);
        b.append(String.format(Locale.ROOT, "  %12d", r.samples()));
        if (comm) {
            b.append("  ").append(pad(r.comm(), commWidth));
        } else {
            b.append("  ").append(String.format(Locale.ROOT, "%7d:", r.tid())).append(pad(r.threadName(), pidWidth - 8));
        }
        if (keys.frames()) {
            b.append("  ").append(pad(r.image() != null ? r.image() : "[unknown]", dsoWidth));
            b.append("  [").append(r.level()).append("] ").append(r.symbol());
        }
        return b.toString();
    }

    /** printf's {@code %-W.Ws}: cut or padded to exactly {@code width}. */
    private static String pad(String s, int width) {
        return s.length() >= width ? s.substring(0, width) : s + " ".repeat(width - s.length());
    }
}
