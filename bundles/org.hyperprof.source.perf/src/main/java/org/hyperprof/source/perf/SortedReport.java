package org.hyperprof.source.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
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
 * <p>While samples come it counts by (process, frame), the process being the comm's name or the
 * thread id as the keys ask, with no allocation per sample; the rows perf
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

    /** What a row keeps of its first sample: its comm and frame, its thread and its level letter. */
    private record FirstSample(int comm, int frame, int tid, char level) {
    }

    private final SortKeys keys;
    /** Whether the process key is the comm's name ({@code comm}), else the thread id ({@code pid}). */
    private final boolean byName;
    private SessionInfo session;
    private SessionDictionary dictionary;

    private final LongIntMap index = new LongIntMap(1024);
    /** By row, in the order of their first samples; the counts beside them are what each sample adds to. */
    private final List<FirstSample> firstSamples = new ArrayList<>();
    private long[] rowSamples = new long[1024];
    private long[] rowPeriod = new long[1024];
    /** By row: the process it counts (see samples), to check a frame's last row against a sample's. */
    private int[] rowProcess = new int[1024];
    /** By comm id: the first comm id of its name + 1 (0: not met yet); see sameName. */
    private int[] commFirst = new int[0];
    private final Map<String, Integer> firstOfName = new HashMap<>();
    /**
     * By symbol, and by address symbol's index: the row + 1 its last sample went to (0: none yet).
     * Most frames are met under one comm, so most samples find their row here without hashing.
     */
    private int[] symbolRow = new int[0];
    private int[] addressRow = new int[0];
    /** The same for samples with no symbol at all ({@link SessionDictionary#NO_SYMBOL}). */
    private final int[] noSymbolRow = new int[1];
    private long samples;
    private long period;

    public SortedReport(SortKeys keys) {
        if (!keys.byProcess()) {
            throw new IllegalArgumentException("--sort " + keys + " has no process key: the import's own report"
                    + " prints it");
        }
        this.keys = keys;
        this.byName = keys.process().equals("comm");
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
            int tid = b.tid[i];
            int process = process(comm, tid);
            int frame = frames ? b.symbol[i] : 0;
            int r = row(process, frame);
            if (r < 0) {
                r = newRow(process, new FirstSample(comm, frame, tid, frames ? letter(b, i) : ' '));
            }
            rowSamples[r]++;
            rowPeriod[r] += b.weight[i];
            samples++;
            period += b.weight[i];
        }
    }

    /**
     * Counts {@code n} samples of period {@code p} in all, of comm id {@code comm}, thread
     * {@code tid} and own frame {@code frame}, as {@link #samples} counts a sample; {@code level} is
     * the first one's level letter. For an import that counts samples without batches
     * ({@link PerfImport}, report only), which may count samples of one process (see
     * {@link #process}) and address together: {@code comm} and {@code tid} are then the first one's.
     */
    void count(int comm, int tid, int frame, char level, long n, long p) {
        int process = process(comm, tid);
        boolean frames = keys.frames();
        int f = frames ? frame : 0;
        int r = row(process, f);
        if (r < 0) {
            r = newRow(process, new FirstSample(comm, f, tid, frames ? level : ' '));
        }
        rowSamples[r] += n;
        rowPeriod[r] += p;
        samples += n;
        period += p;
    }

    /**
     * What a sample of comm id {@code comm} and thread {@code tid} is counted by: the comm's name
     * (the first comm id of that name) or the thread id, as perf keys the process. Comm ids are many
     * more (one per thread and rename: 2,672 ids for the 7 names of a recording of shell loops),
     * and counting by them made 17 times the rows, merged only at the end.
     */
    int process(int comm, int tid) {
        return byName ? sameName(comm) : tid;
    }

    /** The row of (process, frame), or -1 for none yet; the frame's last row is tried first. */
    private int row(int process, int frame) {
        int[] last = noSymbolRow;
        int at = 0;
        if (frame >= 0) {
            last = symbolRow.length > frame ? symbolRow : (symbolRow = grown(symbolRow, frame));
            at = frame;
        } else if (SessionDictionary.isAddress(frame)) {
            at = SessionDictionary.addressIndex(frame);
            last = addressRow.length > at ? addressRow : (addressRow = grown(addressRow, at));
        }
        int r = last[at] - 1;
        if (r >= 0 && rowProcess[r] == process) {
            return r;
        }
        r = index.get(key(process, frame));
        if (r != LongIntMap.ABSENT) {
            last[at] = r + 1;
        }
        return r;
    }

    private static long key(int process, int frame) {
        return ((long) process << 32) | (frame & 0xFFFFFFFFL);
    }

    private static char letter(SampleBatch b, int i) {
        return b.has(i, SampleBatch.MODE_UNKNOWN) ? 'H'
                : PerfReport.letter(b.mode[i], b.domain[i] != Machines.HOST_DOMAIN);
    }

    /**
     * The first comm id met with {@code comm}'s name: comms of one name count as one process, as
     * perf compares names. A comm still named {@code :<tid>} stands for itself: the thread's first
     * COMM renames it ({@link Threads}), and rows are merged by their final names in {@link #rows}.
     */
    private int sameName(int comm) {
        if (comm < 0) {
            return comm;
        }
        if (comm >= commFirst.length) {
            commFirst = grown(commFirst, comm);
        }
        int first = commFirst[comm] - 1;
        if (first < 0) {
            String name = dictionary.commName(comm);
            first = name == null || name.startsWith(":") ? comm : firstOfName.computeIfAbsent(name, n -> comm);
            commFirst[comm] = first + 1;
        }
        return first;
    }

    /** A new row of (process, first's frame), its first sample {@code first}: the frame's last row (after {@link #row}). */
    private int newRow(int process, FirstSample first) {
        int r = firstSamples.size();
        firstSamples.add(first);
        if (r == rowSamples.length) {
            rowSamples = Arrays.copyOf(rowSamples, r * 2);
            rowPeriod = Arrays.copyOf(rowPeriod, r * 2);
            rowProcess = Arrays.copyOf(rowProcess, r * 2);
        }
        rowProcess[r] = process;
        index.put(key(process, first.frame()), r);
        int frame = first.frame();
        if (frame >= 0) {
            symbolRow[frame] = r + 1;
        } else if (SessionDictionary.isAddress(frame)) {
            addressRow[SessionDictionary.addressIndex(frame)] = r + 1;
        } else {
            noSymbolRow[0] = r + 1;
        }
        return r;
    }

    /** {@code rows} long enough for index {@code at}, doubled so that growing is rare. */
    private static int[] grown(int[] rows, int at) {
        return Arrays.copyOf(rows, Math.max(at + 1, Math.max(1024, rows.length * 2)));
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
