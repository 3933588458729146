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

    /** Argument {@code i} as a benchmarks jar of a build (the side-by-side harnesses take two). */
    java.nio.file.Path jar(int i) {
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
