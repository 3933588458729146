package org.hyperprof.report.opreport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * Renders one session snapshot as opreport text. Built fresh for every report (off the delivery
 * thread), so it may allocate freely: rows are grouped by names, not ids, because each domain's
 * daemon resolves its own copy of shared images such as {@code xen-syms}.
 *
 * <p>Layout: OProfile's header (CPU and speed, one "Counted ..." line per counter), then for all
 * domains the merged report followed by each domain's own report (for one domain only its own),
 * each with an image summary and a symbol summary (opreport -l columns: one samples / % pair per
 * counter, optionally true % and error) and the hypervisor / kernel / user split; then the
 * accounting and the notes that say what the percentages are over.
 */
final class OpreportText {

    static final String NO_SYMBOLS = "(no symbols)";

    /** Split classes in print order; index = {@link #splitClass(ImageKind)}. */
    private static final int HYPERVISOR = 0;
    private static final int KERNEL = 1;
    private static final int USER = 2;
    private static final int UNKNOWN = 3;
    private static final int CLASSES = 4;

    private final SessionAggregate.Snapshot snapshot;
    private final SessionInfo info;
    private final SessionSummary summary;
    private final List<CounterConfig> counters;
    private final int counterCount;
    private final ReportOptions options;
    private final GroundTruth truth;

    private final Map<ImageKey, Row> imageRows = new HashMap<>();
    private final Map<SymbolKey, Row> symbolRows = new HashMap<>();
    private final SortedSet<Integer> sampledDomains = new TreeSet<>();
    /** The domains whose samples could reach a buffer: the population the true shares are over. */
    private final SortedSet<Integer> profiledDomains = new TreeSet<>();
    /** Per profiled domain: true milli-events [counter][split class]. */
    private final Map<Integer, long[][]> trueSplit = new HashMap<>();

    private record ImageKey(int domain, String image) {
    }

    private record SymbolKey(int domain, String image, String symbol) {
    }

    /** One row of a summary: an image (symbol null) or a symbol, its samples and true milli-events per counter. */
    private static final class Row {
        final int domain;
        final String image;
        final ImageKind kind;
        final String symbol;
        final long[] samples;
        final long[] trueMilli;

        Row(int domain, String image, ImageKind kind, String symbol, int counters) {
            this.domain = domain;
            this.image = image;
            this.kind = kind;
            this.symbol = symbol;
            this.samples = new long[counters];
            this.trueMilli = new long[counters];
        }
    }

    OpreportText(SessionAggregate.Snapshot snapshot, ReportOptions options) {
        this.snapshot = snapshot;
        this.info = snapshot.info();
        this.summary = snapshot.summary();
        this.counters = info.counters();
        this.counterCount = counters.size();
        this.options = options;
        this.truth = options.truth() != ReportOptions.Truth.OFF && summary != null ? summary.groundTruth() : null;
        collectSamples();
        collectProfiledDomains();
        if (truth != null) {
            collectTruth();
        }
    }

    /** The report for {@code domain} ({@link ReportRequest#ALL_DOMAINS}: merged, then every domain). */
    String render(int domain, ConsumerStrays strays) throws ReportException {
        boolean all = domain == ReportRequest.ALL_DOMAINS;
        if (!all && !sampledDomains.contains(domain) && !profiledDomains.contains(domain)
                && !info.domains().containsKey(domain)) {
            throw new ReportException("domain " + domain + " is not part of session " + info.sessionId()
                    + "; its domains are " + describeDomains(allDomains())
                    + "; ask for one of them, or for all domains");
        }
        StringBuilder out = new StringBuilder(8192);
        header(out);
        if (all) {
            section(out, "All domains, merged (% of the samples of every profiled domain together)", null);
            for (int d : reportedDomains()) {
                section(out, domainTitle(d) + ": its own report (% of its own samples)", d);
            }
        } else {
            section(out, domainTitle(domain) + ": its own report (% of its own samples)", domain);
        }
        accounting(out, all ? null : domain, strays);
        notes(out, all);
        return out.toString();
    }

    // ---------------------------------------------------------------- collecting

