package org.hyperprof.report.opreport;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.report.kit.RowFilter;
import org.hyperprof.report.kit.SessionShelf;

/**
 * Renders one session snapshot as opreport text. Built fresh for every report (off the delivery
 * thread), so it may allocate freely: rows are grouped by names, not ids, because each domain's
 * daemon resolves its own copy of shared images such as {@code xen-syms}.
 *
 * <p>Layout: OProfile's header (CPU and speed, one "Counted ..." line per counter), then for all
 * domains the merged report followed by each domain's own report (for one domain only its own),
 * each with an image summary, a symbol summary (opreport -l columns: one samples / % pair per
 * counter, optionally true % and error, optionally each symbol's samples per PC as opreport -d),
 * the call graph in opreport -c's layout when asked for, and the hypervisor / kernel / user split;
 * then the accounting and the notes that say what the percentages are over.
 *
 * <p>Rows are first collected, as the filter keeps them, one per (domain, vCPU, image, symbol) and
 * whatever {@code separate=} keeps apart (thread, CPU, application); each section then adds up what
 * its options merge: the vCPUs unless {@code vcpu} keeps them apart (or {@code separate=thread}
 * where samples carry no thread), and in the report of all domains the domains when
 * {@code merge=domain} asks for it. {@code threshold=} and {@code top=} choose the rows shown by
 * samples; {@code order=} only prints them in another order.
 */
final class OpreportText {

    static final String NO_SYMBOLS = RowFilter.NO_SYMBOLS;

    /** How opreport -c marks a symbol's own samples among its callees. */
    static final String SELF_MARK = " [self]";

    /** opreport -c's rule between call-graph blocks: 79 dashes. */
    static final String BLOCK_RULE = "-".repeat(79);

    /** The domain, vCPU, thread or CPU of a row that adds up several (not {@code SampleBatch.UNKNOWN}). */
    private static final int MERGED = Integer.MIN_VALUE;

    /** Split classes in print order; index = {@link #splitClass(ImageKind)}. */
    private static final int HYPERVISOR = 0;
    private static final int KERNEL = 1;
    private static final int USER = 2;
    private static final int UNKNOWN = 3;
    private static final int CLASSES = 4;

    /** OProfile's Xen patch names for a passive domain's samples (xenoprof-facts 8.5). */
    private static final Pattern PSEUDO_IMAGE = Pattern.compile("domain(\\d+)-(xen|kernel|modules|apps)");

    /** How the thread, CPU and application columns show what the source did not record. */
    private static final String NOT_RECORDED = "-";

    private final SessionAggregate.Snapshot snapshot;
    private final SessionInfo info;
    private final SessionSummary summary;
    private final List<CounterConfig> counters;
    private final int counterCount;
    private final ReportOptions options;
    private final GroundTruth truth;

    /** Rows at full resolution: one per (domain, vCPU, image) and per (domain, vCPU, image, symbol). */
    private final Map<Key, Row> imageRows = new HashMap<>();
    private final Map<Key, Row> symbolRows = new HashMap<>();
    /** Per symbol key: samples in which it was a caller but not the leaf. */
    private final Map<Key, long[]> callerOnly = new HashMap<>();
    /** Per caller&rarr;callee arc of symbol keys: samples with that pair of adjacent frames. */
    private final Map<Arc, long[]> arcs = new HashMap<>();
    /** Per symbol key: samples per PC. */
    private final Map<Key, Map<Long, long[]>> addresses = new HashMap<>();
    private final SortedSet<Integer> sampledDomains = new TreeSet<>();
    /** By (context, symbol slot): its row key, or null where the filter leaves it out. */
    private final Map<Long, Key> madeKeys = new HashMap<>();
    /** Samples the filter kept, of all aggregated. */
    private long keptSamples;
    private long filteredSamples;
    /** Whether some shown row has a thread, CPU or application the source did not record. */
    private boolean threadsNotRecorded;
    private boolean cpusNotRecorded;
    private boolean processesNotRecorded;
    /** The domains whose samples could reach a buffer: the population the true shares are over. */
    private final SortedSet<Integer> profiledDomains = new TreeSet<>();
    /** Per profiled domain: true milli-events [counter][split class]. */
    private final Map<Integer, long[][]> trueSplit = new HashMap<>();
    /** Samples (and true milli-events) of every profiled domain together, per counter. */
    private final long[] wholeTotal;
    private final long[] wholeTrueTotal;

    /**
     * What a row is about. {@code domain}, {@code vcpu}, {@code tid} and {@code cpu} are
     * {@link #MERGED} when the row adds up several ({@code tid} and {@code cpu} unless
     * {@code separate=} keeps them apart); {@code process} is the application a row is kept apart by
     * ({@code separate=lib,kernel}), else null; {@code symbol} is null for an image row.
     */
    private record Key(int domain, int vcpu, int tid, int cpu, String process, String image, String symbol) {

        Key(int domain, int vcpu, String image, String symbol) {
            this(domain, vcpu, MERGED, MERGED, null, image, symbol);
        }

        /** The same row for another image and symbol (an image row when {@code symbol} is null). */
        Key named(String otherImage, String otherSymbol) {
            return new Key(domain, vcpu, tid, cpu, process, otherImage, otherSymbol);
        }
    }

    /** A pair of adjacent frames of a stack: {@code caller} called {@code callee}. */
    private record Arc(Key caller, Key callee) {
    }

    /** One row of a summary: its samples and true milli-events per counter. */
    private static final class Row {
        final Key key;
        final ImageKind kind;
        final long[] samples;
        final long[] trueMilli;

        Row(Key key, ImageKind kind, int counters) {
            this.key = key;
            this.kind = kind;
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
        wholeTotal = new long[counterCount];
        wholeTrueTotal = new long[counterCount];
        for (Row row : imageRows.values()) {
            for (int c = 0; c < counterCount; c++) {
                wholeTotal[c] += row.samples[c];
                wholeTrueTotal[c] += row.trueMilli[c];
            }
        }
    }

    /** The rows for format=json|csv, or null for text. */
    private MachineRows machine;

