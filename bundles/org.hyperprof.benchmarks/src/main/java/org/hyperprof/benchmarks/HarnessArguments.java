package org.hyperprof.benchmarks;

/**
 * The command-line arguments of a harness run by hand ({@code SimulatorCpu}, {@code SimulatorSideBySide},
 * {@code ImportSideBySide}):
 * a bad one is said in one line, with the usage, and the run ends with status 2.
 */
final class HarnessArguments {
    private final String harness;
    private final String usage;
    private final String[] args;

    HarnessArguments(String harness, String usage, String[] args) {
        this.harness = harness;
        this.usage = usage;
        this.args = args;
    }

    /** Argument {@code i} as a whole number above 0, or {@code otherwise} when it is not given. */
    int count(int i, String what, int otherwise) {
        if (args.length <= i) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(args[i]);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // told below
        }
        fail(what + " is '" + args[i] + "'; expected a whole number above 0 (" + usage + ")");
        return otherwise;
    }

    /** Arguments 0 and 1: the benchmarks jars of the two builds a side-by-side harness runs. */
    java.nio.file.Path[] twoJars() {
        if (args.length < 2) {
            fail("two benchmarks jars are needed; " + usage);
        }
        return new java.nio.file.Path[] {jar(0), jar(1)};
    }

    /** Argument {@code i}, one of {@code modes}; the first when it is not given. */
    String mode(int i, String... modes) {
        if (args.length <= i) {
            return modes[0];
        }
        if (!java.util.List.of(modes).contains(args[i])) {
            fail("the mode is '" + args[i] + "'; expected " + String.join(" or ", modes) + " (" + usage + ")");
        }
        return args[i];
    }

    /** Argument {@code i} as a benchmarks jar of a build. */
    private java.nio.file.Path jar(int i) {
        java.nio.file.Path p = java.nio.file.Path.of(args[i]);
        if (!java.nio.file.Files.isReadable(p)) {
            fail("'" + args[i] + "' is not a readable file; give copies of benchmarks.jar from two builds (" + usage
                    + ")");
        }
        return p;
    }

    /** Says why the run cannot go on and ends it with status 2. */
    void fail(String why) {
        System.err.println(harness + ": " + why);
        System.exit(2);
    }
}
