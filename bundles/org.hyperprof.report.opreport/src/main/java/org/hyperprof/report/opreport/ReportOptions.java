package org.hyperprof.report.opreport;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.report.kit.RequestOptions;
import org.hyperprof.report.kit.RowFilter;

/**
 * The opreport options a {@code ReportRequest} may carry, named after OProfile's opreport options
 * where one exists.
 *
 * @param images        print the image summary
 * @param symbols       print the symbol summary (opreport -l)
 * @param callgraph     print the call graph (opreport -c)
 * @param details       print each symbol row's samples per PC under it (opreport -d)
 * @param global        make every percentage relative to the whole profile (opreport -%)
 * @param separateVcpus keep each vCPU's rows apart (the {@code vcpu} flag)
 * @param mergeDomains  in the report of all domains, add up the rows of every domain that share
 *                      image and symbol (merge=domain)
 * @param truth         whether the true share and the error are wanted: {@link Truth#AUTO} shows
 *                      them when the session has ground truth
 * @param top           at most this many symbol rows (and call-graph blocks) per section
 * @param filter        which samples are shown (image, symbol, exclude, vcpu)
 * @param threshold     only image and symbol rows with at least this percentage (of the section's
 *                      samples, or with global of the whole profile) in some counter, as opreport -t
 * @param order         the order rows are printed in (which rows, top and threshold choose by samples)
 * @param separate      what rows are kept apart by besides domain, image and symbol, as opreport
 *                      --separate
 * @param host          list every host counter in the accounting (by default one short line)
 * @param format        text for people, or json or csv for scripts: the same rows and the books
 */