    /**
     * The report for {@code domain} ({@link ReportRequest#ALL_DOMAINS}: merged, then every domain):
     * as text, or with format=json|csv the same rows and the books for scripts.
     */
    String render(int domain, SessionShelf.Strays strays) throws ReportException {
        if (options.format() == MachineRows.Format.TEXT) {
            return text(domain, strays);
        }
        machine = new MachineRows();
        text(domain, strays);
        Accounting books = summary == null ? null : summary.accounting();
        if (options.format() == MachineRows.Format.CSV) {
            return machine.csv(books);
        }
        Map<String, String> session = new java.util.LinkedHashMap<>();
        session.put("session", Long.toString(info.sessionId()));
        session.put("source", info.source());
        session.put("host", info.hostName());
        session.put("cpu_type", info.cpuType());
        session.put("status", summary == null ? "running" : summary.completed() ? SessionSummary.COMPLETED
                : "ended early: " + summary.endReason());
        session.put("counters", counters.stream().map(CounterConfig::describe).collect(Collectors.joining("; ")));
        session.put("kept_samples", Long.toString(keptSamples));
        return machine.json(session, books);
    }

    private String text(int domain, SessionShelf.Strays strays) throws ReportException {
        boolean all = domain == ReportRequest.ALL_DOMAINS;
        if (!all && !sampledDomains.contains(domain) && !profiledDomains.contains(domain)
                && !info.domains().containsKey(domain)) {
            throw new ReportException("domain " + domain + " is not part of session " + info.sessionId()
                    + "; its domains are " + describeDomains(allDomains())
                    + "; ask for one of them, or for all domains");
        }
        StringBuilder out = new StringBuilder(8192);
        header(out);
        String own = options.global() ? ": its own report (% of the samples of every profiled domain together)"
                : ": its own report (% of its own samples)";
        if (all) {
            section(out, options.mergeDomains()
                    ? "All domains, merged into one set of rows (merge=domain; % of the samples of every profiled"
                            + " domain together)"
                    : "All domains, merged (% of the samples of every profiled domain together)", null);
            for (int d : reportedDomains()) {
                section(out, domainTitle(d) + own, d);
            }
        } else {
            section(out, domainTitle(domain) + own, domain);
        }
        accounting(out, all ? null : domain, strays);
        notes(out, all);
        return out.toString();
    }

    // ---------------------------------------------------------------- collecting

    /**
     * Rows from the snapshot's counts, as the filter keeps them and with what {@code separate=}
     * keeps apart; the call graph's and the details' only when asked for. An image row adds up its
     * symbols' rows (each sample is counted once, under its symbol or its image's "no symbols").
     */
    private void collectSamples() {
        SessionDictionary dictionary = info.dictionary();
        snapshot.symbolSamples().forEach((k, count) -> {
            int context = SessionAggregate.keyContext(k);
            int slot = SessionAggregate.keyId(k);
            int d = snapshot.domain(context);
            sampledDomains.add(d);
            filteredSamples += count;
            Key key = symbolKey(dictionary, context, slot);
            if (key == null) {
                return;
            }
            keptSamples += count;
            ImageKind kind = dictionary.imageKind(slotImage(dictionary, slot));
            int counter = SessionAggregate.keyCounter(k);
            symbolRows.computeIfAbsent(key, x -> new Row(x, kind, counterCount)).samples[counter] += count;
            imageRows.computeIfAbsent(key.named(key.image(), null), x -> new Row(x, kind, counterCount))
                    .samples[counter] += count;
        });
        if (options.callgraph()) {
            snapshot.callerOnlySamples().forEach((k, count) -> {
                Key key = symbolKey(dictionary, SessionAggregate.keyContext(k), SessionAggregate.keyId(k));
                if (key != null) {
                    callerOnly.computeIfAbsent(key, x -> new long[counterCount])
                            [SessionAggregate.keyCounter(k)] += count;
                }
            });
            // a block's callers and callees are shown whatever their names: the filter chooses the blocks
            LongPairIds arcIds = snapshot.arcs();
            RowFilter byVcpu = new RowFilter(null, null, null, options.filter().vcpus());
            snapshot.arcSamples().forEach((k, count) -> {
                int context = SessionAggregate.keyContext(k);
                int arc = SessionAggregate.keyId(k);
                Key caller = fullKey(dictionary, byVcpu, context, (int) arcIds.first(arc));
                Key callee = fullKey(dictionary, byVcpu, context, (int) arcIds.second(arc));
                if (caller != null && callee != null) {
                    arcs.computeIfAbsent(new Arc(caller, callee), x -> new long[counterCount])
                            [SessionAggregate.keyCounter(k)] += count;
                }
            });
        }
        if (options.details()) {
            LongPairIds addressIds = snapshot.addresses();
            snapshot.addressSamples().forEach((k, count) -> {
                int address = SessionAggregate.keyId(k);
                Key key = symbolKey(dictionary, SessionAggregate.keyContext(k),
                        (int) addressIds.first(address));
                if (key != null) {
                    addresses.computeIfAbsent(key, x -> new HashMap<>())
                            .computeIfAbsent(addressIds.second(address), x -> new long[counterCount])
                            [SessionAggregate.keyCounter(k)] += count;
                }
            });
        }
    }

    private static int slotImage(SessionDictionary dictionary, int slot) {
        return slot < 0 ? ~slot : dictionary.symbolImage(slot);
    }

    /**
     * The key of a (context, symbol slot) at the resolution the options keep, or null when the
     * filter leaves it out; made once per pair of a report (the filter's patterns run once each).
     */
    private Key symbolKey(SessionDictionary dictionary, int context, int slot) {
        long pair = SessionAggregate.pair(context, slot);
        Key key = madeKeys.get(pair);
        if (key == null && !madeKeys.containsKey(pair)) {
            key = fullKey(dictionary, options.filter(), context, slot);
            madeKeys.put(pair, key);
        }
        return key;
    }