    private void collectSamples() {
        SessionDictionary dictionary = info.dictionary();
        snapshot.imageSamples().forEach((key, count) -> {
            int d = SessionAggregate.keyDomain(key);
            int image = SessionAggregate.keyId(key);
            String name = dictionary.imageName(image);
            Row row = imageRows.computeIfAbsent(new ImageKey(d, name),
                    k -> new Row(d, name, dictionary.imageKind(image), null, counterCount));
            row.samples[SessionAggregate.keyCounter(key)] += count;
            sampledDomains.add(d);
        });
        snapshot.symbolSamples().forEach((key, count) -> {
            int d = SessionAggregate.keyDomain(key);
            int slot = SessionAggregate.keyId(key);
            int image = slot < 0 ? ~slot : dictionary.symbolImage(slot);
            String imageName = dictionary.imageName(image);
            String symbol = slot < 0 ? NO_SYMBOLS : dictionary.symbolName(slot);
            Row row = symbolRows.computeIfAbsent(new SymbolKey(d, imageName, symbol),
                    k -> new Row(d, imageName, dictionary.imageKind(image), symbol, counterCount));
            row.samples[SessionAggregate.keyCounter(key)] += count;
        });
    }

    private void collectProfiledDomains() {
        profiledDomains.addAll(sampledDomains);
        if (summary != null) {
            for (BufferAccounting buffer : summary.buffers()) {
                if (!"ignored".equalsIgnoreCase(buffer.role())) {
                    profiledDomains.add(buffer.domid());
                }
            }
        }
    }

    /**
     * Adds the true milli-events of every ground-truth row of a profiled domain to the row the
     * profile shows it under. A truth row keeps its image and symbol names, with two exceptions
     * that follow what the daemon can see: an image the domain never sampled under its own name
     * but under its passive pseudo-image ({@code domain<N>-kernel}, ...) is shown under that
     * pseudo-image, and a symbol of an image that was resolved without symbols (or of a
     * pseudo-image that lacks it) is shown as {@code (no symbols)}.
     */
    private void collectTruth() {
        Map<Integer, Set<String>> sampledImages = new HashMap<>();
        for (Row row : imageRows.values()) {
            sampledImages.computeIfAbsent(row.domain, k -> new HashSet<>()).add(row.image);
        }
        Map<ImageKey, Set<String>> namedSymbols = new HashMap<>();
        for (Row row : symbolRows.values()) {
            Set<String> named = namedSymbols.computeIfAbsent(new ImageKey(row.domain, row.image),
                    k -> new HashSet<>());
            if (!NO_SYMBOLS.equals(row.symbol)) {
                named.add(row.symbol);
            }
        }
        Signal[] signals = new Signal[counterCount];
        for (int c = 0; c < counterCount; c++) {
            signals[c] = counters.get(c).event().signal();
        }
        for (GroundTruth.Row t : truth.rows()) {
            int d = t.domid();
            if (!profiledDomains.contains(d)) {
                continue;
            }
            long[] milli = new long[counterCount];
            boolean any = false;
            for (int c = 0; c < counterCount; c++) {
                milli[c] = signals[c] == null ? 0 : t.milli(signals[c]);
                any |= milli[c] != 0;
            }
            long[][] split = trueSplit.computeIfAbsent(d, k -> new long[counterCount][CLASSES]);
            for (int c = 0; c < counterCount; c++) {
                split[c][splitClass(t.kind())] += milli[c];
            }
            if (!any) {
                continue;
            }
            Set<String> images = sampledImages.getOrDefault(d, Set.of());
            String image = t.image();
            if (!images.contains(image)) {
                String pseudo = pseudoImage(d, t.kind());
                if (pseudo != null && images.contains(pseudo)) {
                    image = pseudo;
                }
            }
            String symbol = t.symbol() == null ? NO_SYMBOLS : t.symbol();
            Set<String> named = namedSymbols.get(new ImageKey(d, image));
            boolean resolvedWithoutSymbols = named != null && named.isEmpty();
            boolean pseudoWithoutIt = !image.equals(t.image()) && (named == null || !named.contains(symbol));
            if (resolvedWithoutSymbols || pseudoWithoutIt) {
                symbol = NO_SYMBOLS;
            }
            String rowImage = image;
            String rowSymbol = symbol;
            Row imageRow = imageRows.computeIfAbsent(new ImageKey(d, rowImage),
                    k -> new Row(d, rowImage, t.kind(), null, counterCount));
            Row symbolRow = symbolRows.computeIfAbsent(new SymbolKey(d, rowImage, rowSymbol),
                    k -> new Row(d, rowImage, t.kind(), rowSymbol, counterCount));
            for (int c = 0; c < counterCount; c++) {
                imageRow.trueMilli[c] += milli[c];
                symbolRow.trueMilli[c] += milli[c];
            }
        }
    }

