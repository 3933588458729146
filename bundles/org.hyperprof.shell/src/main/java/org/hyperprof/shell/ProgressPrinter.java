package org.hyperprof.shell;

import java.io.PrintStream;

import org.hyperprof.api.host.ProgressListener;

/**
 * Shows a long simulation run as whole lines, one each time another tenth is done, so that it
 * reads well on a terminal and in piped or captured output alike (no carriage returns).
 */
public final class ProgressPrinter implements ProgressListener {
    private static final int STEPS = 10;

    private final PrintStream out;
    private int printedSteps;

    public ProgressPrinter(PrintStream out) {
        this.out = out;
    }

    @Override
    public synchronized void progress(long doneMicros, long totalMicros, long samples) {
        if (totalMicros <= 0) {
            return;
        }
        long done = Math.min(Math.max(doneMicros, 0), totalMicros);
        // Whole tenths reached, in integers so that 30% of a run prints at exactly 30%.
        long tenths = done <= Long.MAX_VALUE / STEPS ? done * STEPS / totalMicros : done / (totalMicros / STEPS);
        int steps = (int) Math.min(STEPS, tenths);
        if (steps <= printedSteps) {
            return;
        }
        printedSteps = steps;
        out.printf("  %3d%%  %d/%d ms simulated, %d samples%n", steps * 100 / STEPS, done / 1000, totalMicros / 1000,
                samples);
    }
}
