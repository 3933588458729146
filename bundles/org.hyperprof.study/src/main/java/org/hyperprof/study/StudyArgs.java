package org.hyperprof.study;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.HostService;

/**
 * {@code hp:study}'s command line: {@code [--scenario <name|path>] [--policies a,b] [--ms <n>]
 * [--out <dir>]}, each option also as {@code --option=value}.
 *
 * @param scenario the scenario (default: the embedded default)
 * @param policies the variants asked for, in order, or null for every installed standard one
 * @param ms       simulated milliseconds per variant
 * @param out      the folder the CSV and SVG files go to
 */
record StudyArgs(String scenario, List<String> policies, long ms, Path out) {

    static final String USAGE = "hp:study [--scenario <name|path>] [--policies a,b,...] [--ms <simulated ms, default "
            + StudyArgs.DEFAULT_MS + ">] [--out <dir>]";
    static final long DEFAULT_MS = 200;
    /** A bound that keeps a typo from running for hours. */
    static final long MAX_MS = 600_000;

    /** A command line the study cannot take. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    static StudyArgs parse(String... args) throws UsageException {
        String scenario = HostService.DEFAULT_SCENARIO;
        List<String> policies = null;
        long ms = DEFAULT_MS;
        Path out = Path.of("");
        List<String> seen = new ArrayList<>();
        String[] a = args == null ? new String[0] : args;
        for (int i = 0; i < a.length; i++) {
            String option = a[i];
            String value;
            int eq = option.indexOf('=');
            if (option.startsWith("--") && eq > 0) {
                value = option.substring(eq + 1);
                option = option.substring(0, eq);
            } else if (option.startsWith("--")) {
                if (i + 1 >= a.length) {
                    throw new UsageException(option + " needs a value");
                }
                value = a[++i];
            } else {
                throw new UsageException("unexpected argument '" + option + "'; options start with --");
            }
            if (seen.contains(option)) {
                throw new UsageException(option + " given twice");
            }
            seen.add(option);
            switch (option) {
                case "--scenario" -> {
                    if (value.isBlank()) {
                        throw new UsageException("--scenario needs a scenario name or a scenario file's path");
                    }
                    scenario = value.strip();
                }
                case "--policies" -> policies = policies(value);
                case "--ms" -> ms = ms(value);
                case "--out" -> {
                    if (value.isBlank()) {
                        throw new UsageException("--out needs a folder");
                    }
                    out = Path.of(value.strip());
                }
                default -> throw new UsageException("unknown option " + option
                        + "; the options are --scenario, --policies, --ms and --out");
            }
        }
        return new StudyArgs(scenario, policies, ms, out);
    }

    private static List<String> policies(String value) throws UsageException {
        List<String> out = new ArrayList<>();
        for (String p : value.split(",")) {
            String name = p.strip();
            if (name.isEmpty()) {
                continue;
            }
            if (!out.contains(name)) {
                out.add(name);
            }
        }
        if (out.isEmpty()) {
            throw new UsageException("--policies needs policy variants separated by commas, e.g."
                    + " systemwide,saverestore/frozen");
        }
        return List.copyOf(out);
    }

    private static long ms(String value) throws UsageException {
        long ms;
        try {
            ms = Long.parseLong(value.strip().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new UsageException("--ms takes a whole number of simulated milliseconds, not '" + value + "'");
        }
        if (ms <= 0 || ms > MAX_MS) {
            throw new UsageException("--ms " + ms + " is out of range: give 1 to " + MAX_MS + " simulated milliseconds");
        }
        return ms;
    }
}