    /** The pseudo-image a passive domain's samples of this kind are grouped under (xenoprof-facts 8.5). */
    private static String pseudoImage(int domain, ImageKind kind) {
        String suffix = switch (kind) {
            case HYPERVISOR -> "xen";
            case KERNEL -> "kernel";
            case MODULE -> "modules";
            case USER -> "apps";
            case UNKNOWN -> null;
        };
        return suffix == null ? null : "domain" + domain + "-" + suffix;
    }

    private static int splitClass(ImageKind kind) {
        return switch (kind) {
            case HYPERVISOR -> HYPERVISOR;
            case KERNEL, MODULE -> KERNEL;
            case USER -> USER;
            case UNKNOWN -> UNKNOWN;
        };
    }

    // ---------------------------------------------------------------- header and sections

    private void header(StringBuilder out) {
        out.append("CPU: ").append(info.cpuName()).append(", speed ").append(info.mhz()).append(" MHz (estimated)\n");
        for (CounterConfig counter : counters) {
            out.append(counter.describe()).append('\n');
        }
        out.append("Session ").append(info.sessionId()).append(" (source ").append(info.source()).append(", host ")
                .append(info.hostName()).append(", cpu_type ").append(info.cpuType()).append("): ");
        if (summary == null) {
            out.append("running, ").append(snapshot.samples()).append(" samples so far");
        } else if (summary.completed()) {
            out.append(SessionSummary.COMPLETED);
        } else {
            out.append("ended early: ").append(summary.endReason());
        }
        out.append('\n');
        if (counterCount > 1) {
            // opreport prints one samples / % pair per counter, in the order of the Counted lines
            out.append("Columns, left to right: ").append(counters.stream()
                    .map(c -> "counter " + c.counter() + " (" + c.event().name() + ")")
                    .collect(Collectors.joining(", "))).append('\n');
        }
    }

    private void section(StringBuilder out, String title, Integer domain) {
        boolean merged = domain == null;
        List<Row> images = imageRows.values().stream().filter(r -> merged || r.domain == domain)
                .sorted(ROW_ORDER).toList();
        long[] total = new long[counterCount];
        long[] trueTotal = new long[counterCount];
        for (Row row : images) {
            for (int c = 0; c < counterCount; c++) {
                total[c] += row.samples[c];
                trueTotal[c] += row.trueMilli[c];
            }
        }
        out.append('\n').append(title).append('\n').append("=".repeat(title.length())).append('\n');
        boolean sampled = false;
        for (long t : total) {
            sampled |= t != 0;
        }
        if (!sampled) {
            out.append(merged ? "no samples in this session yet\n" : noSamplesReason(domain));
            if (images.isEmpty()) {
                return;
            }
        }
        if (options.images()) {
            out.append("Image summary:\n");
            TextTable table = new TextTable(headings(merged, false));
            for (Row row : images) {
                table.add(cells(row, total, trueTotal, merged));
            }
            table.write(out);
        }
        if (options.symbols()) {
            List<Row> symbols = symbolRows.values().stream().filter(r -> merged || r.domain == domain)
                    .sorted(ROW_ORDER).toList();
            int shown = Math.min(options.top(), symbols.size());
            out.append(options.images() ? "\n" : "").append("Symbol summary (")
                    .append(shown < symbols.size() ? "top " + shown + " of " : "all ").append(symbols.size())
                    .append(" rows):\n");
            TextTable table = new TextTable(headings(merged, true));
            for (Row row : symbols.subList(0, shown)) {
                table.add(cells(row, total, trueTotal, merged));
            }
            table.write(out);
            if (shown < symbols.size()) {
                hiddenRows(out, symbols.subList(shown, symbols.size()), total, trueTotal);
            }
        }
        out.append('\n');
        split(out, images, total, domain);
    }

