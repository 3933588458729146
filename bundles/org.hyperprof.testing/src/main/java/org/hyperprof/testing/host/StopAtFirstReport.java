package org.hyperprof.testing.host;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.ProgressListener;

/** A listener that asks to stop at the first progress report, as Ctrl-C pressed then would; keeps every report. */
public final class StopAtFirstReport implements ProgressListener {
    /** The simulated microseconds done at each report, in order. */
    public final List<Long> reports = new ArrayList<>();

    @Override
    public void progress(long doneMicros, long totalMicros, long samples) {
        reports.add(doneMicros);
    }

    @Override
    public boolean stopRequested() {
        return !reports.isEmpty();
    }
}
