package org.hyperprof.report.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.hyperprof.api.report.ReportException;

/**
 * Which samples a report shows, by the names and vCPU of their frame: opreport's profile
 * specification by image and its {@code --include-symbols} / {@code --exclude-symbols}, with
 * regular expressions instead of lists, and a vCPU list. A sample the filter leaves out is out of
 * the report and of the totals its percentages are over, as opreport drops the symbols it
 * excludes; the books (what was taken, delivered and aggregated) stay whole.
 *
 * <p>A pattern matches when it is found in the name ({@link java.util.regex.Matcher#find}); anchor
 * it with {@code ^...$} for a whole name; code no symbol covers is named {@value #NO_SYMBOLS}. The
 * filter applies to a sample's own frame (its callers are context, whatever their names). Reports
 * apply it when they are made, once per row or frame, never per sample.
 *
 * @param image   the image names kept, or null for all
 * @param symbol  the symbol names kept, or null for all
 * @param exclude the symbol names left out, or null for none
 * @param vcpus   the vCPUs kept, empty for all
 */
public record RowFilter(Pattern image, Pattern symbol, Pattern exclude, Set<Integer> vcpus) {

    /** Keeps every sample. */
    public static final RowFilter ALL = new RowFilter(null, null, null, Set.of());

    /** The options with a short description each, for a renderer's option list. */
    public static final List<String> DESCRIPTIONS = List.of(
            "image=REGEX: only the samples whose image name contains a match of REGEX (a Java regular expression;"
                    + " ^...$ for the whole name); percentages are over what is kept",
            "symbol=REGEX: only the samples whose symbol name contains a match of REGEX (as opreport"
                    + " --include-symbols)",
            "exclude=REGEX: leave out the samples whose symbol name contains a match of REGEX (as opreport"
                    + " --exclude-symbols); they leave the totals too",
            "vcpu=N[,N...]: only the samples of these vCPUs (the CPU, for a recording without domains)");

    /** How a filter names the symbol of a frame no symbol covers. */
    public static final String NO_SYMBOLS = "(no symbols)";

    /** A report's own option descriptions followed by the filter's. */
    public static List<String> withFilterDescriptions(List<String> own) {
        List<String> all = new ArrayList<>(own);
        all.addAll(DESCRIPTIONS);
        return List.copyOf(all);
    }

    public RowFilter {
        vcpus = Set.copyOf(vcpus);
    }

    /**
     * The filter {@code request} asks for ({@code image=}, {@code symbol=}, {@code exclude=},
     * {@code vcpu=}); each option at most once.
     *
     * @throws ReportException naming the option, for a bad regular expression or vCPU list
     */
    public static RowFilter read(RequestOptions request) throws ReportException {
        Pattern image = pattern(request, "image", "image=libc.*\\.so");
        Pattern symbol = pattern(request, "symbol", "symbol=^mem(cpy|set)$");
        Pattern exclude = pattern(request, "exclude", "exclude=^_?_?spin_");
        Set<Integer> vcpus = new TreeSet<>();
        String vcpuOption = once(request, "vcpu");
        if (vcpuOption != null) {
            for (String part : RequestOptions.value(vcpuOption, "vcpu").split(",", -1)) {
                String n = part.trim();
                if (!n.matches("[0-9]{1,9}")) {
                    throw new ReportException("option '" + vcpuOption + "': '" + n + "' is not a vCPU number;"
                            + " vcpu= takes vCPU numbers from 0, comma-separated, e.g. vcpu=0,2");
                }
                vcpus.add(Integer.parseInt(n));
            }
        }
        return new RowFilter(image, symbol, exclude, vcpus);
    }

    /** Whether the filter keeps everything. */
    public boolean all() {
        return image == null && symbol == null && exclude == null && vcpus.isEmpty();
    }

    /** Whether samples of this vCPU are kept. */
    public boolean keepsVcpu(int vcpu) {
        return vcpus.isEmpty() || vcpus.contains(vcpu);
    }

    /** Whether samples in image {@code imageName} are kept (by the image pattern alone). */
    public boolean keepsImage(String imageName) {
        return image == null || image.matcher(imageName).find();
    }

    /** Whether samples of {@code symbolName} in {@code imageName} are kept (vCPU aside). */
    public boolean keeps(String imageName, String symbolName) {
        return keepsImage(imageName) && (symbol == null || symbol.matcher(symbolName).find())
                && (exclude == null || !exclude.matcher(symbolName).find());
    }

    /** The filter as its options, e.g. {@code image=libc, vcpu=0,1}, or {@code ""} for none. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (image != null) {
            parts.add("image=" + image.pattern());
        }
        if (symbol != null) {
            parts.add("symbol=" + symbol.pattern());
        }
        if (exclude != null) {
            parts.add("exclude=" + exclude.pattern());
        }
        if (!vcpus.isEmpty()) {
            parts.add("vcpu=" + String.join(",", vcpus.stream().sorted().map(String::valueOf).toList()));
        }
        return String.join(", ", parts);
    }

    private static Pattern pattern(RequestOptions request, String key, String example) throws ReportException {
        String option = once(request, key);
        if (option == null) {
            return null;
        }
        String regex = RequestOptions.value(option, key);
        if (regex.isEmpty()) {
            throw new ReportException("option '" + option + "': give a regular expression, e.g. " + example);
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new ReportException("option '" + option + "': '" + regex + "' is not a regular expression ("
                    + e.getDescription() + " at index " + e.getIndex() + "); " + key + "= takes a Java regular"
                    + " expression, e.g. " + example);
        }
    }

    /** The request's one {@code key=...} option, or null. */
    static String once(RequestOptions request, String key) throws ReportException {
        List<String> options = request.withValue(key);
        if (options.size() > 1) {
            throw new ReportException("options " + String.join(", ", options.stream().map(o -> "'" + o + "'")
                    .toList()) + ": give " + key + "= once");
        }
        return options.isEmpty() ? null : options.get(0);
    }
}