    private String noSamplesReason(int domain) {
        if (profiledDomains.contains(domain)) {
            return "no samples: the domain was profiled but no sample of it reached opreport\n";
        }
        return "no samples: the domain was not profiled in this session (it was neither active nor passive)\n";
    }

    private List<String> headings(boolean domainColumn, boolean symbolColumn) {
        List<String> h = new ArrayList<>();
        for (int c = 0; c < counterCount; c++) {
            h.add("samples");
            h.add("%");
            if (truth != null) {
                h.add("true %");
                h.add("error");
            }
        }
        if (domainColumn) {
            h.add("domain");
        }
        h.add("image name");
        if (symbolColumn) {
            h.add("symbol name");
        }
        return h;
    }

    private List<String> cells(Row row, long[] total, long[] trueTotal, boolean domainColumn) {
        List<String> cells = new ArrayList<>();
        for (int c = 0; c < counterCount; c++) {
            double sampled = percent(row.samples[c], total[c]);
            cells.add(Long.toString(row.samples[c]));
            cells.add(fourDecimals(sampled));
            if (truth != null) {
                if (trueTotal[c] == 0) {
                    cells.add("-");
                    cells.add("-");
                } else {
                    double truePercent = percent(row.trueMilli[c], trueTotal[c]);
                    cells.add(fourDecimals(truePercent));
                    cells.add(String.format(Locale.ROOT, "%+.4f", sampled - truePercent));
                }
            }
        }
        if (domainColumn) {
            cells.add(info.domainName(row.domain));
        }
        cells.add(row.image);
        if (row.symbol != null) {
            cells.add(row.symbol);
        }
        return cells;
    }

    private void hiddenRows(StringBuilder out, List<Row> hidden, long[] total, long[] trueTotal) {
        out.append("... ").append(hidden.size()).append(" more rows not shown (top=N shows more):");
        for (int c = 0; c < counterCount; c++) {
            long samples = 0;
            long trueMilli = 0;
            for (Row row : hidden) {
                samples += row.samples[c];
                trueMilli += row.trueMilli[c];
            }
            out.append(c == 0 ? " " : "; ").append(samples).append(" samples (")
                    .append(fourDecimals(percent(samples, total[c]))).append(" %)");
            if (truth != null && trueTotal[c] != 0) {
                out.append(", true ").append(fourDecimals(percent(trueMilli, trueTotal[c]))).append(" %");
            }
        }
        out.append('\n');
    }

    /** The hypervisor / kernel / user split of the section's samples, and of the truth when shown. */
    private void split(StringBuilder out, List<Row> images, long[] total, Integer domain) {
        long[][] sampled = new long[counterCount][CLASSES];
        for (Row row : images) {
            for (int c = 0; c < counterCount; c++) {
                sampled[c][splitClass(row.kind)] += row.samples[c];
            }
        }
        long[][] trueMilli = new long[counterCount][CLASSES];
        for (Map.Entry<Integer, long[][]> e : trueSplit.entrySet()) {
            if (domain == null || e.getKey().equals(domain)) {
                for (int c = 0; c < counterCount; c++) {
                    for (int k = 0; k < CLASSES; k++) {
                        trueMilli[c][k] += e.getValue()[c][k];
                    }
                }
            }
        }
        for (int c = 0; c < counterCount; c++) {
            if (counterCount > 1) {
                out.append("counter ").append(counters.get(c).counter()).append(" (")
                        .append(counters.get(c).event().name()).append(") ");
            }
            long[] s = sampled[c];
            out.append("hypervisor/kernel/user split: sampled ").append(splitPercents(s, total[c])).append(" %");
            long trueTotal = trueMilli[c][HYPERVISOR] + trueMilli[c][KERNEL] + trueMilli[c][USER]
                    + trueMilli[c][UNKNOWN];
            if (truth != null && trueTotal != 0) {
                out.append(", true ").append(splitPercents(trueMilli[c], trueTotal)).append(" %");
            }
            out.append("  (").append(s[HYPERVISOR]).append('/').append(s[KERNEL]).append('/').append(s[USER])
                    .append(" of ").append(total[c]).append(" samples");
            if (s[UNKNOWN] != 0) {
                out.append("; ").append(s[UNKNOWN]).append(" samples (")
                        .append(twoDecimals(percent(s[UNKNOWN], total[c])))
                        .append(" %) at PCs no image of the domain maps");
            }
            out.append(")\n");
        }
    }