    /** The key of a (context, symbol slot), or null when {@code filter} leaves it out. */
    private Key fullKey(SessionDictionary dictionary, RowFilter filter, int context, int slot) {
        int image = slotImage(dictionary, slot);
        String imageName = dictionary.imageName(image);
        String symbolName = slot < 0 ? NO_SYMBOLS : dictionary.shownName(slot);
        int vcpu = snapshot.vcpu(context);
        if (!filter.keepsVcpu(vcpu) || !filter.keeps(imageName, symbolName)) {
            return null;
        }
        int domain = snapshot.domain(context);
        Set<ReportOptions.Separation> separate = options.separate();
        int tid = separate.contains(ReportOptions.Separation.THREAD) ? snapshot.tid(context) : MERGED;
        int cpu = separate.contains(ReportOptions.Separation.CPU) ? snapshot.cpu(context) : MERGED;
        String process = byApplication(dictionary.imageKind(image))
                ? processName(domain, snapshot.pid(context)) : null;
        return new Key(domain, vcpu, tid, cpu, process, imageName, symbolName);
    }

    /** Whether {@code separate=} keeps an image of this kind apart per application (lib: user, kernel: the rest). */
    private boolean byApplication(ImageKind kind) {
        Set<ReportOptions.Separation> separate = options.separate();
        return kind == ImageKind.USER || kind == ImageKind.UNKNOWN ? separate.contains(ReportOptions.Separation.LIB)
                : separate.contains(ReportOptions.Separation.KERNEL);
    }

