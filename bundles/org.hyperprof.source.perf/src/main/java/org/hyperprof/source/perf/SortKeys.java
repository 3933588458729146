package org.hyperprof.source.perf;

import java.util.List;
import java.util.Locale;

/**
 * The keys of {@code perf report --sort} a flat report can group by: a process key ({@code comm},
 * the thread's name at the sample's time, or {@code pid}, the thread's id printed as
 * {@code <tid>:<last name>}), then {@code dso,sym} or nothing. perf's own default, {@code dso,sym},
 * is {@link #DSO_SYM}.
 *
 * @param process {@code comm}, {@code pid}, or null for none
 * @param frames  whether {@code dso,sym} follow
 */
public record SortKeys(String process, boolean frames) {

    /** perf report's default flat keys, which the import's own report prints. */
    public static final SortKeys DSO_SYM = new SortKeys(null, true);

    /** The lists accepted, for messages. */
    static final String ACCEPTED = "dso,sym, comm,dso,sym, pid,dso,sym, comm or pid";

    /**
     * Parses perf's comma-separated list ({@code symbol} for {@code sym}, as perf accepts).
     *
     * @throws IllegalArgumentException naming the list and the ones accepted
     */
    public static SortKeys parse(String list) {
        List<String> keys = List.of(list.toLowerCase(Locale.ROOT).replace("symbol", "sym").split(",", -1));
        String process = null;
        int at = 0;
        if (!keys.isEmpty() && (keys.get(0).equals("comm") || keys.get(0).equals("pid"))) {
            process = keys.get(0);
            at = 1;
        }
        List<String> rest = keys.subList(at, keys.size());
        if (rest.equals(List.of("dso", "sym"))) {
            return new SortKeys(process, true);
        }
        if (rest.isEmpty() && process != null) {
            return new SortKeys(process, false);
        }
        throw new IllegalArgumentException("--sort " + list + " is not a key list the import reports by; give one of "
                + ACCEPTED);
    }

    /** Whether the report groups by process (then the import reads samples one by one, into batches). */
    public boolean byProcess() {
        return process != null;
    }

    @Override
    public String toString() {
        return (process != null ? process + (frames ? "," : "") : "") + (frames ? "dso,sym" : "");
    }
}