    private static String splitPercents(long[] byClass, long total) {
        return twoDecimals(percent(byClass[HYPERVISOR], total)) + "/" + twoDecimals(percent(byClass[KERNEL], total))
                + "/" + twoDecimals(percent(byClass[USER], total));
    }

    // ---------------------------------------------------------------- accounting and notes

    private void accounting(StringBuilder out, Integer domain, ConsumerStrays strays) {
        out.append('\n').append("Accounting\n==========\n");
        if (summary == null) {
            out.append("the session is still running; its books (taken = delivered + lost + dropped + invalid)"
                    + " arrive when it ends\n");
        } else {
            out.append("session: ").append(summary.accounting().line()).append('\n');
            if (!summary.completed()) {
                out.append("session ended early: ").append(summary.endReason()).append('\n');
            }
            Map<Integer, List<BufferAccounting>> byDomain = summary.buffers().stream()
                    .filter(b -> domain == null || b.domid() == domain)
                    .collect(Collectors.groupingBy(BufferAccounting::domid, TreeMap::new,
                            Collectors.toList()));
            for (Map.Entry<Integer, List<BufferAccounting>> e : byDomain.entrySet()) {
                Accounting sum = Accounting.ZERO;
                for (BufferAccounting b : e.getValue()) {
                    sum = sum.plus(b.accounting());
                }
                out.append(info.domainName(e.getKey())).append(" (domain ").append(e.getKey()).append("): ")
                        .append(sum.line()).append('\n');
                e.getValue().stream().sorted(Comparator.comparingInt(BufferAccounting::vcpu))
                        .forEach(b -> out.append("  vcpu ").append(b.vcpu()).append(" (").append(b.role())
                                .append("): ").append(b.accounting().line()).append("; user ")
                                .append(b.userSamples()).append(", kernel ").append(b.kernelSamples())
                                .append(", xen ").append(b.xenSamples()).append("; drained ").append(b.drained())
                                .append(", undrained ").append(b.undrained()).append('\n'));
            }
            XenoprofStatistics xen = summary.hypervisor();
            if (xen != null && domain == null) {
                out.append("xen: total_samples ").append(xen.totalSamples()).append(", active ")
                        .append(xen.activeSamples()).append(", passive ").append(xen.passiveSamples())
                        .append(", lost ").append(xen.lostSamples()).append(", others ").append(xen.othersSamples())
                        .append(" (idle ").append(xen.idleSamples()).append("), invalid buffer ")
                        .append(xen.invalidBufferSamples()).append(", corrupted buffer ")
                        .append(xen.corruptedBufferSamples()).append(xen.balanced() ? "" : "  ** DOES NOT BALANCE **")
                        .append('\n');
            }
            for (ConsumerAccounting consumer : summary.consumers()) {
                out.append("consumer ").append(consumer.consumer()).append(": received ").append(consumer.received())
                        .append(", missed ").append(consumer.missed());
                if (consumer.problem() != null) {
                    out.append(" (first problem: ").append(consumer.problem()).append(')');
                }
                out.append('\n');
            }
        }
        out.append("opreport: aggregated ").append(snapshot.samples()).append(" samples from ")
                .append(snapshot.batches()).append(" batches");
        if (snapshot.rejectedSamples() == 0) {
            out.append(", rejected none\n");
        } else {
            out.append(", rejected ").append(snapshot.rejectedSamples()).append(" samples in ")
                    .append(snapshot.rejectedBatches()).append(" batches (first: ").append(snapshot.firstRejection())
                    .append(")\n");
        }
        if (strays.deliveries() > 0) {
            out.append("opreport: ignored ").append(strays.deliveries()).append(" deliveries (")
                    .append(strays.samples()).append(" samples) that were unreadable or for sessions it never saw"
                            + " start or no longer keeps (first: ")
                    .append(strays.first()).append(")\n");
        }
        if (summary != null && domain == null) {
            long handed = 0;
            for (BufferAccounting b : summary.buffers()) {
                handed += b.drained();
            }
            if (summary.buffers().isEmpty()) {
                handed = summary.accounting().delivered();
            }
            if (snapshot.samples() < handed) {
                out.append("note: opreport aggregated ").append(snapshot.samples()).append(" of the ").append(handed)
                        .append(" samples the daemons drained (the rest were rejected, missed, or sent before it"
                                + " arrived); sampled % is over what it aggregated\n");
            }
        }
    }