record ReportOptions(boolean images, boolean symbols, boolean callgraph, boolean details, boolean global,
        boolean separateVcpus, boolean mergeDomains, Truth truth, int top, RowFilter filter, double threshold,
        Order order, Set<Separation> separate, boolean host, MachineRows.Format format) {

    /** Symbol rows per section when no {@code top=N} is given. */
    static final int DEFAULT_TOP = 30;

    enum Truth {
        /** Shown when the session has ground truth (the default). */
        AUTO,
        /** Asked for explicitly with {@code truth}. */
        ON,
        /** Turned off with {@code notruth}. */
        OFF
    }

    /** The order rows are printed in: {@code order=samples|name}. */
    enum Order {
        /** Most samples first, counter by counter (opreport's default, --sort sample). */
        SAMPLES,
        /** By symbol name, then image name (opreport --sort symbol,image); image rows by image name. */
        NAME
    }

    /** What {@code separate=} keeps rows apart by (opreport --separate's names). */
    enum Separation {
        /** A user image's rows per application (the sample's process, by its name). */
        LIB,
        /** Kernel and module rows per application too (implies lib, as in opreport). */
        KERNEL,
        /** Per thread (tid); for a session whose samples carry no thread (the simulator's), per vCPU. */
        THREAD,
        /** Per physical CPU that took the sample. */
        CPU
    }

    /** The options with a short description each, as {@code ReportRenderer.options()} lists them. */
    static final List<String> DESCRIPTIONS = List.of(
            "images: the image summary (samples and % per image, as opreport)",
            "symbols: the symbol summary (samples and % per symbol, as opreport -l)",
            "callgraph: the call graph in opreport -c's layout (callers, the symbol, its callees and [self]);"
                    + " needs a session profiled with a call-graph depth (--callgraph=N)",
            "details: each symbol row followed by its samples per PC (vma, samples, %), as opreport -d;"
                    + " implies symbols",
            "global: every percentage relative to the whole profile, as opreport -% (by default a domain's rows"
                    + " are % of its own samples and callers/callees % of the symbol's callers/callees)",
            "vcpu: keep each vCPU's rows apart, with a vcpu column (a recording's vCPU is its CPU; separate=cpu is the"
                    + " physical CPU); merged by default",
            "merge=domain|vcpu|cpu|all: as opreport --merge, comma-separated; domain adds up the rows of every"
                    + " domain that share image and symbol in the report of all domains, vcpu (or cpu) adds up the"
                    + " vCPUs (the default), all does both",
            "truth: the true share and the error next to each row (the default when the session has ground truth)",
            "notruth: leave out the true share and error columns",
            "top=N: at most N symbol rows and call-graph blocks per section (default " + DEFAULT_TOP + ")",
            "threshold=P: only the image and symbol rows with at least P % of the section's samples (of the"
                    + " whole profile with global), as opreport --threshold; the rest are added up in one line",
            "order=samples|name: rows by samples, most first (the default), or by symbol then image name, as"
                    + " opreport --sort sample or symbol,image; top and threshold still choose the rows by samples",
            "separate=lib,kernel,thread,cpu: as opreport --separate, comma-separated: lib keeps a user image's rows"
                    + " apart per application, kernel does that for kernel and module rows too, thread per thread"
                    + " (per vCPU where samples carry no thread), cpu per physical CPU; all is every one",
            "host: every host counter in the accounting (by default one line saying how many there are)",
            "format=text|json|csv: text for people (the default), or for scripts the rows the text would show"
                    + " (image and symbol summaries, each row keyed by its column names, with its section) and the"
                    + " session's books, as one JSON object or as CSV (hp:report --format json)");

    static final ReportOptions DEFAULT = new ReportOptions(true, true, false, false, false, false, false,
            Truth.AUTO, DEFAULT_TOP, RowFilter.ALL, 0, Order.SAMPLES, Set.of(), false, MachineRows.Format.TEXT);

    /** The renderer's options: its own, then the filters every report shares. */
    static final List<String> ALL_DESCRIPTIONS = RowFilter.withFilterDescriptions(DESCRIPTIONS);

    static ReportOptions parse(Set<String> options) throws ReportException {
        RequestOptions request = new RequestOptions("opreport", ALL_DESCRIPTIONS, options);
        boolean images = request.flag("images");
        boolean symbols = request.flag("symbols");
        boolean callgraph = request.flag("callgraph");
        boolean details = request.flag("details");
        boolean global = request.flag("global");
        boolean vcpu = request.flag("vcpu");
        boolean truth = request.flag("truth");
        boolean noTruth = request.flag("notruth");
        boolean host = request.flag("host");
        RowFilter filter = RowFilter.read(request);
        double threshold = 0;
        for (String option : request.withValue("threshold")) {
            threshold = RequestOptions.percent(option, "threshold", "threshold=0.5");
        }
        Order order = Order.SAMPLES;
        for (String option : request.withValue("order")) {
            order = parseOrder(option);
        }
        Set<Separation> separate = EnumSet.noneOf(Separation.class);
        for (String option : request.withValue("separate")) {
            separate.addAll(parseSeparate(option));
        }
        boolean mergeDomains = false;
        String mergeVcpus = null;
        for (String option : request.withValue("merge")) {
            for (String what : parseMerge(option)) {
                if (what.equals("domain") || what.equals("all")) {
                    mergeDomains = true;
                }
                if (!what.equals("domain")) {
                    mergeVcpus = what;
                }
            }
        }
        MachineRows.Format format = MachineRows.Format.TEXT;
        for (String option : request.withValue("format")) {
            String value = RequestOptions.name(RequestOptions.value(option, "format"));
            format = switch (value) {
                case "text" -> MachineRows.Format.TEXT;
                case "json" -> MachineRows.Format.JSON;
                case "csv" -> MachineRows.Format.CSV;
                default -> throw new ReportException("option '" + option + "': format= takes text, json or csv");
            };
        }
        int top = DEFAULT_TOP;
        for (String option : request.withValue("top")) {
            top = RequestOptions.wholeNumber(option, "top", 1, "N must be a whole number of symbol rows, e.g. top=30",
                    "N must be from 1 to " + Integer.MAX_VALUE + " symbol rows per section");
        }
        request.check();
        if (truth && noTruth) {
            throw new ReportException("options 'truth' and 'notruth' contradict each other; give one of them"
                    + " (without either, the true share is shown when the session has ground truth)");
        }
        if (vcpu && mergeVcpus != null) {
            throw new ReportException("options 'vcpu' and 'merge=" + mergeVcpus + "' contradict each other: vcpu keeps"
                    + " each vCPU's rows apart, merge=" + mergeVcpus + " adds them up; give one of them (without"
                    + " either, the vCPUs are added up)");
        }
        if (vcpu && mergeDomains) {
            throw new ReportException("options 'vcpu' and 'merge=domain' cannot go together: vCPU 0 of one domain and"
                    + " vCPU 0 of another are different processors, so their rows cannot be added up; ask for"
                    + " merge=domain without vcpu, or for vcpu without merge=domain");
        }
        if (format != MachineRows.Format.TEXT && (callgraph || details)) {
            throw new ReportException("format=" + format.name().toLowerCase(java.util.Locale.ROOT) + " gives the image"
                    + " and symbol summaries; the call graph and the per-PC details are text only: leave out "
                    + (callgraph ? "callgraph" : "details") + " or format=");
        }
        if (separate.contains(Separation.KERNEL)) {
            separate.add(Separation.LIB); // as opreport: kernel implies lib
        }
        if (mergeDomains && !separate.isEmpty()) {
            throw new ReportException("options 'merge=domain' and 'separate=" + names(separate) + "' cannot go"
                    + " together: threads, CPUs and applications belong to one domain; give one of them");
        }
        boolean anyView = images || symbols || callgraph || details;
        return new ReportOptions(!anyView || images, !anyView || symbols || details, callgraph, details, global,
                vcpu, mergeDomains, truth ? Truth.ON : noTruth ? Truth.OFF : Truth.AUTO, top, filter, threshold,
                order, Set.copyOf(separate), host, format);
    }

    private static Order parseOrder(String option) throws ReportException {
        String value = RequestOptions.name(RequestOptions.value(option, "order"));
        return switch (value) {
            case "samples" -> Order.SAMPLES;
            case "name" -> Order.NAME;
            default -> throw new ReportException("option '" + option + "': order= takes samples (most first, the"
                    + " default) or name (by symbol, then image); what rows are is separate=, not order=");
        };
    }

    /** The values of {@code separate=a,b,...}: lib, kernel, thread, cpu or all. */
    private static Set<Separation> parseSeparate(String option) throws ReportException {
        String list = RequestOptions.name(RequestOptions.value(option, "separate"));
        Set<Separation> separate = EnumSet.noneOf(Separation.class);
        for (String value : list.split("\\s*,\\s*", -1)) {
            if (value.equals("all")) {
                separate.addAll(EnumSet.allOf(Separation.class));
            } else if (value.equals("lib") || value.equals("kernel") || value.equals("thread")
                    || value.equals("cpu")) {
                separate.add(Separation.valueOf(value.toUpperCase(Locale.ROOT)));
            } else {
                throw new ReportException("option '" + option + "': '" + value + "' is not something opreport can"
                        + " separate by; separate= takes lib, kernel, thread, cpu or all, comma-separated, e.g."
                        + " separate=lib,thread");
            }
        }
        return separate;
    }

    /** {@code lib,thread}: the separations as separate= names them. */
    static String names(Set<Separation> separate) {
        return String.join(",", separate.stream().sorted().map(s -> s.name().toLowerCase(Locale.ROOT)).toList());
    }

    /** The values of {@code merge=a,b,...}: domain, vcpu, cpu or all. */
    private static List<String> parseMerge(String option) throws ReportException {
        String list = RequestOptions.name(RequestOptions.value(option, "merge"));
        if (list.isEmpty()) {
            throw new ReportException("option '" + option + "': say what to merge, e.g. merge=domain; merge= takes"
                    + " domain, vcpu (or cpu) or all, comma-separated");
        }
        List<String> values = List.of(list.split("\\s*,\\s*"));
        for (String value : values) {
            if (!List.of("domain", "vcpu", "cpu", "all").contains(value)) {
                throw new ReportException("option '" + option + "': '" + value + "' is not something opreport can"
                        + " merge; merge= takes domain, vcpu (or cpu) or all, comma-separated (OProfile's lib, tid"
                        + " and tgid have no counterpart here)");
            }
        }
        return values;
    }
}