    /** The application column: the process's name, its pid when unnamed, or - when the source recorded none. */
    private String processName(int domain, int pid) {
        if (pid == SampleBatch.UNKNOWN) {
            return NOT_RECORDED;
        }
        String name = info.dictionary().processName(domain, pid);
        return name != null ? name : "pid " + pid;
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
            sampledImages.computeIfAbsent(row.key.domain(), k -> new HashSet<>()).add(row.key.image());
        }
        Map<String, Set<String>> namedSymbols = new HashMap<>();
        for (Row row : symbolRows.values()) {
            Set<String> named = namedSymbols.computeIfAbsent(row.key.domain() + "/" + row.key.image(),
                    k -> new HashSet<>());
            if (!NO_SYMBOLS.equals(row.key.symbol())) {
                named.add(row.key.symbol());
            }
        }
        Signal[] signals = new Signal[counterCount];
        for (int c = 0; c < counterCount; c++) {
            signals[c] = counters.get(c).event().signal();
        }
        for (GroundTruth.Row t : truthRows()) {
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
            Set<String> images = sampledImages.getOrDefault(d, Set.of());
            String image = t.image();
            if (!images.contains(image)) {
                String pseudo = pseudoImage(d, t.kind());
                if (pseudo != null && images.contains(pseudo)) {
                    image = pseudo;
                }
            }
            String symbol = t.symbol() == null ? NO_SYMBOLS : t.symbol();
            Set<String> named = namedSymbols.get(d + "/" + image);
            boolean resolvedWithoutSymbols = named != null && named.isEmpty();
            boolean pseudoWithoutIt = !image.equals(t.image()) && (named == null || !named.contains(symbol));
            if (resolvedWithoutSymbols || pseudoWithoutIt) {
                symbol = NO_SYMBOLS;
            }
            if (!options.filter().keepsVcpu(t.vcpu()) || !options.filter().keeps(image, symbol)) {
                continue;
            }
            long[][] split = trueSplit.computeIfAbsent(d, k -> new long[counterCount][CLASSES]);
            for (int c = 0; c < counterCount; c++) {
                split[c][splitClass(t.kind())] += milli[c];
            }
            if (!any) {
                continue;
            }
            // the truth knows no thread, CPU or process: it goes where samples that recorded none go
            Set<ReportOptions.Separation> separate = options.separate();
            Key symbolKey = new Key(d, t.vcpu(), separate.contains(ReportOptions.Separation.THREAD)
                    ? SampleBatch.UNKNOWN : MERGED, separate.contains(ReportOptions.Separation.CPU)
                            ? SampleBatch.UNKNOWN : MERGED, byApplication(t.kind()) ? NOT_RECORDED : null, image, symbol);
            Row imageRow = imageRows.computeIfAbsent(symbolKey.named(image, null),
                    k -> new Row(k, t.kind(), counterCount));
            Row symbolRow = symbolRows.computeIfAbsent(symbolKey, k -> new Row(k, t.kind(), counterCount));
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

    // ---------------------------------------------------------------- merging rows for a section

    /** The key a full-resolution key is shown under in a section (merged = the report of all domains). */
    private Key project(Key key, boolean merged) {
        int domain = merged && options.mergeDomains() ? MERGED : key.domain();
        // separate=thread where the source recorded no thread keeps the vCPU apart instead
        boolean byVcpu = options.separateVcpus() || key.tid() == SampleBatch.UNKNOWN;
        int vcpu = byVcpu ? key.vcpu() : MERGED;
        if (domain == key.domain() && vcpu == key.vcpu()) {
            return key;
        }
        return new Key(domain, vcpu, key.tid(), key.cpu(), key.process(), key.image(), key.symbol());
    }

    private static boolean inSection(Key key, Integer domain) {
        return domain == null || key.domain() == domain;
    }

    /** The section's rows: those of its domain (or all), added up as its options merge them. */
    private Map<Key, Row> sectionRows(Map<Key, Row> rows, Integer domain) {
        boolean merged = domain == null;
        Map<Key, Row> shown = new HashMap<>();
        for (Row row : rows.values()) {
            if (!inSection(row.key, domain)) {
                continue;
            }
            Row sum = shown.computeIfAbsent(project(row.key, merged), k -> new Row(k, row.kind, counterCount));
            for (int c = 0; c < counterCount; c++) {
                sum.samples[c] += row.samples[c];
                sum.trueMilli[c] += row.trueMilli[c];
            }
        }
        return shown;
    }

    private <K> Map<K, long[]> sectionCounts(Map<K, long[]> counts, Function<K, Key> domainOf, Integer domain,
            Function<K, K> projection) {
        Map<K, long[]> shown = new HashMap<>();
        for (Map.Entry<K, long[]> e : counts.entrySet()) {
            if (inSection(domainOf.apply(e.getKey()), domain)) {
                add(shown.computeIfAbsent(projection.apply(e.getKey()), k -> new long[counterCount]), e.getValue());
            }
        }
        return shown;
    }

    private static void add(long[] sum, long[] part) {
        for (int c = 0; c < sum.length; c++) {
            sum[c] += part[c];
        }
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
        List<Row> images = sectionRows(imageRows, domain).values().stream().sorted(ROW_ORDER).toList();
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
        // the totals percentages are over: the section's own, or with global the whole profile's
        long[] base = options.global() ? wholeTotal : total;
        long[] trueBase = options.global() ? wholeTrueTotal : trueTotal;
        boolean blank = false;
        if (options.images()) {
            List<Row> shown = chosen(images, Integer.MAX_VALUE, base);
            out.append("Image summary").append(shown.size() < images.size() ? " (" + shown.size() + " of "
                    + images.size() + " rows, threshold=" + threshold() + ")" : "").append(":\n");
            TextTable table = new TextTable(headings(merged, false, false, truth != null));
            for (Row row : ordered(shown)) {
                table.add(cells(row, base, trueBase, merged, false, truth != null));
            }
            table.write(out);
            if (machine != null) {
                machine.add(merged ? "all" : Integer.toString(domain), "image", table);
            }
            if (shown.size() < images.size()) {
                hiddenRows(out, rest(images, shown), base, trueBase, "below threshold=" + threshold());
            }
            blank = true;
        }
        if (options.symbols()) {
            symbolSummary(out.append(blank ? "\n" : ""), domain, base, trueBase);
            blank = true;
        }
        if (options.callgraph()) {
            callgraph(out.append(blank ? "\n" : ""), domain, base);
        }
        out.append('\n');
        split(out, domain, total);
        if (!merged) {
            passiveDomain(out, domain);
        }
    }

    private void symbolSummary(StringBuilder out, Integer domain, long[] base, long[] trueBase) {
        boolean merged = domain == null;
        List<Row> symbols = sectionRows(symbolRows, domain).values().stream().sorted(ROW_ORDER).toList();
        List<Row> chosen = chosen(symbols, options.top(), base);
        int shown = chosen.size();
        out.append("Symbol summary (").append(shown < symbols.size() ? "top " + shown + " of " : "all ")
                .append(symbols.size()).append(" rows").append(options.threshold() > 0 ? ", threshold="
                        + threshold() : "").append(options.order() == ReportOptions.Order.NAME ? ", by name" : "")
                .append(options.details()
                        ? "; under each, its samples per PC (vma), % of the symbol's" + (options.global()
                                ? " whole profile" : "") + " samples"
                        : "")
                .append("):\n");
        boolean details = options.details();
        Map<Key, Map<Long, long[]>> perPc = details ? sectionAddresses(domain) : Map.of();
        TextTable table = new TextTable(headings(merged, true, details, truth != null));
        for (Row row : ordered(chosen)) {
            List<String> cells = cells(row, base, trueBase, merged, true, truth != null);
            if (details) {
                cells.add(0, "");
                table.add(cells);
                detailRows(table, row, perPc.getOrDefault(row.key, Map.of()), cells.size());
            } else {
                table.add(cells);
            }
        }
        table.write(out);
        if (machine != null && !details) {
            machine.add(merged ? "all" : Integer.toString(domain), "symbol", table);
        }
        if (shown < symbols.size()) {
            hiddenRows(out, rest(symbols, chosen), base, trueBase, options.threshold() > 0
                    ? "below threshold=" + threshold() + " or past top=" + options.top() : "top=N shows more");
        }
    }

    /**
     * The rows shown of {@code rows} (most samples first): the first {@code top} of those with at
     * least the threshold's percentage of {@code base} in some counter.
     */
    private List<Row> chosen(List<Row> rows, int top, long[] base) {
        List<Row> chosen = new ArrayList<>();
        for (Row row : rows) {
            if (chosen.size() == top) {
                break;
            }
            if (atThreshold(row, base)) {
                chosen.add(row);
            }
        }
        return chosen;
    }

    private boolean atThreshold(Row row, long[] base) {
        if (options.threshold() <= 0) {
            return true;
        }
        for (int c = 0; c < counterCount; c++) {
            if (percent(row.samples[c], base[c]) >= options.threshold()) {
                return true;
            }
        }
        return false;
    }

    private static List<Row> rest(List<Row> rows, List<Row> chosen) {
        Set<Row> shown = new HashSet<>(chosen);
        return rows.stream().filter(r -> !shown.contains(r)).toList();
    }

    /** {@code rows} in the order asked for ({@code order=}); they come most samples first. */
    private List<Row> ordered(List<Row> rows) {
        return options.order() == ReportOptions.Order.NAME ? rows.stream().sorted(NAME_ORDER).toList() : rows;
    }

    private String threshold() {
        return BigDecimal.valueOf(options.threshold()).stripTrailingZeros().toPlainString();
    }

    /** The samples per PC of each symbol key of the section, merged as the section merges rows. */
    private Map<Key, Map<Long, long[]>> sectionAddresses(Integer domain) {
        boolean merged = domain == null;
        Map<Key, Map<Long, long[]>> shown = new HashMap<>();
        for (Map.Entry<Key, Map<Long, long[]>> e : addresses.entrySet()) {
            if (!inSection(e.getKey(), domain)) {
                continue;
            }
            Map<Long, long[]> into = shown.computeIfAbsent(project(e.getKey(), merged), k -> new HashMap<>());
            for (Map.Entry<Long, long[]> pc : e.getValue().entrySet()) {
                add(into.computeIfAbsent(pc.getKey(), k -> new long[counterCount]), pc.getValue());
            }
        }
        return shown;
    }

    /**
     * opreport -d's lines under a symbol row: indented vma, then samples and % per counter in the
     * row's own columns, lowest address first; % is of the symbol's samples (or of the whole
     * profile with global).
     */
    private void detailRows(TextTable table, Row row, Map<Long, long[]> perPc, int width) {
        List<Long> pcs = new ArrayList<>(perPc.keySet());
        pcs.sort(Long::compareUnsigned);
        for (long pc : pcs) {
            long[] samples = perPc.get(pc);
            List<String> cells = new ArrayList<>(width);
            cells.add("  " + vma(pc));
            for (int c = 0; c < counterCount; c++) {
                cells.add(Long.toString(samples[c]));
                cells.add(fourDecimals(percent(samples[c], options.global() ? wholeTotal[c] : row.samples[c])));
                if (truth != null) {
                    cells.add("");
                    cells.add("");
                }
            }
            while (cells.size() < width) {
                cells.add("");
            }
            table.add(cells);
        }
    }

    /** An address as opreport prints a vma: 8 hex digits, or 16 when it does not fit in 32 bits. */
    static String vma(long pc) {
        String hex = Long.toHexString(pc);
        int digits = (pc >>> 32) == 0 ? 8 : 16;
        return "0".repeat(Math.max(0, digits - hex.length())) + hex;
    }

    // ---------------------------------------------------------------- call graph

    /**
     * The call graph in opreport -c's layout: a rule of 79 dashes between blocks; in each block the
     * symbol's callers indented by two spaces, the symbol itself with its self samples, then its
     * callees indented by two spaces, its own samples among them marked {@code [self]}. Callers are
     * % of all the symbol's caller samples, callees of its callee and self samples together
     * (with global: of the whole profile); the symbol line is % of the section's samples like the
     * symbol summary. Then the inclusive samples, which opreport never showed: each symbol with
     * everything it called, a sample counted once per symbol however deep its recursion.
     */
    private void callgraph(StringBuilder out, Integer domain, long[] base) {
        boolean merged = domain == null;
        if (snapshot.counts().samplesWithCallers() == 0) {
            out.append("Call graph: no call traces in this session, no sample carried a call chain; profile with a"
                    + " call-graph depth (--callgraph=N, which sets Xen's backtrace depth) to record them\n");
            return;
        }
        Map<Key, long[]> self = new HashMap<>();
        for (Row row : sectionRows(symbolRows, domain).values()) {
            self.put(row.key, row.samples);
        }
        Map<Key, long[]> inclusive = new HashMap<>();
        self.forEach((k, v) -> inclusive.put(k, v.clone()));
        sectionCounts(callerOnly, k -> k, domain, k -> project(k, merged))
                .forEach((k, v) -> add(inclusive.computeIfAbsent(k, x -> new long[counterCount]), v));
        Map<Arc, long[]> sectionArcs = sectionCounts(arcs, Arc::callee, domain,
                a -> new Arc(project(a.caller(), merged), project(a.callee(), merged)));
        if (sectionArcs.isEmpty()) {
            out.append("Call graph: no call traces here; no sample of ").append(merged ? "any domain"
                    : "this domain").append(" carried a caller (its stacks could not be walked)\n");
            return;
        }
        Map<Key, Map<Key, long[]>> callersOf = new HashMap<>();
        Map<Key, Map<Key, long[]>> calleesOf = new HashMap<>();
        sectionArcs.forEach((arc, count) -> {
            callersOf.computeIfAbsent(arc.callee(), k -> new HashMap<>()).put(arc.caller(), count);
            calleesOf.computeIfAbsent(arc.caller(), k -> new HashMap<>()).put(arc.callee(), count);
        });
        long[] none = new long[counterCount];
        List<Key> symbols = inclusive.entrySet().stream().filter(e -> any(e.getValue())).map(Map.Entry::getKey)
                .sorted(Comparator.<Key, long[]>comparing(k -> self.getOrDefault(k, none), OpreportText::descending)
                        .thenComparing(inclusive::get, OpreportText::descending).thenComparing(KEY_ORDER))
                .toList();
        int shown = Math.min(options.top(), symbols.size());
        out.append("Call graph (").append(shown < symbols.size() ? "top " + shown + " of " : "all ")
                .append(symbols.size()).append(" symbols, opreport -c layout; ").append(options.global()
                        ? "all % of the whole profile" : "callers % of the symbol's callers, callees % of its callees"
                                + " and [self]")
                .append("):\n");
        TextTable table = new TextTable(headings(merged, true, false, false));
        table.addLine(BLOCK_RULE);
        for (Key symbol : symbols.subList(0, shown)) {
            Map<Key, long[]> callers = callersOf.getOrDefault(symbol, Map.of());
            long[] callerBase = options.global() ? wholeTotal : sum(callers.values());
            for (Key caller : byCountDescending(callers)) {
                table.add(graphCells("  ", caller, callers.get(caller), callerBase, merged));
            }
            long[] own = self.getOrDefault(symbol, none);
            table.add(graphCells("", symbol, own, base, merged));
            Map<Key, long[]> callees = calleesOf.getOrDefault(symbol, Map.of());
            long[] calleeBase = options.global() ? wholeTotal : sum(callees.values());
            if (!options.global()) {
                add(calleeBase, own);
            }
            // [self] sorts among the callees by its samples, as opreport's callee list does
            Map<Key, long[]> withSelf = new HashMap<>(callees);
            Key selfEntry = symbol.named(symbol.image(), symbol.symbol() + SELF_MARK);
            withSelf.put(selfEntry, own);
            for (Key callee : byCountDescending(withSelf)) {
                table.add(graphCells("  ", callee, withSelf.get(callee), calleeBase, merged));
            }
            table.addLine(BLOCK_RULE);
        }
        table.write(out);
        if (shown < symbols.size()) {
            out.append("... ").append(symbols.size() - shown).append(" more call-graph blocks not shown (top=N shows")
                    .append(" more)\n");
        }
        inclusiveSummary(out, symbols, self, inclusive, base, merged);
    }

    private void inclusiveSummary(StringBuilder out, List<Key> symbols, Map<Key, long[]> self,
            Map<Key, long[]> inclusive, long[] base, boolean merged) {
        List<Key> byInclusive = new ArrayList<>(symbols);
        byInclusive.sort(Comparator.<Key, long[]>comparing(inclusive::get, OpreportText::descending)
                .thenComparing(KEY_ORDER));
        int shown = Math.min(options.top(), byInclusive.size());
        out.append("\nInclusive samples (").append(shown < byInclusive.size() ? "top " + shown + " of " : "all ")
                .append(byInclusive.size()).append(" symbols; the symbol and everything it called, each sample")
                .append(" counted once per symbol):\n");
        TextTable table = new TextTable(headings(merged, true, false, false));
        for (Key symbol : byInclusive.subList(0, shown)) {
            table.add(graphCells("", symbol, inclusive.get(symbol), base, merged));
        }
        table.write(out);
    }

    private List<String> graphCells(String indent, Key key, long[] samples, long[] base, boolean merged) {
        List<String> cells = new ArrayList<>();
        for (int c = 0; c < counterCount; c++) {
            cells.add((c == 0 ? indent : "") + samples[c]);
            cells.add(fourDecimals(percent(samples[c], base[c])));
        }
        nameCells(cells, key, merged);
        return cells;
    }

    private List<Key> byCountDescending(Map<Key, long[]> counts) {
        List<Key> keys = new ArrayList<>(counts.keySet());
        keys.sort(Comparator.<Key, long[]>comparing(counts::get, OpreportText::descending).thenComparing(KEY_ORDER));
        return keys;
    }

    private long[] sum(Iterable<long[]> counts) {
        long[] sum = new long[counterCount];
        for (long[] count : counts) {
            add(sum, count);
        }
        return sum;
    }

    private static boolean any(long[] counts) {
        for (long count : counts) {
            if (count != 0) {
                return true;
            }
        }
        return false;
    }

    /** Larger counts first, counter by counter (OProfile sorts by the first event). */
    private static int descending(long[] a, long[] b) {
        for (int c = 0; c < a.length; c++) {
            int byCount = Long.compare(b[c], a[c]);
            if (byCount != 0) {
                return byCount;
            }
        }
        return 0;
    }

    // ---------------------------------------------------------------- rows

    private String noSamplesReason(int domain) {
        if (profiledDomains.contains(domain)) {
            return "no samples: the domain was profiled but no sample of it reached opreport\n";
        }
        return "no samples: the domain was not profiled in this session (it was neither active nor passive)\n";
    }

    private boolean domainColumn(boolean merged) {
        return merged && !options.mergeDomains();
    }

    private List<String> headings(boolean merged, boolean symbolColumn, boolean vmaColumn, boolean truthColumns) {
        List<String> h = new ArrayList<>();
        if (vmaColumn) {
            h.add("vma");
        }
        for (int c = 0; c < counterCount; c++) {
            h.add("samples");
            h.add("%");
            if (truthColumns) {
                h.add("true %");
                h.add("error");
            }
        }
        if (domainColumn(merged)) {
            h.add("domain");
        }
        if (options.separateVcpus()) {
            h.add("vcpu");
        }
        if (options.separate().contains(ReportOptions.Separation.THREAD)) {
            h.add("thread");
        }
        if (options.separate().contains(ReportOptions.Separation.CPU)) {
            h.add("cpu");
        }
        if (options.separate().contains(ReportOptions.Separation.LIB)) {
            h.add("app name");
        }
        h.add("image name");
        if (symbolColumn) {
            h.add("symbol name");
        }
        return h;
    }

    private List<String> cells(Row row, long[] base, long[] trueBase, boolean merged, boolean symbolColumn,
            boolean truthColumns) {
        List<String> cells = new ArrayList<>();
        for (int c = 0; c < counterCount; c++) {
            double sampled = percent(row.samples[c], base[c]);
            cells.add(Long.toString(row.samples[c]));
            cells.add(fourDecimals(sampled));
            if (truthColumns) {
                if (trueBase[c] == 0) {
                    cells.add("-");
                    cells.add("-");
                } else {
                    double truePercent = percent(row.trueMilli[c], trueBase[c]);
                    cells.add(fourDecimals(truePercent));
                    cells.add(String.format(Locale.ROOT, "%+.4f", sampled - truePercent));
                }
            }
        }
        Key key = row.key;
        nameCells(cells, symbolColumn ? key : key.named(key.image(), null), merged);
        return cells;
    }

    /** The domain (in the report of all domains), vcpu (with vcpu), image and symbol cells of a key. */
    private void nameCells(List<String> cells, Key key, boolean merged) {
        if (domainColumn(merged)) {
            cells.add(info.domainName(key.domain()));
        }
        if (options.separateVcpus()) {
            cells.add(Integer.toString(key.vcpu()));
        }
        if (options.separate().contains(ReportOptions.Separation.THREAD)) {
            // a thread the source did not record: the row is its vCPU's (the simulator's samples)
            threadsNotRecorded |= key.tid() == SampleBatch.UNKNOWN;
            cells.add(key.tid() == SampleBatch.UNKNOWN ? "vcpu " + key.vcpu() : Integer.toString(key.tid()));
        }
        if (options.separate().contains(ReportOptions.Separation.CPU)) {
            cpusNotRecorded |= key.cpu() == SampleBatch.UNKNOWN;
            cells.add(key.cpu() == SampleBatch.UNKNOWN ? NOT_RECORDED : Integer.toString(key.cpu()));
        }
        if (options.separate().contains(ReportOptions.Separation.LIB)) {
            processesNotRecorded |= NOT_RECORDED.equals(key.process());
            cells.add(key.process() == null ? "" : key.process());
        }
        cells.add(key.image());
        if (key.symbol() != null) {
            cells.add(key.symbol());
        }
    }

    /** The line that adds up the rows not shown, and why they are not ({@code why}). */
    private void hiddenRows(StringBuilder out, List<Row> hidden, long[] base, long[] trueBase, String why) {
        out.append("... ").append(hidden.size()).append(" more rows not shown (").append(why).append("):");
        for (int c = 0; c < counterCount; c++) {
            long samples = 0;
            long trueMilli = 0;
            for (Row row : hidden) {
                samples += row.samples[c];
                trueMilli += row.trueMilli[c];
            }
            out.append(c == 0 ? " " : "; ").append(samples).append(" samples (")
                    .append(fourDecimals(percent(samples, base[c]))).append(" %)");
            if (truth != null && trueBase[c] != 0) {
                out.append(", true ").append(fourDecimals(percent(trueMilli, trueBase[c]))).append(" %");
            }
        }
        out.append('\n');
    }

    /** The hypervisor / kernel / user split of the section's samples, and of the truth when shown. */
    private void split(StringBuilder out, Integer domain, long[] total) {
        long[][] sampled = new long[counterCount][CLASSES];
        for (Row row : imageRows.values()) {
            if (inSection(row.key, domain)) {
                for (int c = 0; c < counterCount; c++) {
                    sampled[c][splitClass(row.kind)] += row.samples[c];
                }
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

    // ---------------------------------------------------------------- passive domains

    /**
     * What a passive domain's section must explain: the primary's daemon drained its samples and,
     * as OProfile's Xen patch did, grouped what it could not resolve under {@code domain<N>-xen},
     * {@code -kernel}, {@code -modules} and {@code -apps}; its modules and user programs can never be
     * symbolised, its kernel only with the image given by --passive-images.
     */
    private void passiveDomain(StringBuilder out, int domain) {
        Set<String> pseudo = new TreeSet<>(Comparator.comparingInt(OpreportText::pseudoOrder));
        Set<String> kernels = new TreeSet<>();
        for (Row row : imageRows.values()) {
            if (row.key.domain() != domain || !any(row.samples)) {
                continue;
            }
            Matcher m = PSEUDO_IMAGE.matcher(row.key.image());
            if (m.matches() && Integer.parseInt(m.group(1)) == domain) {
                pseudo.add(row.key.image());
            } else if (row.kind == ImageKind.KERNEL) {
                kernels.add(row.key.image());
            }
        }
        if (!"passive".equals(role(domain)) && pseudo.isEmpty()) {
            return;
        }
        String name = "domain" + domain;
        out.append("* passive domain: the primary's daemon drained its samples and, as OProfile's Xen patch did,")
                .append(" groups what it cannot resolve under ").append(name).append("-xen, ").append(name)
                .append("-kernel, ").append(name).append("-modules and ").append(name).append("-apps")
                .append(pseudo.isEmpty() ? " (none has samples here)" : " (with samples here: "
                        + String.join(", ", pseudo) + ")")
                .append(".\n");
        out.append("* a passive domain's modules and user programs can never be symbolised: the primary cannot see")
                .append(" into its processes, so they stay ").append(name).append("-modules and ").append(name)
                .append("-apps (no symbols).\n");
        if (pseudo.contains(name + "-kernel")) {
            out.append("* its kernel was not resolved: ").append(name).append("-kernel has no symbols; give the")
                    .append(" domain's kernel image with --passive-images to resolve it.\n");
        } else if (!kernels.isEmpty()) {
            out.append("* its kernel was resolved with the image given by --passive-images: ")
                    .append(String.join(", ", kernels)).append(".\n");
        }
    }

    private static int pseudoOrder(String image) {
        Matcher m = PSEUDO_IMAGE.matcher(image);
        m.matches();
        return List.of("xen", "kernel", "modules", "apps").indexOf(m.group(2));
    }

    // ---------------------------------------------------------------- accounting and notes

    private void accounting(StringBuilder out, Integer domain, SessionShelf.Strays strays) {
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
                out.append(info.domainName(e.getKey())).append(" (domain ").append(e.getKey()).append(", ")
                        .append(role(e.getKey())).append("): ").append(sum.line()).append('\n');
                e.getValue().stream().sorted(Comparator.comparingInt(BufferAccounting::vcpu))
                        .forEach(b -> out.append("  vcpu ").append(b.vcpu()).append(" (").append(b.role())
                                .append("): ").append(b.accounting().line()).append("; user ")
                                .append(b.userSamples()).append(", kernel ").append(b.kernelSamples())
                                .append(", xen ").append(b.xenSamples()).append("; buffer entries drained ").append(b.drained())
                                .append(", left undrained ").append(b.undrained()).append('\n'));
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
            // the shell prints the session's books (host counters included) after a profile: short here
            if (options.host()) {
                out.append("host: ").append(summary.hostCounters().entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))).append('\n');
            } else if (!summary.hostCounters().isEmpty()) {
                out.append("host: ").append(summary.hostCounters().size()).append(" counters (the option host lists")
                        .append(" them)\n");
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
        // No count of batches: how samples were batched is the source's business (a stored session
        // replayed is batched anew), and the report reads the same whichever way they came.
        out.append("opreport: aggregated ").append(snapshot.samples()).append(" samples");
        if (snapshot.rejectedSamples() == 0) {
            out.append(", rejected none\n");
        } else {
            out.append(", rejected ").append(snapshot.rejectedSamples()).append(" samples in ")
                    .append(snapshot.rejectedBatches()).append(" batches (first: ").append(snapshot.firstRejection())
                    .append(")\n");
        }
        if (!options.filter().all()) {
            out.append("opreport: ").append(options.filter().describe()).append(" kept ").append(keptSamples)
                    .append(" of the ").append(filteredSamples).append(" aggregated samples; percentages are over")
                    .append(" what is kept\n");
        }
        chainAccounting(out);
        if (strays.deliveries() > 0) {
            out.append("opreport: ignored ").append(strays.deliveries()).append(" deliveries (")
                    .append(strays.samples()).append(" samples) that were unreadable or for sessions it never saw"
                            + " start or no longer keeps (first: ")
                    .append(strays.first()).append(")\n");
        }
        if (summary != null && domain == null) {
            // Samples, not buffer entries: with call traces a buffer also holds escape records and
            // return addresses. What the profiler handed (or failed to hand) to this consumer is
            // in its own books; without them, every delivered sample was meant for it.
            long handed = summary.accounting().delivered();
            for (ConsumerAccounting c : summary.consumers()) {
                if (OpreportConsumer.NAME.equals(c.consumer())) {
                    handed = c.received() + c.missed();
                }
            }
            if (snapshot.samples() < handed) {
                out.append("note: opreport aggregated ").append(snapshot.samples()).append(" of the ").append(handed)
                        .append(" samples the profiler handed it (the rest were rejected, missed, or sent before it"
                                + " arrived); sampled % is over what it aggregated\n");
            }
        }
        if (summary != null) {
            for (String note : summary.notes()) {
                out.append("* ").append(note).append('\n');
            }
        }
    }

    /** The call chains and per-PC addresses opreport took, and what its bounds made it leave out. */
    private void chainAccounting(StringBuilder out) {
        SessionAggregate.Counts counts = snapshot.counts();
        if (counts.samplesWithCallers() > 0 || counts.rejectedCallerEntries() > 0) {
            out.append("opreport: call chains on ").append(counts.samplesWithCallers()).append(" samples (")
                    .append(counts.callerEntries()).append(" caller entries)");
            if (counts.rejectedCallerEntries() > 0) {
                out.append("; dropped ").append(counts.rejectedCallerEntries())
                        .append(" caller entries that do not check out against the dictionary (first: ")
                        .append(counts.firstChainProblem()).append(')');
            }
            out.append('\n');
        }
        if (counts.arcsFull()) {
            out.append("opreport: the call graph keeps ").append(counts.arcsKept())
                    .append(" distinct caller-callee arcs per session; ").append(counts.arcsNotKept())
                    .append(" arc occurrences beyond them are left out of the callers and callees\n");
        }
        if (counts.addressesFull()) {
            out.append("opreport: the details keep ").append(counts.addressesKept())
                    .append(" distinct (symbol, PC) addresses per session; ").append(counts.samplesWithoutAddress())
                    .append(" samples at other addresses count in their symbol rows but have no per-PC line\n");
        }
    }

    /** Source name of the sessions the guests' own profilers feed (see the profiler's guest session). */
    static final String GUEST_PROFILER_SOURCE = "guest profiler";

    /**
     * The truth the samples are held against. A guest's own profiler never sees a hypervisor PC:
     * an overflow in hypervisor work is taken at the guest instruction that entered it. So for its
     * session the truth is the guest's own code plus the hypervisor's work on its behalf, folded into
     * the guest function that asked for it ({@code GroundTruth.onBehalf}: a hypercall's caller, else
     * the function that entered the hypervisor).
     */
    private List<GroundTruth.Row> truthRows() {
        if (!guestProfilerSession()) {
            return truth.rows();
        }
        List<GroundTruth.Row> rows = new ArrayList<>();
        for (GroundTruth.Row t : truth.rows()) {
            if (t.mode() != org.hyperprof.api.pmu.CpuMode.HYPERVISOR) {
                rows.add(t);
            }
        }
        rows.addAll(truth.onBehalf());
        return rows;
    }

    private boolean guestProfilerSession() {
        return GUEST_PROFILER_SOURCE.equals(info.source());
    }

    private void notes(StringBuilder out, boolean all) {
        List<String> notes = new ArrayList<>();
        if (truth != null && guestProfilerSession()) {
            notes.add("the guests' own profilers see guest PCs only (an overflow in hypervisor work is taken at the"
                    + " guest instruction that entered it): true % holds each guest function's own events plus the"
                    + " hypervisor's work it caused, and a guest with counters frozen at hypervisor entry undercounts"
                    + " exactly that part.");
        }
        if (truth != null) {
            notes.add("true % is the simulator's exact count of each counter's signal ("
                    + counters.stream().map(c -> c.event().name() + " = "
                            + (c.event().signal() == null ? "nothing the simulator emits" : c.event().signal()))
                            .collect(Collectors.joining(", "))
                    + ") for the row, over " + (all || options.global() ? "all rows of the profiled domains "
                            : "the domain's rows; ")
                    + (all || options.global() ? describeDomains(profiledDomains) + "; " : "")
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
        if (threadsNotRecorded) {
            notes.add("thread 'vcpu N': the source recorded no thread for these samples (a Xenoprof buffer entry"
                    + " carries none), so their rows are kept apart by vCPU.");
        }
        if (cpusNotRecorded) {
            notes.add("cpu -: the source recorded no physical CPU for these samples (a Xenoprof buffer entry carries"
                    + " none; the vCPU is in the vcpu option's column).");
        }
        if (processesNotRecorded) {
            notes.add("app name -: the source recorded no process for these samples (a Xenoprof buffer entry carries"
                    + " none), so no application can be told apart.");
        }
        if (options.callgraph() && !options.filter().all()) {
            notes.add("the filter chooses the call graph's blocks; each block's callers and callees are shown"
                    + " whatever their names.");
        }
        if ((options.callgraph() || options.details()) && options.separateVcpus()) {
            notes.add("with vcpu, call-graph arcs and per-PC lines are each vCPU's own as well.");
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

    /** The domain's role as its buffers give it (several roles joined by '/'), or null before the summary. */
    private String role(int domain) {
        if (summary == null) {
            return null;
        }
        Set<String> roles = new LinkedHashSet<>();
        for (BufferAccounting b : summary.buffers()) {
            if (b.domid() == domain) {
                roles.add(b.role());
            }
        }
        return roles.isEmpty() ? null : String.join("/", roles);
    }

    private String domainTitle(int domain) {
        String role = role(domain);
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

    /** Domain, vCPU, image, then symbol (an image row first). */
    private static final Comparator<Key> KEY_ORDER = Comparator.comparingInt(Key::domain)
            .thenComparingInt(Key::vcpu).thenComparingInt(Key::tid).thenComparingInt(Key::cpu)
            .thenComparing(Key::process, Comparator.nullsFirst(Comparator.naturalOrder())).thenComparing(Key::image)
            .thenComparing(Key::symbol, Comparator.nullsFirst(Comparator.naturalOrder()));

    /** opreport --sort symbol,image: by symbol name (image rows: none), then image name, then the rest of the key. */
    private static final Comparator<Row> NAME_ORDER = Comparator.<Row, String>comparing(r -> r.key.symbol(),
            Comparator.nullsFirst(Comparator.naturalOrder())).thenComparing(r -> r.key.image())
            .thenComparing(r -> r.key, KEY_ORDER);

    /** Samples descending counter by counter (OProfile sorts by the first event), then by key. */
    private static final Comparator<Row> ROW_ORDER = Comparator.<Row, long[]>comparing(r -> r.samples,
            OpreportText::descending).thenComparing(r -> r.key, KEY_ORDER);
}