    private void notes(StringBuilder out, boolean all) {
        List<String> notes = new ArrayList<>();
        if (truth != null) {
            notes.add("true % is the simulator's exact count of each counter's signal ("
                    + counters.stream().map(c -> c.event().name() + " = "
                            + (c.event().signal() == null ? "nothing the simulator emits" : c.event().signal()))
                            .collect(Collectors.joining(", "))
                    + ") for the row, over " + (all ? "all rows of the profiled domains " : "the domain's rows; ")
                    + (all ? describeDomains(profiledDomains) + "; " : "")
                    + "error = sampled % - true %, in percentage points.");
            notes.add("the population is the profiled domains (those with a sample buffer in this session): Xen drops"
                    + " the samples of the idle domain and of unprofiled domains before any buffer, so their events"
                    + " are outside both sampled % and true %; hypervisor work counts for the domain it served.");
            notes.add("a row with 0 samples holds events the profile never sampled.");
            for (CounterConfig c : counters) {
                if (!(c.kernel() && c.user())) {
                    notes.add("counter " + c.counter() + " counts only " + (c.kernel() ? "OS (CPL 0)" : "USR (CPL > 0)")
                            + " while the truth counts every privilege level; its errors include that filter.");
                }
            }
        } else if (options.truth() != ReportOptions.Truth.OFF) {
            if (summary == null && info.groundTruth()) {
                notes.add("true %: the ground truth arrives when the session ends; render again then.");
            } else if (options.truth() == ReportOptions.Truth.ON) {
                notes.add("true %: not available, the source '" + info.source() + "' has no ground truth.");
            }
        }
        if (notes.isEmpty()) {
            return;
        }
        out.append('\n');
        for (String note : notes) {
            out.append("* ").append(note).append('\n');
        }
    }

    // ---------------------------------------------------------------- helpers

    private SortedSet<Integer> allDomains() {
        SortedSet<Integer> all = new TreeSet<>(info.domains().keySet());
        all.addAll(sampledDomains);
        all.addAll(profiledDomains);
        return all;
    }

    private SortedSet<Integer> reportedDomains() {
        SortedSet<Integer> reported = new TreeSet<>(sampledDomains);
        reported.addAll(profiledDomains);
        return reported;
    }

    private String domainTitle(int domain) {
        String role = null;
        if (summary != null) {
            role = summary.buffers().stream().filter(b -> b.domid() == domain).map(BufferAccounting::role)
                    .findFirst().orElse(null);
        }
        return info.domainName(domain) + " (domain " + domain + (role == null ? "" : ", " + role) + ")";
    }

    private String describeDomains(Set<Integer> domains) {
        return domains.isEmpty() ? "none" : domains.stream().map(d -> d + " (" + info.domainName(d) + ")")
                .collect(Collectors.joining(", "));
    }

    private static double percent(long part, long whole) {
        return whole == 0 ? 0.0 : 100.0 * part / whole;
    }

    static String fourDecimals(double percent) {
        return String.format(Locale.ROOT, "%.4f", percent);
    }

    private static String twoDecimals(double percent) {
        return String.format(Locale.ROOT, "%.2f", percent);
    }

    /** Samples descending counter by counter (OProfile sorts by the first event), then domain, image, symbol. */
    private static final Comparator<Row> ROW_ORDER = (a, b) -> {
        for (int c = 0; c < a.samples.length; c++) {
            int bySamples = Long.compare(b.samples[c], a.samples[c]);
            if (bySamples != 0) {
                return bySamples;
            }
        }
        int byDomain = Integer.compare(a.domain, b.domain);
        if (byDomain != 0) {
            return byDomain;
        }
        int byImage = a.image.compareTo(b.image);
        if (byImage != 0 || a.symbol == null) {
            return byImage;
        }
        return a.symbol.compareTo(b.symbol);
    };

    /** Deliveries the consumer could not attribute to a session it keeps. */
    record ConsumerStrays(long deliveries, long samples, String first) {
        static final ConsumerStrays NONE = new ConsumerStrays(0, 0, null);
    }
}
